"""``python -m webapp trace``: a textbook search written out one expansion a line, the
search's own expansions (those ``solve`` makes with the same algorithm), and the tracer hook
behind it, which a search without a tracer never touches."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from tests.conftest import LEVELS
from webapp import games
from webapp.games.solving import solve
from webapp.ops.cli import main
from webapp.search import VERDICTS, Limits, Monitor, SearchProblem, Tracer, astar, bfs, idastar

#: (game, file, level, algorithm, the kind of search): small levels every traceable
#: algorithm solves in well under a second, so the whole search is traced.
CASES = [
    ("sokoban", "sokoban/microban.xsb", 1, "bfs", "breadth-first"),
    ("sokoban", "sokoban/microban.xsb", 1, "astar", "best-first"),
    ("sokoban", "sokoban/microban.xsb", 3, "bfs", "breadth-first"),
    ("sokoban", "sokoban/microban.xsb", 2, "moves", "best-first"),
    ("sliding", "sliding/warm-up.txt", 8, "astar", "best-first"),
    ("sliding", "sliding/warm-up.txt", 8, "idastar", "depth-first"),
    ("vexed", "vexed/00_tutorial.txt", 1, "bfs", "breadth-first"),
    ("blocks", "blocks/workshop.txt", 1, "path", "breadth-first"),
    ("blocks", "blocks/workshop.txt", 1, "line", "breadth-first"),
    ("blocks", "blocks/workshop.txt", 1, "steps", "breadth-first"),
]

STEP_FIELDS = {"step", "position", "g", "h", "f", "children", "waiting"}


def trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    status = main(["trace", *args])
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    return status, lines, captured.err


def level_of(game: games.Game, name: str, number: int) -> Any:
    return game.parse((LEVELS / name).read_text(encoding="utf-8"))[number - 1]


def position_of(game: games.Game, text: str) -> tuple[Any, Any]:
    """A position's text read back as a level (the format ``generate`` writes) and its start."""
    level = game.parse(text)[0]
    return level, game.start(level)


@pytest.mark.parametrize(("name", "file", "number", "algorithm", "kind"), CASES)
def test_trace_is_the_solve_search_expansion_for_expansion(
    capsys, name, file, number, algorithm, kind
):
    game = games.get(name)
    level = level_of(game, file, number)
    solved = solve(game, level, algorithm, limits=Limits(seconds=30))
    assert solved.status == "solved"
    status, steps, err = trace(
        capsys, name, str(LEVELS / file), "--level", str(number), "--algorithm", algorithm
    )
    assert status == 0, err
    ended = json.loads(err)
    assert ended["status"] == "solved" and ended["solution"] == game.join_moves(solved.moves)
    # As many expansions as the search without a tracer makes, numbered from 0 ...
    assert len(steps) == solved.expanded
    assert [step["step"] for step in steps] == list(range(len(steps)))
    # ... starting at the level's start, in the game's own text.
    assert steps[0]["position"] == game.render_text(level, game.start(level))
    assert steps[0]["g"] == 0
    for step in steps:
        assert set(step) == STEP_FIELDS
        assert step["f"] == step["g"] + step["h"]
        assert isinstance(step["waiting"], int) and step["waiting"] >= 0
        here, state = position_of(game, step["position"])
        for child in step["children"]:
            assert child["verdict"] in VERDICTS
            assert ("rule" in child) == (child["verdict"] in ("dead", "pruned"))
            # Each child is what the game's rules make of its move from the position.
            after = game.replay(here, game.split_moves(child["move"]), state)
            assert game.render_text(here, after) == child["position"]
    news = [c["position"] for step in steps for c in step["children"] if c["verdict"] == "new"]
    taken = [step["position"] for step in steps]
    if kind == "breadth-first":
        # First in, first out: positions are taken in the order they were first met.
        assert taken[1:] == news[: len(taken) - 1]
        assert [s["g"] for s in steps] == sorted(s["g"] for s in steps)
    elif kind == "best-first":
        # Every position taken was met before; with a consistent estimate f never falls.
        assert set(taken[1:]) <= set(news)
        assert [s["f"] for s in steps] == sorted(s["f"] for s in steps)
    else:
        assert_depth_first(steps)


def assert_depth_first(steps: list[dict]) -> None:
    """IDA*: each iteration starts again at the start; within one, each position taken is
    the next child the position above it on the path marked new (depth-first order)."""
    pending: list[list[str]] = []
    for step in steps:
        if step["g"] == 0:
            pending = []
        else:
            while len(pending) > step["g"]:
                assert pending.pop() == [], "a subtree left before its new children were taken"
            assert pending[-1] and pending[-1][0] == step["position"]
            pending[-1].pop(0)
        pending.append([c["position"] for c in step["children"] if c["verdict"] == "new"])


def test_the_command_line_prints_what_the_tracer_on_solve_is_told(capsys):
    """The lines are the search's own: those a tracer on ``solve`` hears, in that order."""
    game = games.get("sokoban")
    level = level_of(game, "sokoban/microban.xsb", 2)
    heard: list[str] = []

    class Positions(Tracer):
        def expand(self, state: Any, g: int, h: int, f: int, waiting: int) -> None:
            heard.append(game.render_text(level, state))

    solve(game, level, "bfs", tracer=Positions())
    status, steps, _ = trace(
        capsys, "sokoban", str(LEVELS / "sokoban/microban.xsb"), "--level", "2"
    )
    assert status == 0 and [step["position"] for step in steps] == heard and heard


def test_steps_bound_the_trace_and_the_search_says_so(capsys):
    status, steps, err = trace(
        capsys, "vexed", str(LEVELS / "vexed/00_tutorial.txt"), "--level", "3", "--steps", "5"
    )
    assert status == 0
    assert [step["step"] for step in steps] == [0, 1, 2, 3, 4]
    ended = json.loads(err)
    assert ended["status"] == "node-limit" and ended["solution"] is None
    assert ended["expanded"] == 5
    # A colour left with one block is a dead end the breadth-first search leaves out.
    rules = {c.get("rule") for step in steps for c in step["children"] if c["verdict"] == "dead"}
    assert rules == {"a colour left with a single block, which can never vanish"}


def test_dead_and_pruned_children_carry_their_rule(capsys):
    _, steps, _ = trace(
        capsys, "sokoban", str(LEVELS / "sokoban/microban.xsb"), "--algorithm", "astar"
    )
    dead = [c for c in steps[0]["children"] if c["verdict"] == "dead"]
    assert [c["move"] for c in dead] == ["dR"] and "dead square" in dead[0]["rule"]
    _, steps, _ = trace(
        capsys, "sliding", str(LEVELS / "sliding/warm-up.txt"), "--algorithm", "idastar"
    )
    rules = [c["rule"] for s in steps for c in s["children"] if c["verdict"] == "pruned"]
    assert "f = g + h = 6 is above the bound 4" in rules
    assert "it takes back the move before" in rules
    _, steps, _ = trace(
        capsys,
        "sokoban",
        str(LEVELS / "sokoban/microban.xsb"),
        "--level",
        "5",
        "--algorithm",
        "moves",
        "--steps",
        "300",
    )
    rules = {c["rule"] for s in steps for c in s["children"] if c["verdict"] == "dead"}
    assert any(rule.startswith("a freeze") for rule in rules)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["chess", "x.txt"], "unknown game"),
        (["sokoban", "levels/sokoban/microban.xsb", "--algorithm", "fast"], "cannot trace"),
        (
            ["sokoban", "levels/sokoban/microban.xsb", "--algorithm", "dijkstra"],
            "unknown algorithm",
        ),
        (["sokoban", "levels/sokoban/microban.xsb", "--steps", "0"], "--steps"),
        (["sokoban", "levels/sokoban/microban.xsb", "--level", "0"], "--level"),
        (["sokoban", "levels/sokoban/microban.xsb", "--level", "999"], "--level 999"),
        (["sokoban", "levels/sokoban/microban.xsb", "--time-limit", "nan"], "--time-limit"),
        (["sokoban", "/no/such/file.xsb"], "cannot read"),
        (["sokoban", "levels/sokoban/microban.xsb", "--steps", "many"], "invalid int"),
    ],
)
def test_unusable_arguments_exit_2_naming_what_is_wrong(capsys, monkeypatch, args, words):
    from tests.conftest import ROOT

    monkeypatch.chdir(ROOT)
    status, steps, err = trace(capsys, *args)
    assert status == 2 and steps == [] and words in err


class Counted(SearchProblem[int]):
    """A line of numbers 0..8, the goal at 8; counts the calls only a trace needs."""

    def __init__(self) -> None:
        self.shown = self.left = 0

    def start(self) -> int:
        return 0

    def is_goal(self, state: int) -> bool:
        return state == 8

    def successors(self, state: int) -> Iterable[tuple[tuple[str, ...], int, int]]:
        return [(("+",), state + 1, 1), (("-",), max(0, state - 1), 1)]

    def h(self, state: int) -> int:
        return 8 - state

    def display(self, state: int) -> int:
        self.shown += 1
        return state

    def left_out(self, state: int) -> Iterable[tuple[tuple[str, ...], int, str]]:
        self.left += 1
        return [(("*",), state * 2, "doubling is not a move here")]


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_a_search_without_a_tracer_does_no_trace_work(search):
    quiet = Counted()
    assert search(quiet, Monitor(Limits(seconds=5))).status == "solved"
    # (A* and IDA* show the closest position met to the live view: that display is not
    # a trace's, and a traced run shows each child besides.)
    assert quiet.left == 0
    heard: list[tuple[str, Any]] = []

    class Listening(Tracer):
        def expand(self, state: Any, g: int, h: int, f: int, waiting: int) -> None:
            heard.append(("expand", state))

        def child(self, move: Any, state: Any, verdict: str, rule: str = "") -> None:
            heard.append((verdict, state))

    told = Counted()
    result = search(told, Monitor(Limits(seconds=5), tracer=Listening()))
    assert result.status == "solved" and told.left == result.expanded
    assert told.shown >= quiet.shown + len(heard)
    assert [state for kind, state in heard if kind == "expand"][0] == 0
    assert sum(kind == "expand" for kind, _ in heard) == result.expanded
    assert ("dead", 0) in heard
