"""Step through a search and race solvers in Chromium, at 1280×900 and on a 390×844 touch
screen: the step view shows the positions ``python -m webapp trace`` prints, in its order;
pdb and A* race to 50 moves on Fifteen 10; a win races the solver move by move."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import ROOT, SCREENS, Server, serving

pytestmark = pytest.mark.browser

#: Microban 1, solved in 33 moves and 8 pushes.
MICROBAN_1 = "dlUrrrdLullddrUluRuulDrddrruLdlUU"
KEYS = {"l": "ArrowLeft", "u": "ArrowUp", "r": "ArrowRight", "d": "ArrowDown"}
#: Positions compared between the step view and the command line's trace, at most.
COMPARED = 40


@pytest.fixture(scope="module")
def learning_server(tmp_path_factory) -> Iterator[Server]:
    """The app with the 15-puzzle's pattern databases built beforehand in its instance
    folder (as `make run`'s builder leaves them), so the pdb racer searches, not builds."""
    folder = tmp_path_factory.mktemp("learning")
    subprocess.run(
        [sys.executable, "-m", "webapp", "tables", "sliding", str(folder / "instance")],
        cwd=ROOT,
        check=True,
        timeout=600,
    )
    # Every test here is one client starting several searches a minute (a race is one a
    # racer): more than the public budget of solves, which tests/test_budgets.py covers.
    with serving(folder, BUDGET_SOLVES="1000 per minute") as running:
        yield running


def press(page: Page, selector: str) -> None:
    """A tap on the phone's touch screen, a click on the desktop."""
    target = page.locator(selector)
    if page.viewport_size["width"] == SCREENS["phone"]["viewport"]["width"]:
        target.tap()
    else:
        target.click()


def fits(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"


def trace_positions(level: int, steps: int) -> tuple[list[dict], dict]:
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "webapp",
            "trace",
            "sokoban",
            "levels/sokoban/microban.xsb",
            "--level",
            str(level),
            "--algorithm",
            "bfs",
            "--steps",
            str(steps),
            "--time-limit",
            "60",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return [json.loads(line) for line in printed.stdout.splitlines()], json.loads(printed.stderr)


#: Microban 1's whole breadth-first search (17 positions), and Microban 3's first 40 of 74.
@pytest.mark.parametrize(("level", "length"), [(1, 17), (3, COMPARED)])
def test_the_step_view_shows_what_trace_prints_in_its_order(screen, learning_server, level, length):
    page = screen
    expected, ended = trace_positions(level, COMPARED)
    assert len(expected) == length
    assert ended["status"] == ("solved" if length < COMPARED else "node-limit")
    page.goto(f"{learning_server.url}/sokoban/microban/{level}")
    press(page, "#step-link")
    page.locator("#step-algorithm").select_option("bfs")
    press(page, "#step-start")
    expect(page.locator("#step-controls")).to_be_visible(timeout=60_000)
    stepper = page.locator("#stepper")
    for number, step in enumerate(expected):
        expect(stepper).to_have_attribute("data-at", str(number))
        assert page.locator("#step-position").text_content() == step["position"]
        assert page.locator("#step-g").text_content() == str(step["g"])
        verdicts = page.locator("#step-children li").evaluate_all(
            "items => items.map(item => item.dataset.verdict)"
        )
        assert verdicts == [child["verdict"] for child in step["children"]]
        if number == 0:
            # The position taken lights the pseudo-code's "take" line; each child then its
            # verdict's line, one press at a time.
            lit = page.locator(".pseudocode li.lit")
            expect(lit).to_have_attribute("data-line", "take")
            press(page, "#step-next")
            expect(stepper).to_have_attribute("data-line", "1")
            expect(lit).to_have_attribute("data-line", step["children"][0]["verdict"])
            # The child the line is at is drawn beside the list, and only that one.
            expect(page.locator(".child-board:visible")).to_have_attribute("data-index", "1")
            press(page, "#step-back")
            expect(stepper).to_have_attribute("data-line", "0")
            fits(page)
        if number + 1 < len(expected):
            press(page, "#step-next-position")
    # The textbook words are defined where they appear.
    shown = page.locator(".pseudocode .code:visible")
    expect(shown).to_have_attribute("data-kind", "breadth-first")
    assert "frontier" in shown.locator(".define").text_content()
    expect(page.locator("#go-on-button")).to_be_visible()


def test_pdb_and_astar_race_to_fifty_moves_on_fifteen_10(screen, learning_server):
    page = screen
    page.goto(learning_server.url + "/sliding/fifteen/10")
    press(page, "#race-link")
    for name in ("astar", "idastar", "pdb", "fast"):
        box = page.locator(f'input[name="algorithm"][value="{name}"]')
        box.set_checked(name in ("pdb", "astar"))
    press(page, "#race-start")
    lanes = page.locator(".lane[data-url]")
    expect(lanes).to_have_count(2)
    # Live: each lane shows its board and figures while its solve runs.
    expect(page.locator(".lane .lane-board .board").first).to_be_visible()
    for index in range(2):
        expect(lanes.nth(index)).to_have_attribute("data-state", "done", timeout=120_000)
    bodies = page.locator(".lane-body")
    algorithms = {bodies.nth(i).get_attribute("data-algorithm") for i in range(2)}
    assert algorithms == {"pdb", "astar"}
    for index in range(2):
        expect(bodies.nth(index)).to_have_attribute("data-status", "solved")
        expect(bodies.nth(index)).to_have_attribute("data-length", "50")
        expect(bodies.nth(index).locator(".lane-status")).to_contain_text("50 moves")
    expect(page.locator("#race-stop")).to_be_hidden()  # nothing left to stop


def test_race_the_solver_after_a_win(screen, learning_server):
    page = screen
    page.goto(learning_server.url + "/sokoban/microban/1")
    detour = "rl" + MICROBAN_1  # two moves more than the solver needs
    page.locator(".board").first.focus()
    for move in detour:
        page.keyboard.press(KEYS[move.lower()])
        page.wait_for_timeout(40)
    expect(page.locator("#solved")).to_contain_text("Solved!")
    press(page, "#race-the-solver")
    press(page, "#race-solver")
    expect(page.locator("#versus-controls")).to_be_visible(timeout=60_000)
    you, solver = page.locator("#versus-you"), page.locator("#versus-solver")
    expect(you).to_have_attribute("data-played", "0")
    press(page, "#versus-next")
    expect(you).to_have_attribute("data-played", "1")
    expect(solver).to_have_attribute("data-played", "1")
    press(page, "#versus-last")
    expect(you).to_have_attribute("data-played", "35")
    expect(solver).to_have_attribute("data-played", "33")
    expect(you.locator(".versus-count")).to_contain_text("35 of 35 moves: solved")
    expect(solver.locator(".versus-count")).to_contain_text("33 of 33 moves: solved")
    fits(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("screen_name", list(SCREENS))
def test_the_step_and_race_pages_pass_axe(browser, learning_server, scheme, screen_name):
    from axe_playwright_python.sync_playwright import Axe

    from tests.test_browser_axe import violations

    context = browser.new_context(**SCREENS[screen_name], color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        page.goto(learning_server.url + "/sokoban/microban/3/step")
        page.locator("#step-start").click()
        expect(page.locator("#step-controls")).to_be_visible(timeout=60_000)
        page.locator("#step-next-position").click()
        page.locator("#step-next").click()
        expect(page.locator("#stepper")).to_have_attribute("data-line", "1")
        page.locator(".step-text summary").click()
        assert violations(Axe(), page) == []
        page.goto(learning_server.url + "/sokoban/microban/3/race")
        page.locator("#race-start").click()
        lanes = page.locator(".lane[data-url]")
        for index in range(lanes.count()):
            expect(lanes.nth(index)).to_have_attribute("data-state", "done", timeout=60_000)
        assert violations(Axe(), page) == []
    finally:
        context.close()


def test_ida_star_on_the_sliding_puzzle_prunes_by_its_bound_and_plays_at_a_speed(
    browser, learning_server
):
    """The depth-first search's pseudo-code, a pruned child's line lit with the rule that
    pruned it, and Play stepping on by itself until paused."""
    context = browser.new_context(**SCREENS["desktop"])
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        page.goto(learning_server.url + "/sliding/warm-up/8/step")
        page.locator("#step-algorithm").select_option("idastar")
        page.locator("#step-start").click()
        expect(page.locator("#step-controls")).to_be_visible(timeout=60_000)
        expect(page.locator(".pseudocode .code:visible")).to_have_attribute(
            "data-kind", "depth-first"
        )
        stepper = page.locator("#stepper")
        # The first position with a child pruned by the bound, and that child's line.
        for number in range(50):
            expect(stepper).to_have_attribute("data-at", str(number))
            rules = page.locator(
                '#step-children li[data-verdict="pruned"] .rule'
            ).all_text_contents()
            if any("above the bound" in rule for rule in rules):
                break
            page.locator("#step-next-position").click()
        else:
            pytest.fail("no child pruned by the bound in the first 50 positions")
        children = page.locator("#step-children li")
        verdicts = children.evaluate_all("items => items.map(item => item.dataset.verdict)")
        for _ in range(verdicts.index("pruned") + 1):
            page.locator("#step-next").click()
        expect(page.locator(".pseudocode li.lit")).to_have_attribute("data-line", "pruned")
        expect(page.locator('#step-children li[aria-current="step"] .rule')).to_contain_text(
            "above the bound"
        )
        at = int(stepper.get_attribute("data-at"))
        page.locator("#step-speed").select_option("16")
        page.locator("#step-play").click()
        expect(stepper).not_to_have_attribute("data-at", str(at))
        page.locator("#step-play").click()
        expect(page.locator("#step-play")).to_have_attribute("aria-pressed", "false")
    finally:
        context.close()
