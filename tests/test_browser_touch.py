"""On a phone (390×844, touch): every game is played to the end with a thumb alone. Swipes are
synthesised as real touch events through the browser's DevTools protocol, taps with page.tap."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import LEVELS, wait_in_page
from webapp.games import get

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SELECTED = re.compile(r"\bselected\b")
SOKOBAN = get("sokoban")
MICROBAN_1 = SOKOBAN.parse((LEVELS / "sokoban" / "microban.xsb").read_text())[0]
#: A shortest solution of Microban 1 (33 moves, 8 pushes), as the solver finds it.
MICROBAN_1_SOLUTION = "dlUrrrdLullddrUluRuulDrddrruLdlUU"
#: Children's Pack 1 at par, and the Workshop's first layout in unit steps (a shortest way).
VEXED_SOLUTION = ["4,1>", "1,4>", "4,4>"]
BLOCKS_SOLUTION = ["2,0R", "2,1R", "0,0D", "0,2L", "0,1L", "1,2U", "0,2L", "2,2U", "1,2U", "1,0R"]


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def swipe(page, cdp, cell: str, direction: str, length: float = 60) -> None:
    """A finger put down on the cell, drawn `length` px the given way in a few moves, lifted."""
    box = page.locator(f'#play .board [data-cell="{cell}"]').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    dx, dy = {"l": (-1, 0), "r": (1, 0), "u": (0, -1), "d": (0, 1)}[direction]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        point = {"x": x + dx * length * step / 5, "y": y + dy * length * step / 5}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def tap(page, cell: str) -> None:
    page.locator(f'#play .board [data-cell="{cell}"]').tap()


def test_microban_1_is_solved_by_swipes_and_taps_alone(phone, live_server):
    page = phone
    cdp = page.context.new_cdp_session(page)
    page.goto(live_server.url + "/sokoban/microban/1")
    width = MICROBAN_1.width
    state = SOKOBAN.start(MICROBAN_1)
    done = 0
    pushes = 0
    scroll = page.evaluate("window.scrollY")
    walk: list[str] = []
    walked = state  # where the last run of steps began
    moves = list(MICROBAN_1_SOLUTION)

    def played(count: int) -> None:
        expect(page.locator("#count-moves")).to_have_text(str(count))

    for index, move in enumerate(moves):
        after = SOKOBAN.apply(MICROBAN_1, state, move)
        if move.islower():
            walk.append(move)
            if index + 1 < len(moves) and moves[index + 1].islower():
                state = after
                continue
            # A run of steps: a single step is a swipe; a longer run, a tap on the square it
            # ends on (the player walks there by a shortest way, no longer than the run).
            if len(walk) == 1:
                swipe(page, cdp, "{},{}".format(*divmod(state.player, width)), move)
                done += 1
            else:
                destination = divmod(after.player, width)
                tap(page, "{},{}".format(*destination))
                done += len(SOKOBAN.click(MICROBAN_1, walked, *destination))
            walk = []
        else:
            # Pushes, alternately by a tap on the box and by a swipe.
            if pushes % 2 == 0:
                tap(page, "{},{}".format(*divmod(after.player, width)))
            else:
                swipe(page, cdp, "{},{}".format(*divmod(state.player, width)), move.lower())
            pushes += 1
            done += 1
        played(done)
        state = after
        walked = after
    expect(page.locator("#solved")).to_contain_text("8 pushes")
    # No gesture on the board scrolled the page.
    assert page.evaluate("window.scrollY") == scroll


def test_the_arrow_pad_steps_and_pushes(phone, live_server):
    page = phone
    page.goto(live_server.url + "/sokoban/microban/1")
    pad = page.locator("#play .pad")
    expect(pad).to_be_visible()
    pad.locator('[data-direction="d"]').tap()
    expect(page.locator("#count-moves")).to_have_text("1")
    pad.locator('[data-direction="l"]').tap()
    pad.locator('[data-direction="u"]').tap()
    expect(page.locator("#count-pushes")).to_have_text("1")


def test_a_tap_on_a_box_away_from_the_player_does_nothing(phone, live_server):
    page = phone
    page.goto(live_server.url + "/sokoban/microban/1")
    tap(page, "4,3")  # the box at the bottom, not next to the player
    page.wait_for_timeout(300)
    expect(page.locator("#count-moves")).to_have_text("0")


def test_a_swipe_on_the_sliding_puzzle_slides_a_tile(phone, live_server):
    page = phone
    cdp = page.context.new_cdp_session(page)
    page.goto(live_server.url + "/sliding/warm-up/1")
    hole = page.locator("#play .hole").get_attribute("data-cell")
    row, col = map(int, hole.split(","))
    # A tile beside the hole, swiped into it.
    if col > 0:
        source, direction = f"{row},{col - 1}", "r"
    else:
        source, direction = f"{row},{col + 1}", "l"
    tile = page.locator(f'#play [data-cell="{source}"]').get_attribute("data-tile")
    swipe(page, cdp, source, direction)
    expect(page.locator(f'#play [data-cell="{hole}"]')).to_have_attribute("data-tile", tile)
    assert page.evaluate("window.scrollY") == 0


def wait_still(page) -> None:
    wait_in_page(page, "() => !window.PuzzleLab.hold()")


def test_a_vexed_level_is_solved_by_taps_alone(phone, live_server):
    page = phone
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    for done, move in enumerate(VEXED_SOLUTION, 1):
        row, column = map(int, move[:-1].split(","))
        wait_still(page)
        tap(page, f"{row},{column}")
        expect(page.locator(f'#play [data-cell="{row},{column}"]')).to_have_class(SELECTED)
        tap(page, f"{row},{column + (1 if move.endswith('>') else -1)}")
        expect(page.locator("#count-moves")).to_have_text(str(done))
    expect(page.locator("#solved")).to_contain_text("3 moves")


def test_a_sliding_blocks_level_is_solved_by_taps_alone(phone, live_server):
    page = phone
    page.goto(live_server.url + "/blocks/workshop/1")
    for done, move in enumerate(BLOCKS_SOLUTION, 1):
        row, column = map(int, move[:-1].split(","))
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[move[-1]]
        piece = page.locator(f'#play .piece[data-cell="{row},{column}"]')
        piece.tap()
        expect(piece).to_have_class(SELECTED)
        # The square beside the piece the way it goes (past its far edge for a long piece).
        box = piece.bounding_box()
        cell = page.locator("#play .blocks .cell").first.bounding_box()["width"]
        height, width = round(box["height"] / cell), round(box["width"] / cell)
        target_row = row + dr * (height if dr > 0 else 1)
        target_col = column + dc * (width if dc > 0 else 1)
        page.locator(f'#play .blocks .cell[data-cell="{target_row},{target_col}"]').tap(force=True)
        expect(page.locator("#count-steps")).to_have_text(str(done))
    expect(page.locator("#solved")).to_be_visible()


def test_a_swipe_on_a_vexed_block_slides_it(phone, live_server):
    page = phone
    cdp = page.context.new_cdp_session(page)
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    swipe(page, cdp, "4,1", "r")
    expect(page.locator("#count-moves")).to_have_text("1")
    wait_still(page)
    expect(page.locator("#announcer")).to_contain_text("Star block moved right")
    swipe(page, cdp, "1,4", "u")  # up or down slides nothing
    page.wait_for_timeout(300)
    expect(page.locator("#count-moves")).to_have_text("1")


XSOKOBAN_50 = SOKOBAN.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())[49]


def _step(level, state) -> tuple[str, str]:
    """A square beside the player it can step onto (no push), and the square it stands on."""
    for move in "lurd":
        try:
            after = SOKOBAN.apply(level, state, move)
        except ValueError:
            continue
        if after.boxes == state.boxes:
            return "{},{}".format(*divmod(after.player, level.width)), "{},{}".format(
                *divmod(state.player, level.width)
            )
    raise AssertionError("the player cannot step anywhere")


def test_a_big_board_opens_whole_then_zooms_to_squares_a_finger_can_hit(phone, live_server):
    page = phone
    page.goto(live_server.url + "/sokoban/xsokoban/50")
    square = lambda: page.locator("#play .board .cell").first.bounding_box()["width"]  # noqa: E731
    whole = square()
    assert whole < 24  # 19 px squares: too small for a finger
    expect(page.locator("#play .board-frame.zoomed")).to_have_count(0)
    beside, start = _step(XSOKOBAN_50, SOKOBAN.start(XSOKOBAN_50))
    tap(page, beside)
    expect(page.locator("#count-moves")).to_have_text("1")
    # Played with a finger: squares a finger can read and hit, the player in view.
    expect(page.locator("#play .board-frame.zoomed")).to_have_count(1)
    assert square() >= 26
    frame = page.locator("#play .board-frame").bounding_box()
    player = page.locator("#play .board .player").bounding_box()
    assert (
        frame["x"] <= player["x"] and player["x"] + player["width"] <= frame["x"] + frame["width"]
    )
    assert (
        frame["y"] <= player["y"] and player["y"] + player["height"] <= frame["y"] + frame["height"]
    )
    # "Fit" shows it whole, and it stays whole as the game goes on.
    page.locator("#play .zoom-reset").tap()
    expect(page.locator("#play .board-frame.zoomed")).to_have_count(0)
    tap(page, start)
    expect(page.locator("#count-moves")).to_have_text("2")
    expect(page.locator("#play .board-frame.zoomed")).to_have_count(0)
    assert square() == whole


def test_a_board_with_squares_big_enough_is_never_zoomed_by_itself(phone, live_server):
    page = phone
    page.goto(live_server.url + "/sokoban/microban/1")
    beside, _ = _step(MICROBAN_1, SOKOBAN.start(MICROBAN_1))
    tap(page, beside)
    expect(page.locator("#count-moves")).to_have_text("1")
    expect(page.locator("#play .board-frame.zoomed")).to_have_count(0)
