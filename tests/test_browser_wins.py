"""What a win says, in Chromium at desktop size and on a touch phone, for every game: the
result beside the best possible where it is known (a sliding puzzle's optimum, a Klotski
classic's, before anyone else has played it), each count said once, no offer to shorten a win
that cannot be shorter, and no hint under the win. Each test fails without its fix."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.conftest import serving
from tests.test_browser_axe import violations
from webapp.core import catalog
from webapp.games import get
from webapp.games.blocks import parse_move
from webapp.games.solving import solve
from webapp.search import Limits

pytestmark = pytest.mark.browser

ARROWS = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight"}


def press(screen: Page, key: str) -> None:
    """A key at a fast person's pace: faster, a win is kept but not ranked
    (webapp/core/records.py)."""
    screen.keyboard.press(key)
    screen.wait_for_timeout(40)


def touch_or_click(screen: Page, target) -> None:
    if screen.viewport_size["width"] < 500:
        target.tap()
    else:
        target.click()


def said_after_the_win(screen: Page) -> str:
    """The win banner's words, and that nothing under it offers a hint or a shortening."""
    banner = screen.locator("#solved")
    expect(banner).to_be_visible()
    expect(screen.locator("#hint-button")).to_be_hidden()
    return " ".join(banner.inner_text().split())


def test_a_klotski_classic_compares_with_its_optimum_on_a_fresh_site(screen, tmp_path):
    """The same classic compared with its optimum on the phone (after someone had played it)
    but not on the desktop: now it does on a site where nobody has."""
    game = get("blocks")
    number = 5  # 兵临曹营, the shortest classic: 34 path moves
    level = catalog.collection("blocks", "classics").levels[number - 1]
    moves = solve(game, level, "path", limits=Limits(seconds=60)).moves
    assert moves is not None and game.count(level, moves)["path_moves"] == 34
    with serving(tmp_path) as fresh:
        screen.goto(f"{fresh.url}/blocks/classics/{number}")
        expect(screen.locator("#hint-button")).to_be_visible()
        state, selected = game.start(level), None
        for done, token in enumerate(moves, 1):
            row, column, direction = parse_move(token)
            cell = row * level.width + column
            (piece,) = [
                index
                for index, place in enumerate(state.places)
                if cell in level.cells(index, place)
            ]
            if piece != selected:
                touch_or_click(screen, screen.locator(f'#play .piece[data-piece="{piece}"]'))
                selected = piece
            press(screen, ARROWS[direction])
            expect(screen.locator("#count-steps")).to_have_text(str(done))
            state = game.apply(level, state, token)
        said = said_after_the_win(screen)
        assert violations(Axe(), screen) == []
    assert said.startswith("Solved! 34 path moves, the best possible. 49 steps, 40 line moves.")


def test_the_sliding_puzzle_compares_with_its_optimum(screen, live_server):
    game = get("sliding")
    level = catalog.collection("sliding", "warm-up").levels[0]  # optimal: 4
    moves = solve(game, level, "idastar", limits=Limits(seconds=30)).moves
    assert moves is not None and len(moves) == game.known_optimum(level) == 4
    screen.goto(live_server.url + "/sliding/warm-up/1")
    screen.locator("#play .board").focus()
    for move in moves:
        press(screen, ARROWS[move])
    expect(screen.locator("#count-moves")).to_have_text("4")
    expect(screen.locator("#against")).to_have_text("4 moves, the best possible.")
    assert said_after_the_win(screen).startswith("Solved! 4 moves, the best possible.")


def test_vexed_says_each_count_once(screen, live_server):
    screen.goto(live_server.url + "/vexed/childrens-pack/1")
    moves = (("4,1", "ArrowRight"), ("1,4", "ArrowRight"), ("4,4", "ArrowRight"))  # par, 3
    for done, (cell, key) in enumerate(moves, 1):
        block = screen.locator(f'#play [data-cell="{cell}"]')
        touch_or_click(screen, block)
        expect(block).to_have_class(re.compile(r"\bselected\b"))
        press(screen, key)
        expect(screen.locator("#count-moves")).to_have_text(str(done))
    said = said_after_the_win(screen)
    assert said.startswith("Solved! 3 moves, equal to the best known."), said
    assert len(re.findall(r"\bmoves?\b", said)) == 1, said


def test_a_win_that_cannot_be_shorter_is_not_offered_a_shortening(screen, live_server):
    screen.goto(live_server.url + "/sokoban/first-steps/1")  # one push to the right
    screen.locator("#play .board").focus()
    press(screen, "ArrowRight")
    said = said_after_the_win(screen)
    assert "1 push" in said, said
    assert "Shorten" not in said, said
    expect(screen.locator("#solved form.improve")).to_have_count(0)
