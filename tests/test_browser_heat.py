"""The heat map on the live board, in Chromium at 1280×900 and on a 390×844 touch phone, for
every game: switched on, its squares' counts add up to the pieces counted over the positions
looked at (the boxes, the hole, the blocks of each), square by square what ``trace`` prints
of the same search where the algorithm steps; it stays after the search ends and over the
playback's boards, and is drawn over the squares it counts."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.conftest import LEVELS, Server, serving
from tests.test_browser_axe import violations
from tests.test_heat import pieces_in
from webapp import games
from webapp.ops.cli import main

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

#: (level page, its file and number, algorithm, whether ``trace`` can recount it): each
#: game's default solver, and a textbook one recounted square by square.
CASES = [
    ("/sokoban/microban/1", "sokoban/microban.xsb", 1, "fast", False),
    ("/sokoban/microban/2", "sokoban/microban.xsb", 2, "bfs", True),
    ("/sliding/warm-up/8", "sliding/warm-up.txt", 8, "pdb", False),
    ("/vexed/tutorial/1", "vexed/00_tutorial.txt", 1, "fast", False),
    ("/vexed/tutorial/1", "vexed/00_tutorial.txt", 1, "bfs", True),
    ("/blocks/workshop/2", "blocks/workshop.txt", 2, "path", True),
]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory) -> Iterator[Server]:
    """The module's server: its fourteen solves from one address in a minute are more than a
    player's budget allows."""
    with serving(tmp_path_factory.mktemp("heat"), BUDGET_SOLVES="100 per minute") as running:
        yield running


SQUARES = """() => [...document.querySelectorAll('#solve-board .heat-square')]
  .map((square) => [square.dataset.cell, Number(square.dataset.count)])"""

#: Whether each square lies over the board's cell it counts (the same box on the screen).
OVER_CELLS = """() => [...document.querySelectorAll('#solve-board .heat-square')]
  .every((square) => {
  const cell = document.querySelector(
    '#solve-board .cell[data-cell="' + square.dataset.cell + '"]');
  const a = square.getBoundingClientRect(), b = cell.getBoundingClientRect();
  return Math.abs(a.left - b.left) < 1 && Math.abs(a.top - b.top) < 1
    && Math.abs(a.width - b.width) < 1 && Math.abs(a.height - b.height) < 1;
})"""


def drawn(page) -> Counter[tuple[int, int]]:
    squares: Counter[tuple[int, int]] = Counter()
    for cell, count in page.evaluate(SQUARES):
        row, column = (int(n) for n in cell.split(","))
        squares[row, column] = count
    return squares


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize(("path", "file", "number", "algorithm", "traced"), CASES)
def test_the_heat_map_adds_up_to_the_pieces_of_the_positions_looked_at(
    browser, live_server, capsys, path, file, number, algorithm, traced, phone
):
    name = path.split("/")[1]
    game = games.get(name)
    level = game.parse((LEVELS / file).read_text(encoding="utf-8"))[number - 1]
    start = Counter(pieces_in(name, game.render_text(level, game.start(level))))
    # The phone in the dark colour scheme: axe checks the map in both.
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP,
        has_touch=phone,
        is_mobile=phone,
        color_scheme="dark" if phone else "light",
    )
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    try:
        page.goto(live_server.url + path)
        page.select_option("select[name=algorithm]", algorithm)
        page.locator("#solve-button").click()
        expect(page.locator("#solve-status")).to_have_attribute(
            "data-status", "solved", timeout=60_000
        )
        toggle = page.locator("#heat-toggle")
        expect(toggle).not_to_be_checked()
        assert page.locator("#solve-board .heat-square").count() == 0
        if phone:
            toggle.tap()
        else:
            toggle.click()
        expect(page.locator("#solve-board .heat-square").first).to_be_visible()
        holder = page.locator("#solve-heat")
        positions = int(holder.get_attribute("data-positions") or 0)
        squares = drawn(page)
        # Every square that held a piece in some position looked at is drawn, with its count.
        assert sum(squares.values()) == int(holder.get_attribute("data-pieces") or -1)
        looked = page.locator("#stat-expanded").inner_text()
        assert int(looked.replace(",", "")) == positions > 0
        if traced:
            status = main(
                ["trace", name, str(LEVELS / file), "--level", str(number)]
                + ["--algorithm", algorithm, "--steps", "100000"]
            )
            assert status == 0
            steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            recount: Counter[tuple[int, int]] = Counter()
            for step in steps:
                recount.update(pieces_in(name, step["position"]))
            assert len(steps) == positions
            assert squares == recount
        elif name == "vexed":  # blocks vanish: at least two a position, at most the start's
            assert 2 * positions <= sum(squares.values()) <= positions * sum(start.values())
        else:  # boxes, the hole and sliding blocks stay: as many every position
            assert sum(squares.values()) == positions * sum(start.values())
        assert page.evaluate(OVER_CELLS)
        assert violations(Axe(), page) == []
        expect(page.locator("#heat-note")).to_contain_text(f"{positions:,} positions looked at")
        # The hottest square in words, too (the page never tells by colour alone).
        (row, column), hottest = squares.most_common(1)[0]
        if list(squares.values()).count(hottest) == 1:
            expect(page.locator("#heat-note")).to_contain_text(
                f"Most often: row {row + 1}, column {column + 1}, "
                f"in {round(100 * hottest / positions)}%"
            )
        # It stays over the playback's boards, and after a reload (the switch is kept).
        page.locator("[data-command=end]").click()
        expect(page.locator("#playback-pos")).not_to_contain_text("move 0 of")
        assert drawn(page) == squares
        page.reload()
        expect(page.locator("#heat-toggle")).to_be_checked()
        expect(page.locator("#solve-board .heat-square").first).to_be_visible()
        assert drawn(page) == squares
        # Switched off, it is gone.
        page.locator("#heat-toggle").click()
        assert page.locator("#solve-board .heat-square").count() == 0
        assert problems == []
    finally:
        context.close()


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_heat_map_grows_with_the_progress_while_the_search_runs(browser, live_server, phone):
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, has_touch=phone, is_mobile=phone
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + "/sokoban/xsokoban/29")
        toggle = page.locator("#heat-toggle")
        page.locator("#solve-button").click()
        expect(page.locator("#solve-status")).to_have_attribute("data-state", "running")
        if phone:
            page.locator("#heat-toggle").tap()
        else:
            toggle.click()
        holder = page.locator("#solve-heat")
        expect(holder).to_have_attribute("data-positions", re.compile(r"^[1-9]"), timeout=20_000)
        first = int(holder.get_attribute("data-positions") or 0)
        expect(page.locator("#solve-board .heat-square").first).to_be_visible()
        page.wait_for_function(
            "(first) => Number(document.getElementById('solve-heat').dataset.positions) > first",
            arg=first,
            timeout=20_000,
        )
        # Still searching: the map came with the progress, not with the end.
        expect(page.locator("#solve-status")).to_have_attribute("data-state", "running")
        # Each reading adds up: every position looked at so far, each with all its boxes.
        game = games.get("sokoban")
        level = game.parse((LEVELS / "sokoban/xsokoban.xsb").read_text(encoding="utf-8"))[28]
        reading = page.evaluate(
            "() => [Number(document.getElementById('solve-heat').dataset.positions),"
            " [...document.querySelectorAll('#solve-board .heat-square')]"
            ".map((square) => Number(square.dataset.count))]"
        )  # in one go: a message may come between two readings
        positions, counts = reading
        assert positions > 0 and sum(counts) == positions * len(game.start(level).boxes)
        page.locator("#solve-status .cancel").click()
        expect(page.locator("#solve-status")).to_have_attribute("data-status", "cancelled")
    finally:
        context.close()
