"""Readying the sliding puzzle's compiled kernels before a player's first solve needs them."""

from __future__ import annotations

from webapp.games.sliding.fast import warm_up_beam
from webapp.games.sliding.pdb import forget_joined, pdb_idastar
from webapp.search import Limits, Monitor


def warm_up() -> None:
    """Compile (or load from the cache) every kernel through the code that calls it, on tiny
    inputs, so a player's first solve does not wait for the compiler."""
    warm_up_beam()
    empty = [bytes(16**6), bytes(16**6), bytes(16**3)]  # all zero: any board looks solved
    one_move = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15)
    pdb_idastar(one_move, empty, Monitor(Limits(), None))
    forget_joined()  # the 32 MB of zeros are not worth keeping
