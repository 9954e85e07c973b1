"""Vexed in a real browser: select and slide, watch the falls, par and golf, the solver."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_play_a_childrens_pack_level_to_solved_at_par(page, live_server):
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    expect(page.locator("#par-value")).to_have_text("3")
    # Select a block and press a key.
    page.locator('#play [data-cell="4,1"]').click()
    expect(page.locator('#play [data-cell="4,1"]')).to_have_class("cell block c-e selected")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    # Select a block and click the empty square beside it: it slides, falls and vanishes.
    page.locator('#play [data-cell="1,4"]').click()
    page.locator('#play [data-cell="1,5"]').click()
    expect(page.locator("#count-moves")).to_have_text("2")
    expect(page.locator('#play [data-cell="1,4"]')).to_have_class("cell empty")
    page.locator('#play [data-cell="4,4"]').click()
    page.keyboard.press("d")
    expect(page.locator("#solved")).to_contain_text("3 moves")
    expect(page.locator("#golf")).to_have_text("par")
    expect(page.locator("#play .vexed .block")).to_have_count(0)
    page.goto(live_server.url + "/vexed/childrens-pack/")
    expect(page.locator("#progress")).to_contain_text("1 of 60 solved")
    expect(page.locator("#pack-golf")).to_have_text("par")
    expect(page.locator(".levels li.solved .golf")).to_have_text("at par")


def test_the_falls_are_shown_one_by_one(page, live_server):
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    page.locator('#play [data-cell="1,4"]').click()
    boards = []
    page.expose_function("seen", lambda n: boards.append(n))
    page.evaluate("""() => new MutationObserver(() => {
        window.seen(document.querySelectorAll('#play .vexed .block').length);
    }).observe(document.getElementById('play').parentElement, {childList: true, subtree: true})""")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    page.wait_for_timeout(1500)
    # The slide, the fall, then the vanishing pair: the block count drops only at the end.
    assert boards[-1] == 6 and 8 in boards, boards


def test_watch_the_solver_and_play_back_to_a_clear_board(page, live_server):
    page.goto(live_server.url + "/vexed/childrens-pack/2")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=20_000)
    expect(page.locator("#solve-status")).to_contain_text("optimal in moves")
    page.locator("#playback button[title='To the end']").click()
    expect(page.locator("#solve-board .block")).to_have_count(0)
    page.locator("#use-solution").click()
    expect(page.locator("#solved")).to_be_visible()
