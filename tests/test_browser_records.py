"""A collection page shows a small picture of each level's board (Chromium, desktop and a
touch phone), and a level page its records."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SIZES = [({"width": 1280, "height": 900}, False), ({"width": 390, "height": 844}, True)]


@pytest.mark.parametrize(("viewport", "touch"), SIZES)
@pytest.mark.parametrize(("game", "collection"), [("sokoban", "microban"), ("blocks", "classics")])
def test_a_collection_page_shows_a_picture_of_every_level(
    browser, live_server, viewport, touch, game, collection
):
    context = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/{game}/{collection}/")
        tiles = page.locator("ol.levels > li")
        count = tiles.count()
        assert count > 0 and page.locator("ol.levels > li img.sketch").count() == count
        first = page.locator("ol.levels > li img.sketch").first
        first.scroll_into_view_if_needed()
        page.wait_for_function(
            "() => { const img = document.querySelector('ol.levels img.sketch');"
            " return img.complete && img.naturalWidth > 0; }"
        )
        box = first.bounding_box()
        assert box is not None and 24 <= box["width"] <= 120  # small, and drawn
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    finally:
        context.close()


def test_an_address_too_long_gets_a_page_that_says_so(page, live_server):
    """A replay link of thousands of moves was gunicorn's bare 'URI Too Long' (issue #33)."""
    answer = page.goto(live_server.url + "/sokoban/microban/1?moves=" + "ud" * 5000)
    assert answer.status == 414
    expect(page.locator("h1")).to_have_text("This address is too long")
    page.locator("text=Back to the games").click()
    expect(page).to_have_url(live_server.url + "/")
