"""The editor's verdict (webapp/checking.py) and ``python -m webapp check``: solvable only
with a solution that replays, unsolvable only with a proof, unknown otherwise; invalid text
named by line and column."""

from __future__ import annotations

import json
import re

import jinja2
import pytest

from tests.conftest import LEVELS, ROOT
from tests.optima import proved_optimum
from tests.tinygame import GAME as HOP
from webapp import games
from webapp.checking import Status, Verdict, check
from webapp.games.solving import check_solution
from webapp.games.vexed.level import Level as VexedLevel
from webapp.games.vexed.rules import Board
from webapp.ops import cli

SOKOBAN = games.get("sokoban")
VEXED = games.get("vexed")
MICROBAN = SOKOBAN.parse((LEVELS / "sokoban" / "microban.xsb").read_text())
BOARDS = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "templates"))

#: Microban 1 with its loose box pushed into the bottom-left corner, at row 5, column 1.
CORNERED = """\
####
# .#
#  ###
#*@  #
#    #
#$ ###
####
"""
#: Two boxes side by side against the top wall: the one on its goal holds the other, which
#: stands off goal at row 1, column 4, on a square a lone box could leave for a goal.
FROZEN = """\
########
#  *$  #
#      #
#  .@  #
########
"""


def _replays(game, level, verdict: Verdict) -> bool:
    tokens = game.split_moves(verdict.solution)
    return check_solution(game, level, game.start(level), tokens) is None


@pytest.mark.parametrize("number", [1, 2, 10])
def test_microban_levels_are_solvable_with_a_proved_shortest_solution(number):
    level = MICROBAN[number - 1]
    verdict = check(SOKOBAN, level, 5)
    assert verdict.status is Status.SOLVABLE
    assert verdict.optimal and verdict.metric == "pushes"
    assert verdict.length == SOKOBAN.count(level, list(verdict.solution))["pushes"]
    assert _replays(SOKOBAN, level, verdict)
    assert verdict.expanded > 0
    assert verdict.reason == f"a solution of {verdict.length} pushes, proved shortest"
    assert verdict.length == proved_optimum(SOKOBAN, level, "pushes")  # by another search


@pytest.fixture(scope="module")
def warm():
    """The compiled kernels loaded, as a solver child has them: a check's time is search."""
    SOKOBAN.warm_up()


def test_a_solution_found_past_the_optimal_search_is_solvable_not_proved(warm):
    # Microban 105: breadth-first does not finish in 0.75 s; the fast search does at once.
    level = MICROBAN[104]
    verdict = check(SOKOBAN, level, 1.5)
    assert verdict.status is Status.SOLVABLE and not verdict.optimal
    assert verdict.reason.endswith("found, not proved shortest")
    assert _replays(SOKOBAN, level, verdict)


def test_a_box_in_a_corner_is_unsolvable_with_that_box_named():
    level = SOKOBAN.parse(CORNERED)[0]
    assert (5, 1) in SOKOBAN.dead_squares(level)
    assert (1, 2) not in SOKOBAN.dead_squares(level)  # a goal is never dead
    verdict = check(SOKOBAN, level, 5)
    assert verdict.status is Status.UNSOLVABLE
    assert verdict.reason == "a box on a square from which no goal can be reached"
    assert verdict.squares == [(5, 1)]
    assert verdict.solution == "" and verdict.length is None
    assert verdict.metric == "pushes" and verdict.seconds > 0  # in the words of its search


def test_a_frozen_box_off_goal_is_unsolvable_with_that_box_named():
    level = SOKOBAN.parse(FROZEN)[0]
    assert (1, 4) not in SOKOBAN.dead_squares(level)
    verdict = check(SOKOBAN, level, 5)
    assert verdict.status is Status.UNSOLVABLE
    assert "never move" in verdict.reason
    assert verdict.squares == [(1, 4)]


def _cells(template: str, **context) -> dict[tuple[int, int], str]:
    """Each ``data-cell`` of a game's board template, with its classes."""
    html = BOARDS.get_template(template).render(**context)
    found = re.findall(r'class="cell ([^"]*)" data-cell="(\d+),(\d+)"', html)
    return {(int(row), int(column)): kind for kind, row, column in found}


def test_the_squares_are_the_boards_data_cells():
    cornered = SOKOBAN.parse(CORNERED)[0]
    cells = _cells("sokoban/board.html", level=cornered, state=SOKOBAN.start(cornered))
    assert "box" in cells[check(SOKOBAN, cornered, 5).squares[0]]
    # Microban 3's first rows start with spaces: they count, as the board's cells count them.
    level = MICROBAN[2]
    dead = SOKOBAN.dead_squares(level)
    assert {(1, 3), (4, 1)} <= dead
    cells = _cells("sokoban/board.html", level=level, state=SOKOBAN.start(level))
    assert all(cells[square].split()[:2] in (["floor"], ["floor", "player"]) for square in dead)
    lone = VexedLevel(rows=("#####", "#a_c#", "#aaa#", "#####"))
    cells = _cells("vexed/board.html", state=Board(lone.rows), game=VEXED)  # as drawn
    assert "c-c" in cells[check(VEXED, lone, 5).squares[0]]


def test_a_vexed_colour_with_one_block_is_unsolvable_with_its_square():
    level = VexedLevel(rows=("#####", "#a_c#", "#aaa#", "#####"))
    verdict = check(VEXED, level, 5)
    assert verdict.status is Status.UNSOLVABLE
    assert verdict.reason == "the colour square (c) has a single block"
    assert verdict.squares == [(1, 3)]


def test_a_vexed_colour_left_alone_once_the_board_settles_is_unsolvable():
    # The two touching a's vanish before the first move; the third is left alone.
    text = "Vexed level\ntitle: t\n--\n#######\n#aa_a_#\n#######\n"
    verdict = check(VEXED, VEXED.parse(text)[0], 5)
    assert verdict.status is Status.UNSOLVABLE
    assert "single block" in verdict.reason and "settles" in verdict.reason
    assert verdict.squares == [(1, 4)]


def test_a_hard_level_under_a_tiny_limit_is_unknown_never_a_false_verdict(warm):
    # XSokoban 50: not decided in a second, let alone a tenth of one.
    level = SOKOBAN.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())[49]
    verdict = check(SOKOBAN, level, 0.1)
    assert verdict.status is Status.UNKNOWN and verdict.expanded > 0
    assert verdict.reason == "not decided within 0.1 s"
    assert verdict.solution == "" and not verdict.optimal
    assert verdict.metric == "pushes" and verdict.seconds > 0


def test_a_cancelled_check_is_unknown():
    level = SOKOBAN.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())[0]
    seen = []
    verdict = check(SOKOBAN, level, 30, report=seen.append, cancelled=lambda: bool(seen))
    assert verdict.status is Status.UNKNOWN and verdict.reason == "cancelled"
    assert verdict.metric == "pushes" and verdict.seconds > 0
    # Stopped at its first look after the cancel: no search reported anything after it.
    assert len(seen) == 1 and verdict.expanded >= seen[0].expanded


def test_a_game_with_only_the_default_hooks_is_checked_by_its_search():
    assert HOP.dead_squares(HOP.parse("@.G")[0]) == frozenset()
    solvable = check(HOP, HOP.parse("@..G")[0], 5)
    assert (solvable.status, solvable.length, solvable.optimal) == (Status.SOLVABLE, 3, True)
    walled = check(HOP, HOP.parse("@.#G")[0], 5)
    assert (walled.status, walled.reason) == (Status.UNSOLVABLE, "every position was searched")


def test_check_command_prints_a_verdict_per_level_and_names_the_broken_one(tmp_path, capsys):
    broken = "; broken\n####\n#@.#\n#$Q#\n####\n"
    text = f"; one\n{MICROBAN[0].xsb()}\n\n{broken}\n; cornered\n{CORNERED}"
    path = tmp_path / "mine.xsb"
    path.write_text(text)
    assert cli.main(["check", "sokoban", str(path), "--time-limit", "5"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [out["level"] for out in lines] == [1, 2, 3]
    assert [out["status"] for out in lines] == ["solvable", "invalid", "unsolvable"]
    fields = {"game", "level", "title", "status", "reason", "optimal", "length", "metric"}
    fields |= {"solution", "errors", "seconds", "expanded"}
    assert all(fields <= set(out) for out in lines)
    solved, invalid, dead = lines
    assert solved["optimal"] and solved["length"] == 8 and solved["errors"] == []
    assert proved_optimum(SOKOBAN, MICROBAN[0], "pushes") == 8
    assert solved["title"] == "one" and solved["solution"]
    line = text.split("\n").index("#$Q#") + 1
    assert invalid["errors"] == [
        {"line": line, "column": 3, "message": invalid["errors"][0]["message"]}
    ]
    assert "'Q'" in invalid["reason"]
    assert dead["squares"] == [[5, 1]] and dead["title"] == "cornered"


def test_check_command_exit_status(tmp_path, capsys):
    path = tmp_path / "one.xsb"
    path.write_text(MICROBAN[1].xsb())
    assert cli.main(["check", "sokoban", str(path), "--level", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "solvable"
    assert cli.main(["check", "sokoban", str(path), "--level", "2"]) == 2
    assert cli.main(["check", "sokoban", str(path), "--time-limit", "0"]) == 2
    assert cli.main(["check", "sokoban", str(tmp_path / "none.xsb")]) == 2
    assert cli.main(["check", "chess", str(path)]) == 2
    # Text that is no level at all is a verdict too: one invalid object.
    path.write_text("hello\n")
    assert cli.main(["check", "sokoban", str(path)]) == 0
    (out,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out["status"] == "invalid" and out["errors"][0]["message"]
