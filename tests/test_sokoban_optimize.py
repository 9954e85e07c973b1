"""The Sokoban solution optimizer (optimize.py) and ``python -m webapp improve``."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from tests.optima import proved_optimum
from webapp.games.sokoban import GAME, optimize
from webapp.games.sokoban.board import Board, cells_of
from webapp.games.sokoban.level import Level
from webapp.games.sokoban.optimize import improve, pushes_of, tokens_of
from webapp.games.solving import check_solution, solve
from webapp.ops.cli import main
from webapp.search import Limits

MICROBAN_FILE = Path(__file__).resolve().parents[1] / "levels" / "sokoban" / "microban.xsb"
MICROBAN = GAME.parse(MICROBAN_FILE.read_text())
#: Microban 3 and a solution of it that is shortest in moves (41) and in pushes (13), as the
#: `moves` and `bfs` algorithms find them.
LEVEL = MICROBAN[2]
SOLUTION = "ruuLLLulDrrrrddlUruLLLddllluurRDrdLuuurDD"


def _wasteful(level: Level = LEVEL, solution: str = SOLUTION) -> list[str]:
    """The solution with boxes pushed away and back again on the way (twice over, at two
    places) and the player stepping off and back before the first push: 8
    pushes too many."""
    board, start = Board(level), GAME.start(level)
    pushes = pushes_of(board, start, list(solution))
    assert pushes is not None
    letters = [letter for letter, _ in board.directions]
    at, inserted = 1, 0
    while inserted < 2 and at <= len(pushes):
        boxes = set(start.boxes)
        for push in pushes[:at]:
            boxes.remove(push >> 2)
            boxes.add((push >> 2) + board.directions[push & 3][1])
        for box in sorted(boxes):
            for direction, (_, offset) in enumerate(board.directions):
                back = letters.index({"l": "r", "r": "l", "u": "d", "d": "u"}[letters[direction]])
                away = [box << 2 | direction, box + offset << 2 | back] * 2
                trial = pushes[:at] + away + pushes[at:]
                try:
                    moves = tokens_of(board, start, trial)
                except (ValueError, KeyError):  # no walk there, or no box
                    continue
                if check_solution(GAME, level, start, moves) is None:
                    pushes, inserted, at = trial, inserted + 1, at + 8
                    break
            else:
                continue
            break
        at += 1
    assert inserted == 2
    moves = tokens_of(board, start, pushes)
    # The first step of the walk, and back.
    assert moves[0].islower()
    return [moves[0], {"l": "r", "r": "l", "u": "d", "d": "u"}[moves[0]], *moves]


def test_the_wasteful_solution_solves_the_level_the_long_way() -> None:
    wasteful = _wasteful()
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), wasteful) is None
    counted = GAME.count(LEVEL, wasteful)
    assert counted["pushes"] == 13 + 8
    assert counted["moves"] > 41 + 8


@pytest.mark.parametrize("metric", ["moves", "pushes"])
def test_a_wasteful_solution_comes_back_as_short_as_the_best(metric: str) -> None:
    wasteful = _wasteful()
    gains: list[tuple[int, int]] = []
    better = improve(GAME, LEVEL, wasteful, metric, seconds=20, progress=lambda *g: gains.append(g))
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), better.moves) is None
    counted = GAME.count(LEVEL, better.moves)
    assert (counted["moves"], counted["pushes"]) == (41, 13)
    # Each gain was told as it came (the live panel shows them): never longer, ending here.
    lengths = [length for length, _expanded in gains]
    assert lengths and lengths == sorted(lengths, reverse=True) and lengths[-1] == counted[metric]
    assert better.pushes == 13
    assert (better.original_moves, better.original_pushes) == (len(wasteful), 21)
    assert better.finished


def test_a_solution_already_shortest_is_kept_as_long() -> None:
    for metric in ("moves", "pushes"):
        better = improve(GAME, LEVEL, list(SOLUTION), metric, seconds=20)
        assert "".join(better.moves) == SOLUTION


def test_past_its_time_the_pushes_are_kept_and_the_walks_made_shortest() -> None:
    wasteful = _wasteful()
    better = improve(GAME, LEVEL, wasteful, "moves", seconds=1e-9)
    assert not better.finished
    assert better.pushes == 21
    assert len(better.moves) == len(wasteful) - 2  # the detour before the first push
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), better.moves) is None


def test_moves_that_do_not_solve_the_level_are_refused() -> None:
    with pytest.raises(ValueError, match="^the moves end on a board that is not solved$"):
        improve(GAME, LEVEL, list(SOLUTION[:-1]), "moves", seconds=1)
    with pytest.raises(ValueError, match=r"^move 1 \(d\) is not allowed: "):
        improve(GAME, LEVEL, ["d", *SOLUTION], "moves", seconds=1)


def _improve(capsys, *options: str) -> tuple[int, str, str]:
    status = main(["improve", "sokoban", str(MICROBAN_FILE), "--level", "3", *options])
    out, err = capsys.readouterr()
    return status, out, err


def test_improve_prints_one_json_object_with_the_shorter_solution(capsys) -> None:
    wasteful = "".join(_wasteful())
    status, out, err = _improve(capsys, "--solution", wasteful, "--metric", "pushes")
    assert status == 0, err
    record = json.loads(out)
    assert record["solution"] and record["length"] == record["pushes"] == 13
    assert record["moves"] == len(record["solution"]) == 41
    assert record["original_length"] == 21
    assert (record["game"], record["level"], record["title"]) == ("sokoban", 3, "Microban 3")
    assert (record["status"], record["metric"], record["optimal"]) == ("solved", "pushes", False)
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), list(record["solution"])) is None
    assert {"algorithm", "seconds", "expanded"} <= set(record)
    status, out, _ = _improve(capsys, "--solution", wasteful)
    assert status == 0
    assert json.loads(out)["metric"] == "moves"
    assert json.loads(out)["length"] == 41


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--solution", SOLUTION[:-2]], "does not solve level 3"),
        (["--solution", "x" + SOLUTION], "--solution"),
        (["--solution", SOLUTION, "--metric", "steps"], "--metric"),
        (["--solution", SOLUTION, "--time-limit", "0"], "--time-limit"),
        (["--solution", SOLUTION, "--level", "99999"], "--level"),
    ],
)
def test_improve_refuses_what_it_cannot_use_with_status_2(capsys, options, message) -> None:
    status, out, err = _improve(capsys, *options)
    assert status == 2
    assert out == ""
    assert message in err


def test_the_search_near_the_whole_solution_alone_takes_the_detours_out(monkeypatch) -> None:
    monkeypatch.setattr(optimize, "SCHEDULE", (("near", 1, 2, 4),))
    better = improve(GAME, LEVEL, _wasteful(), "pushes", seconds=20)
    assert better.pushes == 13
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), better.moves) is None


def test_near_allows_few_boxes_each_a_few_steps_off_a_position_of_the_solution() -> None:
    board, start = Board(LEVEL), GAME.start(LEVEL)
    pushes = pushes_of(board, start, list(SOLUTION))
    assert pushes is not None
    states = optimize._states(board, start, pushes)
    boxes = states[5][0]
    near = optimize.Nearness(board, states, count=1, radius=2, span=0)
    assert near.candidates(boxes, 5) == [5]
    assert near.anchor(boxes, [5]) == 5
    width = board.width
    first, second, *_ = sorted(cells_of(boxes))
    for square in cells_of(board.floor & ~boxes):
        moved = boxes & ~(1 << first) | 1 << square
        apart = abs(square // width - first // width) + abs(square % width - first % width)
        if apart == 1:
            assert near.anchor(moved, [5]) == 5
        elif apart > 2:  # more than two steps, whatever the walls
            assert near.anchor(moved, [5]) is None
        both = moved & ~(1 << second)
        for other in cells_of(board.floor & ~boxes & ~(1 << square)):
            assert near.anchor(both | 1 << other, [5]) is None  # two boxes off
    wider = optimize.Nearness(board, states, count=1, radius=2, span=3)
    # The latest position within three pushes of 5 that it is near: 8, one push from 7.
    assert wider.anchor(states[7][0], wider.candidates(boxes, 5)) == 8
    assert wider.anchor(states[-1][0], wider.candidates(boxes, 5)) is None


@pytest.mark.parametrize("metric", ["moves", "pushes"])
def test_the_answer_is_never_longer_than_the_solution_given(monkeypatch, metric: str) -> None:
    # Searches that came back with a longer way (the guard's "cannot happen"): the solution
    # given is kept, move for move, not the longer one.
    board, start = Board(LEVEL), GAME.start(LEVEL)
    longer = pushes_of(board, start, _wasteful())
    monkeypatch.setattr(optimize.Optimizer, "run", lambda self, pushes: (list(longer), True))
    better = improve(GAME, LEVEL, list(SOLUTION), metric, seconds=5)
    assert "".join(better.moves) == SOLUTION and better.pushes == 13
    # Nor is a solution that is as long in the metric but longer in its tie-break taken.
    same = pushes_of(board, start, list(SOLUTION))
    assert same is not None
    monkeypatch.setattr(optimize.Optimizer, "run", lambda self, pushes: (list(same), True))
    detour = [SOLUTION[0], {"l": "r", "r": "l", "u": "d", "d": "u"}[SOLUTION[0]], *SOLUTION]
    kept = improve(GAME, LEVEL, detour, metric, seconds=5)
    assert "".join(kept.moves) == SOLUTION  # the walks made shortest: two moves fewer


def test_a_near_search_that_finds_nothing_cheaper_leaves_the_solution_as_it_is(monkeypatch):
    # The near search's own count is not trusted: a way it offers that is costlier when
    # counted again (in the tie-break or the metric) is not taken.
    board, start = Board(LEVEL), GAME.start(LEVEL)
    pushes = pushes_of(board, start, list(SOLUTION))
    longer = pushes_of(board, start, _wasteful())
    assert pushes is not None and longer is not None
    monkeypatch.setattr(optimize.Window, "search", lambda self, most, deadline, nodes: longer)
    for metric in ("moves", "pushes"):
        optimizer = optimize.Optimizer(board, start, metric, deadline=1e12, nodes=None)
        mine = list(pushes)
        assert optimizer._near(mine, 1, 4, 10) is False
        assert mine == pushes
        assert optimizer._pass(mine, 8, 1) is False and mine == pushes


@pytest.mark.parametrize("number", [1, 4, 7, 14, 20])
def test_wasteful_solutions_of_other_levels_come_back_at_the_proved_optimum(number: int) -> None:
    level = MICROBAN[number - 1]
    fewest_pushes = proved_optimum(GAME, level, "pushes")
    fewest_moves = proved_optimum(GAME, level, "moves")
    shortest = solve(GAME, level, "astar", limits=Limits(seconds=30)).moves
    wasteful = _wasteful(level, "".join(shortest))
    for metric, optimum in (("moves", fewest_moves), ("pushes", fewest_pushes)):
        better = improve(GAME, level, wasteful, metric, seconds=20)
        assert check_solution(GAME, level, GAME.start(level), better.moves) is None
        assert GAME.count(level, better.moves)[metric] == optimum, metric
        assert better.finished


def test_each_metric_is_made_shorter_in_itself_not_in_the_other() -> None:
    # Microban 5: the fewest pushes (6) take 27 moves; the fewest moves (25) take 8 pushes.
    level = MICROBAN[4]
    assert proved_optimum(GAME, level, "pushes") == 6
    assert proved_optimum(GAME, level, "moves") == 25
    fewest_pushes = solve(GAME, level, "astar", limits=Limits(seconds=30)).moves
    given = GAME.count(level, fewest_pushes)
    assert given["pushes"] == 6 and given["moves"] > 25
    by_moves = improve(GAME, level, fewest_pushes, "moves", seconds=20)
    assert GAME.count(level, by_moves.moves) == {"moves": 25, "pushes": 8}
    assert check_solution(GAME, level, GAME.start(level), by_moves.moves) is None
    # In pushes the six are kept; the moves, the tie-break, may only come down.
    kept = GAME.count(level, improve(GAME, level, fewest_pushes, "pushes", seconds=20).moves)
    assert kept["pushes"] == 6 and 25 < kept["moves"] <= given["moves"]


def test_moves_that_solve_the_level_then_undo_it_are_refused() -> None:
    # The pushes up to the first solved position would make a solution; the moves given do
    # not end solved, so they are no solution to improve.
    start = GAME.start(LEVEL)
    solved = start
    for move in SOLUTION:
        solved = GAME.apply(LEVEL, solved, move)
    undone = None
    for tried in (list(way) for length in range(1, 6) for way in product("lrud", repeat=length)):
        state = solved
        try:
            for move in tried:
                state = GAME.apply(LEVEL, state, move)
        except ValueError:
            continue
        if not GAME.is_solved(LEVEL, state):
            undone = tried
            break
    assert undone is not None
    with pytest.raises(ValueError, match="not solved"):
        improve(GAME, LEVEL, [*SOLUTION, *undone], "moves", seconds=1)


def test_the_metric_is_moves_unless_asked() -> None:
    better = improve(GAME, LEVEL, _wasteful(), seconds=20)
    assert GAME.count(LEVEL, better.moves) == {"moves": 41, "pushes": 13}


@pytest.mark.parametrize("budget", [50, 300])
def test_a_budget_of_positions_stops_it_with_what_it_gained_kept(budget: int) -> None:
    wasteful = _wasteful()
    better = improve(GAME, LEVEL, wasteful, "pushes", seconds=20, nodes=budget)
    assert better.expanded <= budget and not better.finished
    assert check_solution(GAME, LEVEL, GAME.start(LEVEL), better.moves) is None
    assert better.pushes <= 21 and len(better.moves) <= len(wasteful)


def test_the_near_search_takes_a_way_cheaper_only_in_its_walks(monkeypatch) -> None:
    # Microban 5: two ways of six pushes, one of them walks less. Offered the shorter walk,
    # the near search takes it, however little it gains against the whole solution's cost.
    level = MICROBAN[4]
    board, start = Board(level), GAME.start(level)
    walked = solve(GAME, level, "astar", limits=Limits(seconds=30)).moves
    pushes = pushes_of(board, start, walked)
    shorter = improve(GAME, level, walked, "pushes", seconds=20).moves
    fewer = pushes_of(board, start, shorter)
    assert pushes is not None and fewer is not None and len(pushes) == len(fewer) == 6
    assert len(tokens_of(board, start, fewer)) < len(tokens_of(board, start, pushes))
    made: list[optimize.Window] = []

    class Offered(optimize.Window):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        def search(self, most: int, deadline: float, nodes: int) -> list[int] | None:
            return list(fewer)

    monkeypatch.setattr(optimize, "Window", Offered)
    optimizer = optimize.Optimizer(board, start, "pushes", deadline=1e12, nodes=None)
    mine = list(pushes)
    assert optimizer._near(mine, 1, 4, 10) is True and mine == fewer
    # Offered the longer walk, or the same way again, it keeps what it has and says so.
    for offer, kept in ((pushes, fewer), (fewer, fewer)):
        made.clear()
        monkeypatch.setattr(
            Offered, "search", lambda self, most, deadline, nodes, offer=offer: list(offer)
        )
        assert optimizer._near(mine, 1, 4, 10) is False and mine == kept
    monkeypatch.setattr(Offered, "search", lambda self, most, deadline, nodes: None)
    made.clear()
    assert optimizer._near(mine, 1, 4, 10) is False and mine == fewer
    made.clear()
    monkeypatch.setattr(Offered, "search", lambda self, most, deadline, nodes: list(fewer))
    optimizer._near(mine, 1, 4, 10)
    # The search was the near one: bounded by the solution's own positions (Nearness).
    (window,) = made
    assert isinstance(window.near, optimize.Nearness)
    assert (window.near.count, window.near.span) == (1, 10)


def test_pushes_from_the_searches_that_do_not_replay_are_refused_not_returned(monkeypatch):
    # The searches' pushes are replayed through the rules before anything is returned.
    board, start = Board(LEVEL), GAME.start(LEVEL)
    pushes = pushes_of(board, start, list(SOLUTION))
    assert pushes is not None
    monkeypatch.setattr(optimize.Optimizer, "run", lambda self, given: (pushes[:-1], True))
    with pytest.raises(RuntimeError, match="^the optimized solution does not replay: the moves"):
        improve(GAME, LEVEL, list(SOLUTION), "moves", seconds=5)
