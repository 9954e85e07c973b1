"""The keyboard alone: a cursor (arrows move it, Space or Enter selects, arrows then move the
selection) wins Vexed and sliding blocks; the board keeps the focus after a button, shows a focus
ring, and a live region reads each move out in the game's own words."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import wait_in_page

pytestmark = pytest.mark.browser

VEXED_SOLUTION = ["4,1>", "1,4>", "4,4>"]
BLOCKS_SOLUTION = ["2,0R", "2,1R", "0,0D", "0,2L", "0,1L", "1,2U", "0,2L", "2,2U", "1,2U", "1,0R"]
ARROWS = {"l": "ArrowLeft", "r": "ArrowRight", "u": "ArrowUp", "d": "ArrowDown"}


def tab_to_board(page) -> None:
    """Tab from the top of the page until the board has the focus."""
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#play .board')"):
            return
    raise AssertionError("Tab never reaches the board")


def cursor_at(page, selector: str) -> tuple[int, int]:
    cell = page.locator(selector).first.get_attribute("data-cell")
    row, column = cell.split(",")
    return int(row), int(column)


def steer(page, selector: str, row: int, column: int) -> None:
    """Arrow presses that bring the cursor (found by selector) to (row, column)."""
    here = cursor_at(page, selector)
    for _ in range(abs(row - here[0])):
        page.keyboard.press("ArrowDown" if row > here[0] else "ArrowUp")
    for _ in range(abs(column - here[1])):
        page.keyboard.press("ArrowRight" if column > here[1] else "ArrowLeft")
    assert cursor_at(page, selector) == (row, column)


def test_a_vexed_level_is_won_with_the_keyboard_only(page, live_server):
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    tab_to_board(page)
    page.keyboard.press("ArrowRight")  # the first arrow shows the cursor
    expect(page.locator("#play .vexed .cursor")).to_have_count(1)
    for done, move in enumerate(VEXED_SOLUTION, 1):
        wait_in_page(page, "() => !window.PuzzleLab.hold()")
        if page.locator("#play .vexed .selected").count():
            page.keyboard.press("Space")  # put the last block down
        row, column = map(int, move[:-1].split(","))
        steer(page, "#play .vexed .cursor", row, column)
        page.keyboard.press("Enter" if done % 2 else "Space")
        expect(
            page.locator(f'#play .vexed .selected.cursor[data-cell="{row},{column}"]')
        ).to_have_count(1)
        page.keyboard.press("ArrowRight" if move.endswith(">") else "ArrowLeft")
        expect(page.locator("#count-moves")).to_have_text(str(done))
    expect(page.locator("#solved")).to_contain_text("3 moves")
    assert page.evaluate("document.activeElement.matches('#play .board')")


def test_a_sliding_blocks_level_is_won_with_the_keyboard_only(page, live_server):
    page.goto(live_server.url + "/blocks/workshop/1")
    tab_to_board(page)
    page.keyboard.press("ArrowDown")
    cursor = "#play .blocks .at-cursor, #play .blocks .cell.cursor"
    expect(page.locator(cursor)).to_have_count(1)
    for done, move in enumerate(BLOCKS_SOLUTION, 1):
        row, column = map(int, move[:-1].split(","))
        steer(page, cursor, row, column)
        page.keyboard.press("Space")
        expect(page.locator(f'#play .piece.selected[data-cell="{row},{column}"]')).to_have_count(1)
        page.keyboard.press(ARROWS[move[-1].lower()])
        expect(page.locator("#count-steps")).to_have_text(str(done))
        page.keyboard.press("Space")  # put it down: the arrows move the cursor again
        expect(page.locator("#play .piece.selected")).to_have_count(0)
    expect(page.locator("#solved")).to_be_visible()


def test_the_board_keeps_the_focus_after_undo_and_shows_a_ring(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    tab_to_board(page)
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert ring == "solid"
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("1")
    undo = page.locator('#play [data-action="undo"]')
    undo.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#count-moves")).to_have_text("0")
    wait_in_page(page, "document.activeElement.matches('#play .board')")
    # And the arrows go on playing from there.
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("1")
    # Redo by Space on its button, too.
    page.keyboard.press("Control+z")
    expect(page.locator("#count-moves")).to_have_text("0")
    page.locator('#play [data-action="redo"]').focus()
    page.keyboard.press("Space")
    expect(page.locator("#count-moves")).to_have_text("1")
    wait_in_page(page, "document.activeElement.matches('#play .board')")


def test_moves_are_read_out_in_the_games_words(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    tab_to_board(page)
    live = page.locator("#announcer")
    for key in ["ArrowDown", "ArrowLeft"]:
        page.keyboard.press(key)
    expect(live).to_have_text("Stepped left. 1 of 2 boxes on goals.")
    expect(live).to_have_attribute("aria-live", "polite")
    page.keyboard.press("ArrowUp")
    expect(live).to_have_text("Box pushed up. 0 of 2 boxes on goals.")  # off its goal
    page.keyboard.press("u")
    expect(live).to_have_text("Move undone. 1 of 2 boxes on goals.")
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    page.locator('#play [data-cell="4,1"]').click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#announcer")).to_have_text(
        "Star block moved right; 4 blocks vanished. 4 blocks left."
    )
    wait_in_page(page, "() => !window.PuzzleLab.hold()")
    page.locator('#play [data-cell="1,4"]').click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#announcer")).to_have_text(
        "Circle block moved right; 2 blocks vanished. 2 blocks left."
    )


def test_space_on_the_board_does_not_scroll_the_page(page, live_server):
    page.set_viewport_size({"width": 1280, "height": 420})
    page.goto(live_server.url + "/sokoban/microban/1")
    page.locator("#play .board").focus()
    scrolled = page.evaluate("window.scrollY")
    page.keyboard.press("Space")
    page.wait_for_timeout(200)
    assert page.evaluate("window.scrollY") == scrolled
    assert page.evaluate("document.activeElement.matches('#play .board')")
