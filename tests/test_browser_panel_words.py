"""The solver panel in a player's words, in Chromium at 1280×900 and on a 390×844 touch phone:
after a live solve in each game, no search-engine word in what the panel shows or says on
hover, each figure says what it is, and the panel fits the screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.test_panel_words import ENGINE_WORDS

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

#: (level page, algorithm): small levels each game's default solver, or the one named,
#: solves at once.
LEVELS = [
    ("/sokoban/microban/1", "fast"),
    ("/sokoban/microban/2", "bfs"),
    ("/sliding/warm-up/8", "idastar"),
    ("/vexed/tutorial/1", "fast"),
    ("/blocks/workshop/1", "path"),
]

SHOWN = """() => {
  const panel = document.getElementById('solver');
  const titles = [...panel.querySelectorAll('[title], [aria-label]')]
    .map((el) => (el.getAttribute('title') || '') + ' ' + (el.getAttribute('aria-label') || ''));
  return panel.innerText + ' ' + titles.join(' ');
}"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize(("path", "algorithm"), LEVELS)
def test_the_panel_after_a_live_solve_speaks_a_players_words(
    browser, live_server, path, algorithm, phone
):
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, has_touch=phone, is_mobile=phone
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + path)
        page.select_option("select[name=algorithm]", algorithm)
        page.locator("#solve-button").click()
        expect(page.locator("#solve-status")).to_have_attribute(
            "data-status", "solved", timeout=60_000
        )
        words = page.evaluate(SHOWN)
        assert ENGINE_WORDS.findall(words) == [], words
        assert "positions looked at" in words
        figures = page.locator("#solve-stats > div")
        assert figures.count() == 6
        for index in range(figures.count()):
            what = figures.nth(index).get_attribute("title")
            assert what and re.fullmatch(r"[A-Z].+\.", what)
        # The long algorithm names wrap: the panel is no wider than the screen.
        wide = page.evaluate(
            "() => [document.getElementById('solver').scrollWidth,"
            " document.documentElement.clientWidth]"
        )
        assert wide[0] <= wide[1], wide
    finally:
        context.close()
