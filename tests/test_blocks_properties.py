"""Property tests for sliding blocks: random play on real layouts keeps the rules consistent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import LEVELS
from webapp.games.blocks import GAME, moves_left, parse_move
from webapp.games.solving import solve
from webapp.search import Limits

CLASSICS = GAME.parse((LEVELS / "blocks" / "classics.txt").read_text(encoding="utf-8"))
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def random_play(level, choices: list[int]):
    """Play legal moves picked by ``choices`` from the start; return the tokens and states."""
    state = GAME.start(level)
    tokens, states = [], [state]
    for choice in choices:
        legal = GAME.legal_moves(level, state)
        token = legal[choice % len(legal)]
        state = GAME.apply(level, state, token)
        tokens.append(token)
        states.append(state)
    return tokens, states


walks = st.tuples(
    st.integers(0, len(CLASSICS) - 1), st.lists(st.integers(0, 1000), min_size=1, max_size=60)
)


@settings(max_examples=40, deadline=None)
@given(walks)
def test_every_step_can_be_undone(walk):
    level = CLASSICS[walk[0]]
    tokens, states = random_play(level, walk[1])
    for token, before, after in zip(tokens, states[:-1], states[1:], strict=True):
        row, column, direction = parse_move(token)
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[direction]
        back = f"{row + dr},{column + dc}{OPPOSITE[direction]}"
        assert GAME.apply(level, after, back) == before
        assert GAME.normalize_move(level, before, token) == token


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([0, 5]), st.lists(st.integers(0, 1000), min_size=1, max_size=60))
def test_counts_nest_and_distances_move_by_at_most_one(number, choices):
    # Two layouts only, so the distance tables stay in the solver's cache.
    level = CLASSICS[number]
    tokens, states = random_play(level, choices)
    counts = GAME.count(level, tokens)
    assert 1 <= counts["path_moves"] <= counts["line_moves"] <= counts["steps"] == len(tokens)
    for metric in ("steps", "path_moves"):
        lefts = [moves_left(level, state, metric) for state in states]
        assert all(left is not None for left in lefts)
        assert all(abs(a - b) <= 1 for a, b in zip(lefts, lefts[1:], strict=False))


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=60))
def test_solving_from_anywhere_matches_the_table(choices):
    level = CLASSICS[0]
    _, states = random_play(level, choices)
    state = states[-1]
    result = solve(GAME, level, "line", state=state, limits=Limits(seconds=30, nodes=None))
    assert result.status == "solved"
    assert result.cost == moves_left(level, state, "line_moves")
