"""One gesture, one undo, and the positions between the moves of one answer (issue #33):
a tap that walks shows each step of the walk (none under reduced motion, and a key ends it),
and one undo takes it back whole, as it does a piece dragged along a path; level titles
numbered as the pages number them."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.conftest import recorder, wait_in_page

pytestmark = pytest.mark.browser

#: Records each square the Sokoban player is drawn on, in order, whenever it changes: on every
#: change of the page and on every frame.
RECORD_PLAYER = recorder("""
    window.seen = [];
    const note = () => {
        const player = document.querySelector('#play .board .player');
        const at = player ? player.dataset.cell : '';
        if (window.seen[window.seen.length - 1] !== at) window.seen.push(at);
    };
""")

#: Microban 1: the player at 3,2; a tap on 4,4 walks right, right, down.
WALK = ["3,2", "3,3", "3,4", "4,4"]


def walk(page, url: str) -> list[str]:
    page.goto(url + "/sokoban/microban/1")
    page.evaluate(RECORD_PLAYER)
    page.locator('#play [data-cell="4,4"]').click()
    expect(page.locator("#count-moves")).to_have_text("3")
    wait_in_page(page, "() => !window.PuzzleLab.hold()")
    return page.evaluate("window.seen")


def test_a_walk_shows_every_step_and_one_undo_takes_it_back(page, live_server):
    assert walk(page, live_server.url) == WALK
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#count-moves")).to_have_text("4")
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("3")
    page.keyboard.press("u")  # the whole walk at once
    expect(page.locator("#count-moves")).to_have_text("0")
    expect(page.locator('#play [data-cell="3,2"]')).to_have_class("cell floor player")
    page.keyboard.press("U")
    expect(page.locator("#count-moves")).to_have_text("3")


def test_no_steps_in_between_under_reduced_motion(page, live_server):
    page.emulate_media(reduced_motion="reduce")
    assert walk(page, live_server.url) == [WALK[0], WALK[-1]]


def test_a_key_during_the_walk_ends_it_at_once(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    page.evaluate("window.PuzzleSettings.stepMs = () => 100000")  # only a key can end a step
    page.evaluate(RECORD_PLAYER)
    page.locator('#play [data-cell="4,4"]').click()
    expect(page.locator("#count-moves")).to_have_text("3")
    assert page.evaluate("window.PuzzleLab.hold()")
    assert page.evaluate("window.seen") == WALK[:2]  # the first step, held for 100 s
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("0")
    assert not page.evaluate("window.PuzzleLab.hold()")
    # The walk jumps to its end, then the undo is shown.
    assert page.evaluate("window.seen") == [WALK[0], WALK[1], WALK[-1], WALK[0]]


def test_a_piece_dragged_along_a_path_is_one_undo(page, live_server):
    page.goto(live_server.url + "/blocks/workshop/1")
    pieces = page.locator("#play .piece[data-targets]")
    expect(pieces.first).to_be_attached(timeout=30_000)  # the distance tables are ready
    # A piece with a square two or more steps away, and where that square is on the screen.
    found = page.evaluate("""() => {
        for (const piece of document.querySelectorAll('#play .piece[data-targets]')) {
            const targets = JSON.parse(piece.dataset.targets);
            for (const [key, steps] of Object.entries(targets)) {
                if (steps.split(' ').length < 2) continue;
                const [r, c] = key.split(',').map(Number);
                const [pr, pc] = piece.dataset.cell.split(',').map(Number);
                return {piece: piece.dataset.piece, dr: r - pr, dc: c - pc, steps: steps};
            }
        }
        return null;
    }""")
    assert found, "no piece can go two steps"
    piece = page.locator(f'#play .piece[data-piece="{found["piece"]}"]')
    box = piece.bounding_box()
    cell = page.locator("#play .blocks .cell").first.bounding_box()["width"]
    x, y = box["x"] + min(box["width"], cell) / 2, box["y"] + min(box["height"], cell) / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for fraction in (0.25, 0.5, 0.75, 1.0):
        page.mouse.move(x + found["dc"] * cell * fraction, y + found["dr"] * cell * fraction)
    page.mouse.up()
    steps = len(found["steps"].split(" "))
    expect(page.locator("#count-steps")).to_have_text(str(steps))
    wait_in_page(page, "() => !window.PuzzleLab.hold()")
    page.locator("h1").click()
    page.keyboard.press("u")
    expect(page.locator("#count-steps")).to_have_text("0")
    places = page.evaluate(
        "() => [...document.querySelectorAll('#play .piece')].map((p) => p.dataset.cell)"
    )
    page.goto(live_server.url + "/blocks/workshop/1")
    assert json.dumps(places) == json.dumps(
        page.evaluate(
            "() => [...document.querySelectorAll('#play .piece')].map((p) => p.dataset.cell)"
        )
    )


def test_boxoban_levels_are_titled_by_the_number_the_pages_give_them(page, live_server):
    page.goto(live_server.url + "/sokoban/boxoban-hard/1")
    expect(page.locator("h1")).to_contain_text("Boxoban hard 1")
    assert "Boxoban hard 0" not in page.title() and "Boxoban hard 1" in page.title()
    page.goto(live_server.url + "/sokoban/boxoban-hard/")
    expect(page.locator(".levels li a").first).to_have_attribute("title", "Boxoban hard 1")
    expect(page.locator(".levels li a").last).to_have_attribute("title", "Boxoban hard 300")
