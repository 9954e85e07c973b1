"""Sliding blocks in a real browser: drag pieces to solved, watch the optimum fall, keys."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT
from webapp.games import get
from webapp.games.blocks import moves_left
from webapp.games.solving import solve

pytestmark = pytest.mark.browser

GAME = get("blocks")
CORNER = GAME.parse((ROOT / "levels" / "blocks" / "workshop.txt").read_text())[0]


def path_moves(level, tokens):
    """The solution as drags: (piece, from place, to place) per path move."""
    drags = []
    state = GAME.start(level)
    for token in tokens:
        after = GAME.apply(level, state, token)
        pairs = zip(state.places, after.places, strict=True)
        (piece,) = [i for i, (a, b) in enumerate(pairs) if a != b]
        if drags and drags[-1][0] == piece:
            drags[-1] = (piece, drags[-1][1], after.places[piece])
        else:
            drags.append((piece, state.places[piece], after.places[piece]))
        state = after
    return drags


def drag(page, piece: int, source: int, target: int, width: int) -> None:
    element = page.locator(f'#play .piece[data-piece="{piece}"]')
    box = element.bounding_box()
    board = page.locator("#play .board").bounding_box()
    cell = board["width"] / width
    (r0, c0), (r1, c1) = divmod(source, width), divmod(target, width)
    x, y = box["x"] + cell / 2, box["y"] + cell / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (c1 - c0) * cell, y + (r1 - r0) * cell, steps=8)
    page.mouse.up()


def test_solve_a_small_layout_by_dragging_and_see_the_optimum_fall(page, live_server):
    result = solve(GAME, CORNER, "path")
    drags = path_moves(CORNER, result.moves)
    assert len(drags) == result.cost == 6
    page.goto(live_server.url + "/blocks/workshop/1")
    expect(page.locator("#left-path_moves")).to_have_text("6", timeout=15_000)
    for done, (piece, source, target) in enumerate(drags, 1):
        drag(page, piece, source, target, CORNER.width)
        expect(page.locator("#count-path_moves")).to_have_text(str(done))
        if done < len(drags):
            expect(page.locator("#left-path_moves")).to_have_text(str(6 - done))
    expect(page.locator("#solved")).to_contain_text("6 path moves")


def test_select_a_piece_and_move_it_with_the_keys(page, live_server):
    page.goto(live_server.url + "/blocks/classics/1")
    expect(page.locator("#left-steps")).to_have_text("116", timeout=15_000)
    page.locator('#play .piece[data-cell="3,1"]').click()  # G, above an empty cell
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-steps")).to_have_text("1")
    expect(page.locator('#play .piece[data-piece="6"]')).to_have_attribute("data-cell", "4,1")
    expect(page.locator('#play .piece[data-piece="6"]')).to_have_class("piece shape-1x1 selected")
    page.keyboard.press("ArrowRight")  # still selected after the swap
    expect(page.locator("#count-steps")).to_have_text("2")
    expect(page.locator("#count-path_moves")).to_have_text("1")
    expect(page.locator("#count-line_moves")).to_have_text("2")
    classic = GAME.parse((ROOT / "levels" / "blocks" / "classics.txt").read_text())[0]
    here = GAME.replay(classic, ["3,1D", "4,1R"])
    expect(page.locator("#left-steps")).to_have_text(str(moves_left(classic, here, "steps")))
    page.keyboard.press("u")
    page.keyboard.press("u")
    expect(page.locator("#count-steps")).to_have_text("0")


def test_watch_the_solver_and_play_back(page, live_server):
    page.goto(live_server.url + "/blocks/workshop/1")
    page.select_option("select[name=algorithm]", "steps")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=20_000)
    expect(page.locator("#solve-status")).to_contain_text("optimal in steps")
    expect(page.locator("#playback-pos")).to_have_text("move 0 of 10")
    page.locator("#playback button[title='To the end']").click()
    expect(page.locator("#playback-pos")).to_have_text("move 10 of 10")
    page.locator("#use-solution").click()
    expect(page.locator("#solved")).to_be_visible()


def test_the_hint_is_the_next_optimal_move(page, live_server):
    page.goto(live_server.url + "/blocks/workshop/1")
    expect(page.locator("#left-path_moves")).to_have_text("6", timeout=15_000)
    page.locator("#hint-button").click()
    expect(page.locator("#hint")).to_contain_text("Next move: move piece")
    token = page.locator("#hint").inner_text().split("(")[1].rstrip(")")
    level = CORNER
    state = GAME.apply(level, GAME.start(level), token)
    assert moves_left(level, state, "path_moves") <= 6  # never a move away from the goal
    from webapp.games.blocks import hint

    assert token == hint(level, GAME.start(level), "path_moves")[0]
