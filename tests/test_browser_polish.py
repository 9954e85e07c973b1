"""What a new player met that was broken, in Chromium at desktop size and on a touch phone:
each test here fails without its fix."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.conftest import pinch

pytestmark = pytest.mark.browser


def test_the_records_show_a_win_without_a_reload(screen, live_server):
    # One slide from solved: the tile at the bottom right slides into the hole beside it
    # (another level at each size: the server is shared).
    wide = screen.viewport_size["width"] > 500
    screen.goto(live_server.url + "/sliding/p/3x3-" + ("123456708" if wide else "123450786"))
    expect(screen.locator("#records-summary")).to_have_text(
        "Nobody has solved this level on their own yet."
    )
    tile = screen.locator('#play .board [data-cell="2,2"]')
    if wide:
        tile.click()
    else:
        tile.tap()
    expect(screen.locator("#solved")).to_be_visible()
    expect(screen.locator("#records-summary")).to_contain_text("Solved by 1 player. Best: 1 move;")
    expect(screen.locator("#leaderboard tr.mine")).to_have_count(1)


def test_undo_with_nothing_to_undo_says_so(screen, live_server):
    screen.goto(live_server.url + "/sokoban/microban/2")
    screen.locator("#play .board").focus()
    screen.keyboard.press("u")
    expect(screen.locator("#announcer")).to_have_text("Nothing to undo. 2 of 3 boxes on goals.")


def test_no_hint_is_offered_under_the_win(screen, live_server):
    screen.goto(live_server.url + "/sliding/p/3x3-123456708")  # one slide from solved
    expect(screen.locator("#hint-button")).to_be_visible()
    screen.locator("#play .board").focus()
    screen.keyboard.press("ArrowLeft")
    expect(screen.locator("#solved")).to_be_visible()
    expect(screen.locator("#hint-button")).to_be_hidden()


def test_a_collections_order_applies_as_it_is_chosen(screen, live_server):
    screen.goto(live_server.url + "/sokoban/microban/")
    first = screen.locator("ol.levels > li").first
    expect(first).to_have_attribute("data-level", "1")
    screen.locator("#listing-show").select_option("solved")
    expect(screen).to_have_url(re.compile(r"show=solved"))
    expect(screen.locator("#listing-empty")).to_be_visible()


def test_the_pictures_of_a_collection_line_up(screen, live_server):
    screen.goto(live_server.url + "/sokoban/microban/")
    screen.wait_for_function(
        "() => [...document.querySelectorAll('ol.levels img.sketch')].slice(0, 8)"
        ".every(img => img.complete && img.naturalWidth > 0)"
    )
    heights = {
        round(box["height"])
        for box in (img.bounding_box() for img in screen.locator("ol.levels img.sketch").all()[:8])
    }
    assert len(heights) == 1, heights


def test_every_game_and_the_daily_are_in_sight_in_the_header(screen, live_server):
    screen.goto(live_server.url + "/")
    width = screen.viewport_size["width"]
    for link in screen.locator("header.top nav a").all():
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
            link.text_content()
        )
    header = screen.locator("header.top").bounding_box()
    assert header is not None and header["height"] <= 100


def test_a_vexed_block_clicked_twice_stays_selected_and_moves(screen, live_server):
    screen.goto(live_server.url + "/vexed/childrens-pack/1")
    block = screen.locator('#play .board [data-cell="1,4"]')
    for _ in range(2):
        block.tap() if screen.viewport_size["width"] < 500 else block.click()
    expect(block).to_have_class(re.compile(r"\bselected\b"))
    screen.keyboard.press("ArrowRight")
    expect(screen.locator("#count-moves")).to_have_text("1")


def test_a_zoomed_board_follows_the_player(browser, live_server):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + "/sokoban/microban2/135")
        board = page.locator("#play .board").bounding_box()
        player = page.locator("#play .board .player").bounding_box()
        # Two fingers spread at the board's corner farthest from the player.
        x = board["x"] + (
            board["width"] - 30 if player["x"] < board["x"] + board["width"] / 2 else 30
        )
        y = board["y"] + (
            board["height"] - 30 if player["y"] < board["y"] + board["height"] / 2 else 30
        )

        pinch(context, page, x, y, (10, 20, 30, 40, 50))
        expect(page.locator("#play .board-frame.zoomed")).to_have_count(1)

        in_view = """() => {
            const frame = document.querySelector('#play .board-frame').getBoundingClientRect();
            const seen = document.querySelector('#play .board .player').getBoundingClientRect();
            return seen.left >= frame.left - 1 && seen.right <= frame.right + 1
                && seen.top >= frame.top - 1 && seen.bottom <= frame.bottom + 1;
        }"""
        assert not page.evaluate(in_view)  # zoomed far from the player
        page.locator("#play .board").focus()
        moved = "() => document.querySelector('#count-moves').textContent.trim() !== '0'"
        for key in ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"):  # the first legal one
            page.keyboard.press(key)
            try:
                page.wait_for_function(moved, timeout=2_000)
                break
            except PlaywrightTimeout:
                continue
        expect(page.locator("#count-moves")).to_have_text("1")
        page.wait_for_function(in_view, timeout=5_000)
    finally:
        context.close()


def test_a_level_made_to_order_says_it_is_being_made(screen, live_server):
    screen.route("**/random?**", lambda route: route.abort())  # the making never answers here
    screen.goto(live_server.url + "/sokoban/")
    said = screen.evaluate(
        """() => {
            [...document.querySelectorAll('.make-links a')].find(a => a.textContent === 'Expert')
                .click();
            return document.getElementById('make-status').textContent;  // before any answer
        }"""
    )
    assert said.startswith("Making your expert level")


def test_the_address_too_long_page_has_the_sites_header(screen, live_server):
    answer = screen.goto(live_server.url + "/sokoban/microban/1?moves=" + "ud" * 5000)
    assert answer is not None and answer.status == 414
    expect(screen.locator("header.top .brand")).to_have_text("Puzzle Lab")
    expect(screen.locator("header.top nav a", has_text="Daily")).to_be_visible()


def test_the_settings_say_where_they_are_kept_and_the_name_field_is_a_real_field(
    screen, live_server
):
    screen.goto(live_server.url + "/settings")
    field = screen.locator("#name").bounding_box()
    button = screen.locator(".name-form button").bounding_box()
    assert field is not None and button is not None
    assert field["height"] >= 40 and abs(field["height"] - button["height"]) <= 4
    screen.locator("#settings-button").click()
    expect(screen.locator("#settings")).to_contain_text("Kept with your games on this site")
    expect(screen.locator("#settings")).not_to_contain_text("Kept in this browser.")
