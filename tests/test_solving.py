"""The one door to every solver (webapp/games/solving.py): a solution is shown only when it replays
through the game's own rules, whatever the solver behind it claims. Proved here with solvers
that lie, on Hop (tests/tinygame), where every answer can be worked out by hand."""

from __future__ import annotations

import pytest

from tests.tinygame import Hop
from webapp import games
from webapp.checking import MEMORY_MB, NODES, OPTIMAL_SHARE, Status, Verdict, check, searches
from webapp.games.base import Algorithm
from webapp.games.solving import check_solution, solve
from webapp.search import Monitor, Result


def _claims(moves: list[str], optimal: bool = True) -> Algorithm:
    """A solver that answers ``moves`` as a solution whatever the level, and says it is
    the shortest."""

    def run(level, state, monitor: Monitor) -> Result:
        return Result(status="solved", moves=list(moves), expanded=7, optimal=optimal)

    return Algorithm("claims", "answers the same moves for every level", "moves", optimal, run)


class Lying(Hop):
    """Hop with one more solver, whose answer the test chooses."""

    def __init__(self, moves: list[str], optimal: bool = True) -> None:
        self.claims = _claims(moves, optimal)

    def algorithms(self) -> dict[str, Algorithm]:
        return {**super().algorithms(), "claims": self.claims}


LEVEL = Hop().parse("@..G")[0]


@pytest.mark.parametrize(
    ("moves", "problem"),
    [
        (["r"], "the moves end on a board that is not solved"),
        (["r", "r", "r", "r"], "move 4 (r) is not allowed"),
        (["l"], "move 1 (l) is not allowed"),
        ([], "the moves end on a board that is not solved"),
        (["r", "x", "r"], "move 2 (x) is not allowed"),
    ],
)
def test_a_solution_that_does_not_replay_is_an_error_never_a_solution(moves, problem):
    game = Lying(moves)
    result = solve(game, LEVEL, "claims")
    assert result.status == "error" and not result.solved
    assert result.error.startswith("the claims solver returned a solution that does not replay")
    assert problem in result.error
    assert not result.moves and result.cost is None
    assert result.expanded == 7  # the work done is still told


def test_a_solution_that_replays_is_counted_by_the_rules_not_the_solver():
    game = Lying(["r", "r", "r"])
    result = solve(game, LEVEL, "claims")
    assert result.solved and result.moves == ["r", "r", "r"] and result.cost == 3
    assert result.optimal  # the solver and its algorithm both say so
    walked = solve(Lying(["r", "l", "r", "r", "r"], optimal=False), LEVEL, "claims")
    assert walked.solved and walked.cost == 5 and not walked.optimal


def test_a_solution_from_a_later_position_replays_from_that_position():
    game = Lying(["r", "r"])
    later = game.apply(LEVEL, game.start(LEVEL), "r")
    assert solve(game, LEVEL, "claims", state=later).solved
    assert solve(game, LEVEL, "claims").status == "error"  # from the start it falls short


def test_check_solution_names_the_first_move_at_fault():
    game = Hop()
    start = game.start(LEVEL)
    assert check_solution(game, LEVEL, start, ["r", "r", "r"]) is None
    assert check_solution(game, LEVEL, start, ["r", "l", "l", "r"]).startswith(
        "move 3 (l) is not allowed"
    )
    assert check_solution(game, LEVEL, start, ["r", "r"]) == (
        "the moves end on a board that is not solved"
    )


def test_the_editors_verdict_never_says_solvable_on_a_lying_solvers_word():
    # Only the liar is asked: its wrong answer makes the verdict unknown, never "solvable".
    game = Lying(["r"])
    game.algorithms = lambda: {"claims": game.claims}
    verdict = check(game, LEVEL, 5)
    assert verdict.status is Status.UNKNOWN and verdict.solution == ""
    assert verdict.reason.startswith("the solver could not decide: the claims solver")
    honest = Lying(["r", "r", "r"])
    honest.algorithms = lambda: {"claims": honest.claims}
    assert check(honest, LEVEL, 5).status is Status.SOLVABLE


# -- the verdict's searches (webapp/checking.py), with solvers whose answers the test sets --
class Scripted(Hop):
    """Hop whose solvers are the test's: each answers a set Result and notes the limits it
    was given."""

    def __init__(self, answers: dict[str, tuple[bool, str, Result]], default: str) -> None:
        self.default_algorithm = default
        self.given: dict[str, object] = {}
        self.table = {}
        for name, (optimal, metric, answer) in answers.items():
            self.table[name] = Algorithm(name, name, metric, optimal, self._runner(name, answer))

    def _runner(self, name: str, answer: Result):
        def run(level, state, monitor: Monitor) -> Result:
            self.given[name] = monitor.limits
            return Result(**{**vars(answer), "extra": {}})

        return run

    def algorithms(self) -> dict[str, Algorithm]:
        return self.table


SOLVED = Result(status="solved", moves=["r", "r", "r"], expanded=7, optimal=True)


def test_the_plan_is_an_optimal_search_then_a_faster_one_each_with_its_share():
    assert searches(Hop(), LEVEL) == [("bfs", 1.0)]
    fast, exact = (False, "moves", SOLVED), (True, "moves", SOLVED)
    assert searches(Scripted({"a": fast, "b": exact, "c": fast}, "c"), LEVEL) == [
        ("b", OPTIMAL_SHARE),
        ("c", 1.0),  # the default, not the first fast one listed
    ]
    assert searches(Scripted({"a": exact, "b": exact, "c": fast}, "b"), LEVEL) == [
        ("b", OPTIMAL_SHARE),  # the default, not the first optimal one listed
        ("c", 1.0),
    ]
    assert searches(Scripted({"a": fast}, "a"), LEVEL) == [("a", 1.0)]
    sliding = games.get("sliding")
    small, large = sliding.parse("1 2 3\n4 5 6\n7 0 8")[0], sliding.parse(FIVE)[0]
    assert searches(sliding, small) == [("pdb", OPTIMAL_SHARE), ("fast", 1.0)]  # by its size
    assert searches(sliding, large) == [("astar", OPTIMAL_SHARE), ("fast", 1.0)]
    narrow = sliding.parse("1 2 3\n4 0 5")[0]
    assert searches(sliding, narrow) == [("idastar", OPTIMAL_SHARE), ("fast", 1.0)]
    assert check(sliding, narrow, 5).length == 1


FIVE = "\n".join(" ".join(str((r * 5 + c + 1) % 25) for c in range(5)) for r in range(5))


def test_each_search_gets_the_time_and_positions_the_earlier_ones_left():
    stopped = Result(status="node-limit", expanded=30)
    game = Scripted({"exact": (True, "moves", stopped), "fast": (False, "moves", SOLVED)}, "fast")
    verdict = check(game, LEVEL, 10, node_limit=100)
    assert verdict.status is Status.SOLVABLE and verdict.expanded == 30 + 7
    first, then = game.given["exact"], game.given["fast"]
    assert first.nodes == 100 and then.nodes == 70
    assert first.seconds <= 10 * OPTIMAL_SHARE and then.seconds <= 10
    assert first.memory_mb == then.memory_mb == MEMORY_MB
    unlimited = Scripted({"exact": (True, "moves", stopped), "fast": (False, "moves", SOLVED)}, "a")
    check(unlimited, LEVEL, 10)
    assert unlimited.given["fast"].nodes == NODES - 30
    # No positions left: the faster search is not started, and the verdict says why.
    spent = Scripted({"exact": (True, "moves", stopped), "fast": (False, "moves", SOLVED)}, "x")
    verdict = check(spent, LEVEL, 10, node_limit=30)
    assert "fast" not in spent.given
    assert (verdict.status, verdict.reason) == (Status.UNKNOWN, "not decided within 30 positions")
    assert verdict.expanded == 30 and verdict.seconds > 0
    one_left = Scripted({"exact": (True, "moves", stopped), "fast": (False, "moves", SOLVED)}, "x")
    assert check(one_left, LEVEL, 10, node_limit=31).status is Status.SOLVABLE


def test_an_undecided_verdict_says_what_stopped_it():
    memory = Scripted({"exact": (True, "pushes", Result(status="memory-limit"))}, "exact")
    verdict = check(memory, LEVEL, 5)
    assert verdict.reason == f"not decided within {MEMORY_MB} MB of memory"
    assert verdict.metric == "pushes" and verdict.seconds > 0
    silent = Scripted({"exact": (True, "moves", Result(status="error"))}, "exact")
    assert check(silent, LEVEL, 5).reason == "not decided within 5 s"
    liars = Scripted(
        {
            "exact": (True, "moves", Result(status="solved", moves=["r"])),
            "fast": (False, "moves", Result(status="solved", moves=["l"])),
        },
        "fast",
    )
    reason = check(liars, LEVEL, 5).reason
    assert reason.startswith("the solver could not decide: the exact solver returned")
    assert "; the fast solver returned" in reason
    assert check(Scripted({}, "none"), LEVEL, 5).metric == "moves"  # nothing to search with


def test_a_verdict_names_its_length_in_the_metrics_words_and_how_long_it_took():
    game = Scripted({"line": (True, "line_moves", SOLVED)}, "line")
    verdict = check(game, LEVEL, 5)
    assert verdict.reason == "a solution of 3 line moves, proved shortest"
    assert (verdict.length, verdict.metric, verdict.seconds > 0) == (3, "line_moves", True)
    found = Scripted({"quick": (False, "path_moves", SOLVED)}, "quick")
    assert check(found, LEVEL, 5).reason == "a solution of 3 path moves found, not proved shortest"
    walled = check(Hop(), Hop().parse("@.#G")[0], 5)
    assert walled.status is Status.UNSOLVABLE and walled.expanded > 0 and walled.seconds > 0
    assert walled.metric == "moves"
    boxed = Scripted({"exact": (True, "pushes", Result(status="unsolvable", expanded=4))}, "exact")
    proved = check(boxed, LEVEL, 5)
    assert (proved.status, proved.metric, proved.expanded) == (Status.UNSOLVABLE, "pushes", 4)
    shown = Verdict(Status.UNKNOWN, seconds=1.234567).to_dict()
    assert shown["seconds"] == 1.2346
