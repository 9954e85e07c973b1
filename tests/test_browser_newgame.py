"""A fifth game needs no edit outside its own package: Hop, which exists only under
tests/tinygame (its rules, templates and browser files), is registered by a setting and
played in a real browser to a win, with undo, a replay link and a solve."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import Server, csrf_of, serving

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hop_server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("hop"), GAME_PACKAGES="tests.tinygame") as running:
        yield running


def paste_level(page, server: Server, text: str) -> str:
    page.goto(server.url + "/hop/")
    page.locator("textarea[name=text]").fill(text)
    page.get_by_role("button", name="Play it").click()
    expect(page.locator("h1")).to_have_text("Trial")
    page.wait_for_load_state()  # the scripts that take keys have run
    return page.url


def expect_hopper_on(page, cell: int, board: str = "#play") -> None:
    """Waits for the board to show the hopper on `cell`: a board being swapped in is never
    read half old, half new."""
    expect(page.locator(f"{board} .board .cell.hopper")).to_have_attribute("data-cell", f"0,{cell}")


def test_the_extra_game_is_listed_with_its_own_files(page, hop_server):
    page.goto(hop_server.url + "/")
    expect(page.get_by_role("link", name="Hop").first).to_be_visible()
    address = paste_level(page, hop_server, "Trial|@...G")
    html = page.content()
    assert "/games/hop/game.js" in html and "/games/hop/game.css" in html
    assert address.startswith(hop_server.url + "/hop/custom/")


def test_play_to_a_win_with_undo_and_a_replay_link(page, hop_server):
    address = paste_level(page, hop_server, "Trial|@...G")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("2")
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("1")
    expect_hopper_on(page, 1)
    expect(page.locator("#replay-link")).to_have_attribute("href", re.compile(r"\?moves=r$"))
    replay = page.locator("#replay-link").get_attribute("href")
    page.locator("#play .board .cell").nth(4).click()  # hop to the flag
    expect(page.locator("#solved")).to_be_visible()
    expect(page.locator("#count-moves")).to_have_text("4")
    # Another player opens the replay link: a view of the position after one hop.
    other = page.context.browser.new_context().new_page()
    other.goto(hop_server.url + replay)  # at its start, then one step on
    expect(other.locator("#replay-position")).to_have_text("0 of 1")
    other.locator('#replay [data-step="forward"]').click()
    expect(other.locator("#count-moves")).to_have_text("1")
    assert other.url == address + "?moves=r&at=1"
    expect_hopper_on(other, 1, "#replay")
    other.context.close()


def test_the_solver_solves_it_and_plays_the_solution_back(page, hop_server):
    paste_level(page, hop_server, "Trial|G.@..")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=20_000)
    expect(page.locator("#playback-pos")).to_have_text("move 0 of 2")
    page.locator("#playback button[title='Step forward']").click()
    expect(page.locator("#playback-pos")).to_have_text("move 1 of 2")
    expect(page.locator("#solve-board .hopper")).to_have_attribute("data-cell", "0,1")


def test_a_broken_level_is_refused_with_line_and_column(page, hop_server):
    page.goto(hop_server.url + "/hop/")
    page.locator("textarea[name=text]").fill("Trial|@.x.G")
    page.get_by_role("button", name="Play it").click()
    expect(page.locator("#paste-error")).to_contain_text("line 1, column 3")
    assert csrf_of(page.content())
