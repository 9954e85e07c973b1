"""The one door to every solver (webapp/solving.py): a solution is shown only when it replays
through the game's own rules, whatever the solver behind it claims. Proved here with solvers
that lie, on Hop (tests/tinygame), where every answer can be worked out by hand."""

from __future__ import annotations

import pytest

from tests.tinygame import Hop
from webapp.checking import check
from webapp.games.base import Algorithm
from webapp.search import Monitor, Result
from webapp.solving import check_solution, solve


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
    assert verdict.status == "unknown" and verdict.solution == ""
    assert verdict.reason.startswith("the solver could not decide: the claims solver")
    honest = Lying(["r", "r", "r"])
    honest.algorithms = lambda: {"claims": honest.claims}
    assert check(honest, LEVEL, 5).status == "solvable"
