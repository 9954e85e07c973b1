"""Sokoban in a real browser: keys, clicks, undo/redo, reload, sharing and replay links."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Microban 1, solved in 33 moves and 8 pushes (measured; see shared/benchmarks/sokoban).
MICROBAN_1 = "dlUrrrdLullddrUluRuulDrddrruLdlUU"
KEYS = {
    "arrows": {"l": "ArrowLeft", "u": "ArrowUp", "r": "ArrowRight", "d": "ArrowDown"},
    "wasd": {"l": "a", "u": "w", "r": "d", "d": "s"},
    "vi": {"l": "h", "u": "k", "r": "l", "d": "j"},
}


def press_moves(page, moves: str) -> None:
    """The moves typed at a fast person's pace (a key every 40 ms): faster, a win is kept
    but not ranked (webapp/core/records.py), and the collection would not count it."""
    layouts = list(KEYS.values())
    for index, move in enumerate(moves):
        page.keyboard.press(layouts[index % 3][move.lower()])
        page.wait_for_timeout(40)


def player_cell(page) -> str:
    return page.locator(".board .player").get_attribute("data-cell")


def test_play_microban_level_to_solved_with_the_keyboard(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    expect(page.locator("#count-moves")).to_have_text("0")
    press_moves(page, MICROBAN_1)
    expect(page.locator("#count-moves")).to_have_text("33")
    expect(page.locator("#count-pushes")).to_have_text("8")
    expect(page.locator("#solved")).to_contain_text("Solved!")
    expect(page.locator("#solved")).to_contain_text("33 moves, 8 pushes")
    page.locator("#solved a.next").click()
    expect(page).to_have_url(live_server.url + "/sokoban/microban/2")
    # The collection page shows the win and its figures.
    page.goto(live_server.url + "/sokoban/microban/")
    expect(page.locator(".levels li.solved")).to_have_count(1)
    expect(page.locator(".levels li.solved .best")).to_have_text("33/8")


def test_click_walks_by_a_shortest_path_then_undo_and_redo(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    assert player_cell(page) == "3,2"
    page.locator('[data-cell="1,1"]').click()  # around the box-free squares: 3 steps
    expect(page.locator("#count-moves")).to_have_text("3")
    expect(page.locator(".board .player")).to_have_attribute("data-cell", "1,1")
    expect(page.locator("#count-pushes")).to_have_text("0")
    page.keyboard.press("u")  # the walk was one gesture: one undo takes it back
    expect(page.locator("#count-moves")).to_have_text("0")
    page.keyboard.press("Control+y")
    expect(page.locator("#count-moves")).to_have_text("3")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("4")
    page.keyboard.press("Control+z")
    expect(page.locator("#count-moves")).to_have_text("3")
    page.keyboard.press("Shift+U")
    expect(page.locator("#count-moves")).to_have_text("4")
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("3")
    expect(page.locator(".board .player")).to_have_attribute("data-cell", "1,1")
    # Restart is a step of history too: undo brings the position back.
    page.keyboard.press("r")
    expect(page.locator("#count-moves")).to_have_text("0")
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("3")


def test_reload_finds_the_same_position(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/3")
    press_moves(page, "ruuLL")
    expect(page.locator("#count-moves")).to_have_text("5")
    before = player_cell(page)
    boxes = page.locator(".board .box").evaluate_all("els => els.map(e => e.dataset.cell)")
    page.reload()
    expect(page.locator("#count-moves")).to_have_text("5")
    expect(page.locator("#count-pushes")).to_have_text("2")
    assert player_cell(page) == before
    assert page.locator(".board .box").evaluate_all("els => els.map(e => e.dataset.cell)") == boxes
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("4")


def test_a_pasted_level_has_a_url_that_shows_the_same_level_elsewhere(page, browser, live_server):
    level = "#######\n#.  $@#\n#######"
    page.goto(live_server.url + "/sokoban/")
    page.locator("textarea[name=text]").fill("Title: Tiny corridor\n" + level)
    page.get_by_role("button", name="Play it").click()
    expect(page.locator("h1")).to_have_text("Tiny corridor")
    url = page.url
    assert "/sokoban/custom/" in url
    friend = browser.new_context().new_page()
    try:
        friend.goto(url)
        expect(friend.locator("h1")).to_have_text("Tiny corridor")
        expect(friend.locator(".board .cell")).to_have_count(21)
        expect(friend.locator(".board .box")).to_have_attribute("data-cell", "1,4")
        friend.keyboard.press("ArrowLeft")
        friend.keyboard.press("ArrowLeft")
        friend.keyboard.press("ArrowLeft")
        expect(friend.locator("#solved")).to_be_visible()
    finally:
        friend.context.close()
    # The same level pasted again (another dialect, no title) gets the same address.
    page.goto(live_server.url + "/sokoban/")
    page.locator("textarea[name=text]").fill("1111111\n1200341\n1111111")
    page.get_by_role("button", name="Play it").click()
    assert page.url == url


def test_a_malformed_paste_says_what_is_wrong(page, live_server):
    page.goto(live_server.url + "/sokoban/")
    page.locator("textarea[name=text]").fill("#####\n#@$x#\n#####")
    page.get_by_role("button", name="Play it").click()
    expect(page.locator("#paste-error")).to_contain_text("line 2, column 4")
    expect(page.locator("#paste-error")).to_contain_text("unknown character 'x'")
    # What was pasted is still there to fix.
    expect(page.locator("textarea[name=text]")).to_have_value("#####\n#@$x#\n#####")


def test_a_replay_link_is_a_view_and_play_from_here_keeps_the_old_game_undoable(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    page.goto(live_server.url + "/sokoban/microban/1?moves=dlU")
    expect(page.locator("#replay-position")).to_have_text("0 of 3")  # at its start
    # Each step is a link to its own address: keys wait for the new page's scripts.
    for key, shown in (("End", "3 of 3"), ("ArrowLeft", "2 of 3"), ("Home", "0 of 3")):
        page.keyboard.press(key)  # steps the view; moves nobody
        expect(page.locator("#replay-position")).to_have_text(shown)
        page.wait_for_load_state()
        if shown == "3 of 3":
            expect(page.locator("#count-pushes")).to_have_text("1")
    page.locator("#replay-moves a[data-position='1']").click()
    expect(page.locator("#replay-position")).to_have_text("1 of 3")
    page.wait_for_load_state()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_have_text("2 of 3")
    page.wait_for_load_state()
    page.locator("#play-from-here").click()
    expect(page).to_have_url(live_server.url + "/sokoban/microban/1")
    page.wait_for_load_state()
    expect(page.locator("#count-moves")).to_have_text("2")
    expect(page.locator("#replay-link")).to_have_attribute("href", "/sokoban/microban/1?moves=dl")
    for remaining in ("1", "0", "1"):  # undo the copied moves, then back to the earlier game
        page.keyboard.press("u")
        expect(page.locator("#count-moves")).to_have_text(remaining)
    expect(page.locator(".board .player")).to_have_attribute("data-cell", "3,3")


def test_a_bad_replay_link_gets_a_clear_message(page, live_server):
    response = page.goto(live_server.url + "/sokoban/microban/1?moves=uuuuuuu")
    assert response.status == 400
    expect(page.locator("#play .notice")).to_contain_text("stops working at move 3 of 7 (u)")
    expect(page.locator("#play .board")).to_be_visible()  # the level itself, not a dead end


def test_the_content_security_policy_blocks_injected_inline_script(browser, live_server):
    context = browser.new_context()
    page = context.new_page()
    blocked = []
    page.on("console", lambda message: blocked.append(message.text))
    page.goto(live_server.url + "/sokoban/microban/1")
    page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.injected = true'; document.body.appendChild(s); }""")
    assert page.evaluate("() => window.injected === undefined")
    assert any("Content Security Policy" in text for text in blocked)
    context.close()
