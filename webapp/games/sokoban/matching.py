"""Minimum-cost assignment of boxes to goals (the Hungarian method), a Sokoban lower bound.

Every box must end on its own goal, so the cheapest one-to-one pairing of boxes with goals,
each pair costing the pushes the box needs alone, never overestimates the pushes left.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The potentials and matching an assignment ends with: (row potentials, column potentials,
#: owner) with owner[j] the 1-based row matched to column j; index 0 is bookkeeping.
Duals = tuple[list[int], list[int], list[int]]


def _add_row(costs: Sequence[Sequence[int]], row: int, duals: Duals) -> None:
    """Match ``row`` (1-based) along a shortest augmenting path, keeping the potentials
    feasible; the other rows must already be matched."""
    row_potential, column_potential, owner = duals
    n = len(costs)
    inf = float("inf")
    via = [0] * (n + 1)
    slack = [inf] * (n + 1)
    used = [False] * (n + 1)
    columns = range(1, n + 1)
    owner[0] = row
    current = 0
    while True:
        used[current] = True
        matched = owner[current]
        line = costs[matched - 1]
        base = row_potential[matched]
        delta = inf
        nearest = 0
        for column in columns:
            if not used[column]:
                reduced = line[column - 1] - base - column_potential[column]
                if reduced < slack[column]:
                    slack[column] = reduced
                    via[column] = current
                if slack[column] < delta:
                    delta = slack[column]
                    nearest = column
        if delta:
            for column in range(n + 1):
                if used[column]:
                    row_potential[owner[column]] += delta
                    column_potential[column] -= delta
                else:
                    slack[column] -= delta
        current = nearest
        if owner[current] == 0:
            break
    while current:
        previous = via[current]
        owner[current] = owner[previous]
        current = previous


def _total(costs: Sequence[Sequence[int]], owner: list[int]) -> int:
    return sum(costs[owner[column] - 1][column - 1] for column in range(1, len(costs) + 1))


def solve_assignment(costs: Sequence[Sequence[int]]) -> tuple[int, Duals]:
    """The least total cost of a perfect matching of rows to columns (a square matrix), with
    the potentials that prove it. Shortest augmenting paths, O(n^3)."""
    n = len(costs)
    row_potential = [0] * (n + 1)
    owner = [0] * (n + 1)
    waiting = []
    # Start from each row's cheapest entry; rows whose cheapest column is still free take it
    # at once, so only conflicting rows need an augmenting path.
    for row, line in enumerate(costs, 1):
        cheapest = min(line)
        row_potential[row] = cheapest
        column = line.index(cheapest) + 1
        if owner[column]:
            waiting.append(row)
        else:
            owner[column] = row
    duals: Duals = (row_potential, [0] * (n + 1), owner)
    for row in waiting:
        _add_row(costs, row, duals)
    return _total(costs, owner), duals


def assignment_cost(costs: Sequence[Sequence[int]]) -> int:
    """The least total cost of a perfect matching of rows to columns."""
    return solve_assignment(costs)[0]


def reassign(costs: Sequence[Sequence[int]], duals: Duals, row: int) -> int:
    """The least total cost after only ``row`` (0-based) of the matrix changed, starting from
    the optimal ``duals`` of the old matrix: one augmentation, O(n^2). ``duals`` is updated."""
    row_potential, column_potential, owner = duals
    row += 1
    line = costs[row - 1]
    freed = owner.index(row, 1)
    owner[freed] = 0
    # The cheapest reduced entry of the new row keeps every potential feasible.
    best = min(line[j - 1] - column_potential[j] for j in range(1, len(costs) + 1))
    row_potential[row] = best
    if line[freed - 1] - column_potential[freed] == best:
        owner[freed] = row
    else:
        _add_row(costs, row, duals)
    return _total(costs, owner)
