"""The Sokoban solver's hot loops, compiled with numba: the box-goal matching bound and the
fast solver's whole best-first searches, forwards and backwards.

The fast solver bounds every position it generates by the cheapest one-to-one pairing of
boxes with goals (matching.py explains the method). In CPython that assignment took most of
the solver's time on levels of twenty boxes and more; here it is the same shortest
augmenting path algorithm over a numpy table of push distances, compiled to machine code.
``search`` is a best-first search itself (compiled.py drives it): player reach, pushes (or
pulls), PI-corrals, freeze deadlocks, the matching bound (one augmentation per child), a
transposition table and the open list, all over numpy arrays.

Compiled code is cached beside this file (``cache=True``), so only the first run on a new
install pays the compile (a few seconds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.games.sokoban.board import FAR

#: Larger than any sum of push distances the kernel can meet (FAR times 64 x 64 boxes).
INFINITE = 1 << 62


@njit(cache=True)
def assignment(distances, cells):  # pragma: no cover - compiled
    """The least total of ``distances[cells[i], j]`` over perfect matchings of boxes i to
    goals j (int64[cells, goals], int64[boxes]); O(n^3) by shortest augmenting paths."""
    n = cells.shape[0]
    row_potential = np.zeros(n + 1, np.int64)
    column_potential = np.zeros(n + 1, np.int64)
    owner = np.zeros(n + 1, np.int64)
    via = np.zeros(n + 1, np.int64)
    slack = np.empty(n + 1, np.int64)
    used = np.empty(n + 1, np.bool_)
    for row in range(1, n + 1):
        _augment(distances, cells, n, row_potential, column_potential, owner, row, via, slack, used)
    return _matching_total(distances, cells, n, owner)


# -- the best-first searches, compiled -------------------------------------------------------
# Floor squares are numbered 0..n-1 in cell order; a position is its boxes as a bit set of
# those numbers (``words`` uint64 per state) and the lowest-numbered square the player can
# reach. Directions are LURD, so direction d and d ^ 2 are opposite.

#: What ``search`` returns.
RUNNING, FOUND, EXHAUSTED, FULL = 0, 1, 2, 3
#: Slots of the ``counters`` array that ``search`` keeps between calls.
#: CLOSEST is the least h of any position queued so far: how near the search has come;
#: NEAREST is the position with the least h plus SHUT_OUT when (backwards) its player cannot
#: get back to the start's region, and NEAREST_H that sum. FILLED (the plan search, plan.py):
#: the most goals any position queued has filled in the packing order.
(
    STORED, WAITING, EXPANDED, GENERATED, GOAL, LAST, DEPTH, MEET, CLOSEST, NEAREST, NEAREST_H,
    FILLED,
) = range(12)  # fmt: skip
COUNTERS = 19
#: What a player shut out of the start's region adds to a backward position's h when the
#: search picks its nearest position (NEAREST).
SHUT_OUT = 3
#: Added to the heap key of a child that is not novel (see ``seen`` in ``search``).
STALE = 1 << 60
#: A heap key is the priority shifted left by this, or'ed with h (h < FAR < 2**24).
PRIORITY_SHIFT = 24

#: Corral deadlocks (``_corral_dead``): the most boxes a corral's test takes, the positions
#: it may visit before it gives up (no verdict: the corral counts as open), and the slots of
#: the cache of verdicts (a power of two; 9 MB at most, filled as it is used). The plan
#: search's runs share one cache (solver.run_fast): XSokoban 40's six runs, alone, in 9.8 s
#: with 2**20 slots, 10.3 s with 2**18 and 11.2 s with 2**16 (18.1 s with a cache per run).
CORRAL_BOXES = 10
CORRAL_STATES = 256
CORRAL_CACHE = 1 << 20
#: Slots of a corral scratch's ``tally``: the stamp and generation counters, then the dead
#: corrals found (what the live panel reports).
CORRAL_STAMP, CORRAL_GENERATION, CORRAL_DEAD = range(3)


def corral_scratch(squares: int) -> tuple:
    """The arrays ``_corral_dead`` works in, for a level of ``squares`` floor squares (1: a
    search that tests no corrals, which gets a cache of one slot). A verdict is a fact of
    the level (the corral's boxes alone, the player's region, the corral), not of the search
    that asked, so the cache may outlive one search: a restart takes over its scratch."""
    cache = CORRAL_CACHE if squares > 1 else 1
    return (
        np.zeros(squares, np.uint8),  # the corral's boxes alone
        np.zeros(squares, np.int64),  # the player's reach, by stamp
        np.empty(squares, np.int64),  # the reach's stack
        np.zeros(squares, np.uint8),  # the freeze test's boxes under test
        np.empty((CORRAL_STATES + 2, CORRAL_BOXES), np.int64),  # the positions to look at
        np.empty(CORRAL_STATES + 2, np.int64),  # their player squares
        np.zeros(4 * CORRAL_STATES, np.uint64),  # positions seen, by key
        np.zeros(4 * CORRAL_STATES, np.int64),  # the test each slot belongs to
        np.zeros(cache, np.uint64),  # verdict keys
        np.zeros(cache, np.int8),  # verdicts: 1 may open, 2 dead
        np.empty(4 * CORRAL_BOXES, np.int64),  # one position's pushes
        np.empty(CORRAL_BOXES, np.int64),  # the fence boxes and the boxes touching them
        np.zeros(squares, np.int64),  # which squares are in that group, by stamp
        np.zeros(3, np.int64),  # the tally
    )


@njit(cache=True)
def _augment(
    distances, cells, n, row_potential, column_potential, owner, row, via, slack, used
):  # pragma: no cover - compiled
    """Match ``row`` (1-based) along a shortest augmenting path (as ``assignment``)."""
    owner[0] = row
    current = 0
    for column in range(n + 1):
        slack[column] = INFINITE
        used[column] = False
    while True:
        used[current] = True
        matched = owner[current]
        cell = cells[matched - 1]
        base = row_potential[matched]
        delta = INFINITE
        nearest = 0
        for column in range(1, n + 1):
            if not used[column]:
                reduced = distances[cell, column - 1] - base - column_potential[column]
                if reduced < slack[column]:
                    slack[column] = reduced
                    via[column] = current
                if slack[column] < delta:
                    delta = slack[column]
                    nearest = column
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


@njit(cache=True)
def _matching_total(distances, cells, n, owner):  # pragma: no cover - compiled
    total = 0
    for column in range(1, n + 1):
        total += distances[cells[owner[column] - 1], column - 1]
    return total


@njit(cache=True)
def _reach(start, occupied, neighbours, mark, stamp, stack):  # pragma: no cover - compiled
    """Mark the squares the player reaches from ``start`` with ``stamp``; the lowest one."""
    mark[start] = stamp
    stack[0] = start
    top = 1
    low = start
    while top:
        top -= 1
        square = stack[top]
        for direction in range(4):
            next_square = neighbours[square, direction]
            if next_square >= 0 and occupied[next_square] == 0 and mark[next_square] != stamp:
                mark[next_square] = stamp
                stack[top] = next_square
                top += 1
                if next_square < low:
                    low = next_square
    return low


@njit(cache=True, inline="always")
def _floor_shut_off(occupied, mark, stamp):  # pragma: no cover - compiled
    """The free squares the player cannot reach: those neither under a box nor marked
    ``stamp`` by the last ``_reach``."""
    shut_off = 0
    for square in range(occupied.shape[0]):
        if occupied[square] == 0 and mark[square] != stamp:
            shut_off += 1
    return shut_off


@njit(cache=True)
def _frozen(square, occupied, neighbours, dead, goal, assumed):  # pragma: no cover - compiled
    """-1 when the box on ``square`` may still move; else how many boxes frozen with it (it
    included) stand off goal. Boxes under test count as walls (Board._frozen)."""
    assumed[square] = 1
    off_goal = 0
    for axis in range(2):
        before = neighbours[square, axis]
        after = neighbours[square, axis + 2]
        if before < 0 or after < 0 or assumed[before] or assumed[after]:
            continue
        if dead[before] and dead[after]:
            continue
        if occupied[before]:
            held = _frozen(before, occupied, neighbours, dead, goal, assumed)
            if held >= 0:
                off_goal += held
                continue
        if occupied[after]:
            held = _frozen(after, occupied, neighbours, dead, goal, assumed)
            if held >= 0:
                off_goal += held
                continue
        assumed[square] = 0
        return -1
    assumed[square] = 0
    return off_goal + (1 - goal[square])


@njit(cache=True)
def _goals_cut_off(
    cells,
    count,
    occupied,
    neighbours,
    dead,
    goal,
    assumed,
    goal_squares,
    blocked,
    queue,
    table,
    last,
    box_keys,
):  # pragma: no cover - compiled
    """True when the boxes frozen on goals wall off the rest: with them as walls, no
    matching takes every other box to a free goal by pushes. ``cells`` holds the boxes.

    A frozen box never moves again in any solution, so it is a wall from here on; if the
    other boxes cannot be paired with the other goals under the push distances of that
    smaller floor, the position has no solution (a goal room filled in the wrong order).
    ``table`` keeps those distances for the frozen set keyed in ``last[0]`` (``last[1]``
    is 1 once it holds any), so a run of positions with the same frozen boxes pays only
    for the matching."""
    squares = neighbours.shape[0]
    key = np.uint64(0)
    frozen = 0
    for row in range(count):
        square = cells[row]
        blocked[square] = 0
        if goal[square] and _frozen(square, occupied, neighbours, dead, goal, assumed) >= 0:
            blocked[square] = 1
            key ^= box_keys[square]
            frozen += 1
    if frozen == 0 or frozen == count:
        for row in range(count):
            blocked[cells[row]] = 0
        return False
    goals = goal_squares.shape[0]
    if not (last[1] == 1 and last[0] == key):
        for column in range(goals):
            for square in range(squares):
                table[square, column] = FAR
            target = goal_squares[column]
            table[target, column] = 0
            if blocked[target]:
                continue
            # Pull a lone box away from the goal over floor that is not frozen.
            queue[0] = target
            head, tail = 0, 1
            while head < tail:
                square = queue[head]
                head += 1
                for direction in range(4):
                    came = neighbours[square, direction]
                    if came < 0 or blocked[came] or table[came, column] < FAR:
                        continue
                    behind = neighbours[came, direction]
                    if behind < 0 or blocked[behind]:
                        continue
                    table[came, column] = table[square, column] + 1
                    queue[tail] = came
                    tail += 1
        for row in range(count):
            square = cells[row]
            if blocked[square]:
                for column in range(goals):
                    if goal_squares[column] != square:
                        table[square, column] = FAR
        last[0] = key
        last[1] = 1
    cut = assignment(table, cells[:count]) >= FAR
    for row in range(count):
        blocked[cells[row]] = 0
    return cut


@njit(cache=True)
def _corral_dead(
    pocket,
    first,
    fence,
    fences,
    strict,
    start,
    neighbours,
    live,
    goal,
    dead,
    label,
    box_keys,
    player_keys,
    scratch,
):  # pragma: no cover - compiled
    """True when the corral ``pocket`` (squares with ``label == pocket``, the lowest
    ``first``) can never be opened: with its boxes (``fence``: the fence boxes and those
    touching them, _touching) alone on the board and the player at ``start``, no pushes
    get every one of those boxes out of the corral and its fence or onto a goal.

    Taking other boxes away never makes a position harder, so any solution of the real
    position, with the other boxes' pushes left out, is a line of pushes here too; a box
    that leaves the corral and the squares the boxes stood on is taken off the board
    there (it no longer holds anything in), and the line ends with the boxes left all on
    goals. Pushes onto dead squares and freezes off goals are cut, as no solution makes
    them. The test visits at most CORRAL_STATES positions (told apart by 64-bit keys);
    past that it gives no verdict. Verdicts are cached by the boxes, the player's region
    and the corral."""
    (board, mark, stack, assumed, states, players, seen, seen_test, cache_keys, cache_values,
     pushes, _, member, tally) = scratch  # fmt: skip
    width = states.shape[1]
    if fences > width:
        return False
    key = np.uint64(0)
    for index in range(fences):
        board[fence[index]] = 1
        key ^= box_keys[fence[index]]
    tally[CORRAL_STAMP] += 1
    low = _reach(start, board, neighbours, mark, tally[CORRAL_STAMP], stack)
    key ^= player_keys[low] ^ (player_keys[first] * np.uint64(0x9E3779B97F4A7C15))
    slot = key & np.uint64(cache_keys.shape[0] - 1)
    if cache_keys[slot] == key and cache_values[slot] != 0:
        for index in range(fences):
            board[fence[index]] = 0
        return cache_values[slot] == 2
    tally[CORRAL_GENERATION] += 1
    test = tally[CORRAL_GENERATION]
    # The boxes' squares count as inside, with the corral.
    tally[CORRAL_STAMP] += 1
    inside = tally[CORRAL_STAMP]
    mask = np.uint64(seen.shape[0] - 1)
    for index in range(fences):
        board[fence[index]] = 0
        member[fence[index]] = inside
        states[0, index] = fence[index]
    players[0] = low
    probe = key & mask
    seen[probe] = key
    seen_test[probe] = test
    visited = 1
    top = 1
    spare = states.shape[0] - 1  # the row that holds the position being expanded
    verdict = 2
    while top > 0 and verdict == 2:
        top -= 1
        home = 0
        left = 0
        state_key = np.uint64(0)
        for index in range(fences):
            square = states[top, index]
            states[spare, index] = square
            if square >= 0:
                board[square] = 1
                home += goal[square]
                left += 1
                state_key ^= box_keys[square]
        if home == left:
            verdict = 1
        else:
            tally[CORRAL_STAMP] += 1
            stamp = tally[CORRAL_STAMP]
            _reach(players[top], board, neighbours, mark, stamp, stack)
            if strict < 2:
                for square in range(neighbours.shape[0]):
                    if mark[square] == stamp and label[square] == pocket:
                        verdict = 1
                        break
        if verdict == 2:
            # The pushes, found before any child's reach overwrites the marks.
            moves = 0
            for index in range(fences):
                box = states[spare, index]
                if box < 0:
                    continue
                for direction in range(4):
                    target = neighbours[box, direction]
                    behind = neighbours[box, direction ^ 2]
                    if target < 0 or behind < 0 or board[target] or not live[target]:
                        continue
                    if mark[behind] != stamp:
                        continue
                    pushes[moves] = index * 4 + direction
                    moves += 1
            for move in range(moves):
                index = pushes[move] >> 2
                direction = pushes[move] & 3
                box = states[spare, index]
                target = neighbours[box, direction]
                out = label[target] != pocket and member[target] != inside
                board[box] = 0
                if not out:
                    board[target] = 1
                    if _frozen(target, board, neighbours, dead, goal, assumed) > 0:
                        board[box] = 1
                        board[target] = 0
                        continue
                tally[CORRAL_STAMP] += 1
                child_low = _reach(box, board, neighbours, mark, tally[CORRAL_STAMP], stack)
                child_key = state_key ^ box_keys[box] ^ player_keys[child_low]
                if not out:
                    child_key ^= box_keys[target]
                probe = child_key & mask
                fresh = True
                while seen_test[probe] == test:
                    if seen[probe] == child_key:
                        fresh = False
                        break
                    probe = (probe + np.uint64(1)) & mask
                if fresh:
                    visited += 1
                    if visited > CORRAL_STATES:
                        verdict = 1
                    else:
                        seen[probe] = child_key
                        seen_test[probe] = test
                        for other in range(fences):
                            states[top, other] = states[spare, other]
                        # A box that gets out is taken off the board.
                        states[top, index] = -1 if out else target
                        players[top] = child_low
                        top += 1
                board[box] = 1
                board[target] = 0
                if verdict != 2:
                    break
        for index in range(fences):
            if states[spare, index] >= 0:
                board[states[spare, index]] = 0
    cache_keys[slot] = key
    cache_values[slot] = verdict
    if verdict == 2:
        tally[CORRAL_DEAD] += 1
    return verdict == 2


@njit(cache=True)
def _touching(fence, fences, occupied, neighbours, scratch):  # pragma: no cover - compiled
    """The fence boxes and every box joined to them by a chain of boxes side by side, into
    the scratch's group (at most CORRAL_BOXES; the fence alone when it is larger); how
    many. A corral's test with those boxes too finds more dead corrals: a fence box held by
    a box beside it can no longer get out of the way."""
    (_, _, _, _, _, _, _, _, _, _, _, group, member, tally) = scratch
    if fences > CORRAL_BOXES:
        return fences  # too many for the test
    tally[CORRAL_STAMP] += 1
    stamp = tally[CORRAL_STAMP]
    for index in range(fences):
        group[index] = fence[index]
        member[fence[index]] = stamp
    count = fences
    at = 0
    while at < count:
        box = group[at]
        at += 1
        for direction in range(4):
            near = neighbours[box, direction]
            if near >= 0 and occupied[near] and member[near] != stamp:
                if count == CORRAL_BOXES:
                    return count
                member[near] = stamp
                group[count] = near
                count += 1
    return count


@njit(cache=True)
def _corral(
    occupied,
    neighbours,
    live,
    goal,
    mark,
    stamp,
    label,
    fence_mark,
    next_label,
    stack,
    fence,
    best,
    candidate,
    player,
    dead,
    box_keys,
    player_keys,
    scratch,
    deadlocks,
):  # pragma: no cover - compiled
    """The pushes into the smallest PI-corral, as (box square * 4 + direction) in ``best``;
    returns (how many, or -1 when there is no PI-corral; the next free label). Zero pushes
    means the position is dead. Board.corral_pushes explains the reasoning; this is it over
    squares: ``mark == stamp`` is the player's reach, ``label`` numbers the pockets. With
    ``deadlocks``, a corral that can never be opened (``_corral_dead``, the player on
    ``player``) makes the position dead too."""
    squares = neighbours.shape[0]
    found = -1
    base = next_label
    for first in range(squares):
        if occupied[first] or mark[first] == stamp or label[first] >= base:
            continue
        pocket = next_label
        next_label += 1
        label[first] = pocket
        stack[0] = first
        size = 1
        has_goal = goal[first] == 1
        fences = 0
        # Flood the pocket; the stack keeps every square of it (below ``size``).
        at = 0
        while at < size:
            square = stack[at]
            at += 1
            for direction in range(4):
                near = neighbours[square, direction]
                if near < 0:
                    continue
                if occupied[near]:
                    if fence_mark[near] != pocket:
                        fence_mark[near] = pocket
                        fence[fences] = near
                        fences += 1
                elif mark[near] != stamp and label[near] != pocket:
                    label[near] = pocket
                    stack[size] = near
                    size += 1
                    has_goal = has_goal or goal[near] == 1
        off_goal = False
        for index in range(fences):
            if not goal[fence[index]]:
                off_goal = True
        if not (has_goal or off_goal):
            continue
        if deadlocks and _corral_dead(
            pocket, first, scratch[11], _touching(fence, fences, occupied, neighbours, scratch),
            deadlocks, player, neighbours, live, goal, dead, label, box_keys,
            player_keys, scratch,
        ):  # fmt: skip
            return 0, next_label
        count = 0
        valid = True
        for index in range(fences):
            box = fence[index]
            for direction in range(4):
                target = neighbours[box, direction]
                source = neighbours[box, direction ^ 2]
                target_in = target >= 0 and label[target] == pocket
                stuck_source = source < 0 or label[source] == pocket or fence_mark[source] == pocket
                if target_in:
                    if not live[target]:
                        continue
                    if source >= 0 and mark[source] == stamp:
                        candidate[count] = box * 4 + direction
                        count += 1
                    elif not stuck_source:
                        valid = False
                        break
                else:
                    stuck_target = target < 0 or not live[target] or fence_mark[target] == pocket
                    if not stuck_target and not stuck_source:
                        valid = False
                        break
            if not valid:
                break
        if valid and (found < 0 or count < found):
            found = count
            for index in range(count):
                best[index] = candidate[index]
            if found == 0:
                break
    return found, next_label


@njit(cache=True)
def _before(keys, ids, a, b):  # pragma: no cover - compiled
    return keys[a] < keys[b] or (keys[a] == keys[b] and ids[a] < ids[b])


@njit(cache=True)
def _heap_push(keys, ids, size, key, state):  # pragma: no cover - compiled
    at = size
    keys[at] = key
    ids[at] = state
    while at > 0:
        up = (at - 1) >> 1
        if _before(keys, ids, at, up):
            keys[at], keys[up] = keys[up], keys[at]
            ids[at], ids[up] = ids[up], ids[at]
            at = up
        else:
            break


@njit(cache=True)
def _heap_pop(keys, ids, size):  # pragma: no cover - compiled
    """Remove the first entry of a heap of ``size`` entries; its state."""
    top = ids[0]
    size -= 1
    keys[0] = keys[size]
    ids[0] = ids[size]
    at = 0
    while True:
        left = 2 * at + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _before(keys, ids, left + 1, left):
            best = left + 1
        if _before(keys, ids, best, at):
            keys[at], keys[best] = keys[best], keys[at]
            ids[at], ids[best] = ids[best], ids[at]
            at = best
        else:
            break
    return top


@njit(cache=True)
def _find(
    words, player, hashes, table, key_hash, query, query_player
):  # pragma: no cover - compiled
    """The state with these boxes and player square, or -(slot + 1) for the empty slot where
    it would go."""
    mask = table.shape[0] - 1
    slot = key_hash & mask
    width = words.shape[1]
    while True:
        entry = table[slot]
        if entry == 0:
            return -(np.int64(slot) + 1)
        state = entry - 1
        if hashes[state] == key_hash and player[state] == query_player:
            same = True
            for word in range(width):
                if words[state, word] != query[word]:
                    same = False
                    break
            if same:
                return state
        slot = (slot + 1) & mask


@njit(cache=True)
def box_hash(query, box_keys):  # pragma: no cover - compiled
    """The Zobrist hash of a bit set of boxes."""
    value = np.uint64(0)
    for word in range(query.shape[0]):
        bits = query[word]
        square = word * 64
        while bits:
            if bits & np.uint64(1):
                value ^= box_keys[square]
            bits >>= np.uint64(1)
            square += 1
    return value


@njit(cache=True)
def lookup(
    words, player, hashes, table, box_keys, player_keys, query, query_player
):  # pragma: no cover - compiled
    """The state of a ``search`` table with these boxes and player square, or -1."""
    key_hash = box_hash(query, box_keys) ^ player_keys[query_player]
    found = _find(words, player, hashes, table, key_hash, query, query_player)
    return found if found >= 0 else -1


@njit(cache=True)
def matching_arrays(boxes):  # pragma: no cover - compiled
    """The arrays ``_match`` and ``_rematch`` work in, for up to ``boxes`` boxes: the
    expanded position's potentials and owners, a child's copy of them, the child's boxes,
    and the augmentation's own arrays."""
    return (
        np.zeros(boxes + 1, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.empty(boxes, np.int64),
        np.zeros(boxes + 1, np.int64),
        np.empty(boxes + 1, np.int64),
        np.empty(boxes + 1, np.bool_),
    )


@njit(cache=True, inline="always")
def _match(distances, cells, count, arrays):  # pragma: no cover - compiled
    """The full matching of the expanded position's boxes (``cells[:count]``), kept in
    ``arrays`` for ``_rematch``."""
    row_potential, column_potential, owner, _, _, _, _, via, slack, used = arrays
    for column in range(count + 1):
        row_potential[column] = 0
        column_potential[column] = 0
        owner[column] = 0
    for line in range(1, count + 1):
        _augment(distances, cells, count, row_potential, column_potential, owner, line, via,
                 slack, used)  # fmt: skip


@njit(cache=True, inline="always")
def _rematch(distances, cells, count, row, target, arrays):  # pragma: no cover - compiled
    """The matching bound of the child whose box ``row`` moved to ``target``: one
    augmentation from the expanded position's matching (``_match``), as only that row
    changed."""
    (row_potential, column_potential, owner, child_rows, child_columns, child_owner,
     child_cells, via, slack, used) = arrays  # fmt: skip
    for column in range(count + 1):
        child_rows[column] = row_potential[column]
        child_columns[column] = column_potential[column]
        child_owner[column] = owner[column]
    for line in range(count):
        child_cells[line] = cells[line]
    child_cells[row] = target
    freed = 1
    while child_owner[freed] != row + 1:
        freed += 1
    child_owner[freed] = 0
    best = INFINITE
    for column in range(1, count + 1):
        reduced = distances[target, column - 1] - child_columns[column]
        if reduced < best:
            best = reduced
    child_rows[row + 1] = best
    if distances[target, freed - 1] - child_columns[freed] == best:
        child_owner[freed] = row + 1
    else:
        _augment(distances, child_cells, count, child_rows, child_columns, child_owner,
                 row + 1, via, slack, used)  # fmt: skip
    return _matching_total(distances, child_cells, count, child_owner)


@njit(cache=True, inline="always")
def _lay_out(words, state, occupied, cells, row_of, goal):  # pragma: no cover - compiled
    """Put the boxes of ``state`` on ``occupied``, their squares into ``cells`` and each
    one's row into ``row_of``; how many there are, and how many stand on goals."""
    count = 0
    on_goal = 0
    for word in range(words.shape[1]):
        bits = words[state, word]
        square = word * 64
        while bits:
            if bits & np.uint64(1):
                occupied[square] = 1
                cells[count] = square
                row_of[square] = count
                count += 1
                on_goal += goal[square]
            bits >>= np.uint64(1)
            square += 1
    return count, on_goal


@njit(cache=True, inline="always")
def _pushes(cells, count, occupied, neighbours, live, mark, stamp, moves):  # pragma: no cover
    """Every push the player (``mark == stamp``) can make, as ``row * 4 + direction``
    into ``moves``, pushes onto dead squares left out; how many."""
    found = 0
    for row in range(count):
        box = cells[row]
        for direction in range(4):
            target = neighbours[box, direction]
            behind = neighbours[box, direction ^ 2]
            if target < 0 or behind < 0 or not live[target] or occupied[target]:
                continue
            if mark[behind] != stamp:
                continue
            moves[found] = row * 4 + direction
            found += 1
    return found


@njit(cache=True, inline="always")
def _stuck(
    target,
    row,
    box,
    cells,
    count,
    occupied,
    neighbours,
    dead,
    goal,
    assumed,
    goal_squares,
    blocked,
    stack,
    walled,
    walled_for,
    box_keys,
):  # pragma: no cover - compiled
    """True when the box pushed from ``box`` to ``target`` (``occupied`` shows it there)
    freezes off a goal, or freezes on one and so walls the other goals off
    (``_goals_cut_off``)."""
    stuck = _frozen(target, occupied, neighbours, dead, goal, assumed)
    if stuck == 0:
        cells[row] = target
        if _goals_cut_off(
            cells, count, occupied, neighbours, dead, goal, assumed, goal_squares, blocked,
            stack, walled, walled_for, box_keys,
        ):  # fmt: skip
            stuck = 1
        cells[row] = box
    return stuck > 0


@njit(cache=True, inline="always")
def _store(
    words,
    player,
    parent,
    push,
    depth,
    hashes,
    table,
    counters,
    query,
    key_hash,
    low,
    state,
    record,
    steps,
):  # pragma: no cover - compiled
    """The new state for the position ``query`` (player's lowest square ``low``), reached
    from ``state`` by ``record``, ``steps`` deep; -1 when the table already has it."""
    found = _find(words, player, hashes, table, key_hash, query, low)
    if found >= 0:
        return -1
    child = counters[STORED]
    counters[STORED] = child + 1
    table[-found - 1] = child + 1
    for word in range(words.shape[1]):
        words[child, word] = query[word]
    player[child] = low
    parent[child] = state
    push[child] = record
    depth[child] = steps
    hashes[child] = key_hash
    counters[GENERATED] += 1
    return child


@njit(cache=True, inline="always")
def _child(
    state,
    box,
    target,
    walker,
    record,
    steps,
    occupied,
    neighbours,
    mark,
    stamp,
    stack,
    query,
    parent_hash,
    box_keys,
    player_keys,
    words,
    player,
    parent,
    push,
    depth,
    hashes,
    table,
    counters,
):  # pragma: no cover - compiled
    """The child of ``state`` where a box has gone from ``box`` to ``target`` and the player
    stands in ``walker``'s region, kept (``_store``) with ``record`` at depth ``steps``: its
    state (-1 when the table has it already, ``occupied`` then as it was), the player's
    lowest square and its hash; ``occupied`` and ``query`` show it (the caller puts the box
    back). With ``_ends`` and ``_stuck``, the one child loop of ``search`` and
    plan.plan_search."""
    occupied[box] = 0
    occupied[target] = 1
    low = _reach(walker, occupied, neighbours, mark, stamp, stack)
    for word in range(words.shape[1]):
        query[word] = words[state, word]
    query[box >> 6] ^= np.uint64(1) << np.uint64(box & 63)
    query[target >> 6] ^= np.uint64(1) << np.uint64(target & 63)
    key_hash = parent_hash ^ box_keys[box] ^ box_keys[target] ^ player_keys[low]
    child = _store(
        words, player, parent, push, depth, hashes, table, counters, query, key_hash, low,
        state, record, steps,
    )  # fmt: skip
    if child < 0:
        occupied[box] = 1
        occupied[target] = 0
    return child, low, key_hash


@njit(cache=True, inline="always")
def _ends(
    child,
    box,
    target,
    low,
    key_hash,
    query,
    on_goal,
    count,
    goal,
    counters,
    other_words,
    other_player,
    other_hashes,
    other_table,
    reverse,
    target_words,
    target_player,
    target_hash,
):  # pragma: no cover - compiled
    """True when ``child`` (from ``_child``) ends the search, with counters[GOAL] (and
    counters[MEET]) set: it is the goal (forwards every box on a goal, ``on_goal`` of the
    parent's ``count`` boxes; backwards the start, ``target_*``), or the other direction's
    table (``other_*``) has it."""
    if reverse:
        if key_hash == target_hash and low == target_player:
            same = True
            for word in range(query.shape[0]):
                if query[word] != target_words[word]:
                    same = False
            if same:
                counters[GOAL] = child
                return True
    elif on_goal - goal[box] + goal[target] == count:
        counters[GOAL] = child
        return True
    met = _find(other_words, other_player, other_hashes, other_table, key_hash, query, low)
    if met >= 0:
        counters[GOAL] = child
        counters[MEET] = met
        return True
    return False


@njit(cache=True)
def expansion_arrays(live, boxes, width):  # pragma: no cover - compiled
    """The arrays a search (``search``, plan.plan_search) expands its positions in, for a
    board of ``live.shape[0]`` squares, ``boxes`` boxes and ``width`` words a position:
    the boxes on the board, the freeze test's assumptions, the dead squares, the reach's
    marks and stack, the boxes' squares, the pushes, the child's words, the matching's
    arrays, the corrals' labels, fence marks, fence and pushes, the candidate corral
    pushes, each square's box row, and the goals-walled-off test's arrays."""
    squares = live.shape[0]
    dead = np.zeros(squares, np.uint8)
    for square in range(squares):
        dead[square] = 1 - live[square]
    return (
        np.zeros(squares, np.uint8),
        np.zeros(squares, np.uint8),
        dead,
        np.zeros(squares, np.int64),
        np.empty(squares, np.int64),
        np.empty(boxes, np.int64),
        np.empty(4 * boxes, np.int64),
        np.empty(width, np.uint64),
        matching_arrays(boxes),
        np.zeros(squares, np.int64),
        np.zeros(squares, np.int64),
        np.empty(boxes, np.int64),
        np.empty(4 * boxes, np.int64),
        np.empty(4 * boxes, np.int64),
        np.zeros(squares, np.int64),
        np.zeros(squares, np.uint8),
        np.empty((squares, boxes), np.int64),
        np.zeros(2, np.uint64),
    )


@njit(cache=True)
def search(
    neighbours,
    live,
    goal,
    distances,
    box_keys,
    player_keys,
    goal_squares,
    seen,
    shuts,
    penalty,
    weight,
    corrals,
    reverse,
    words,
    player,
    parent,
    push,
    depth,
    hashes,
    table,
    heap_keys,
    heap_ids,
    counters,
    other_words,
    other_player,
    other_hashes,
    other_table,
    target_words,
    target_player,
    target_hash,
    scratch,
    deadlocks,
    mobility,
    budget,
    heat,  # int64[squares + 1]: boxes per square over the positions expanded, then those
    counting,  # whether to add to ``heat`` (webapp.search.heat)
):  # pragma: no cover - compiled
    """Weighted best-first by pushes, or by pulls when ``reverse`` (priority g + weight * h,
    h the matching bound; ties by h, then first come; with novelty, ``seen`` of shape
    (bands, squares), novel children before all others; with ``penalty``, each box on a
    room goal that shuts off a goal still empty counts ``penalty`` more in h, for the order
    only; ``shuts`` rows: the goal, then the goals it shuts off, padded with -1;
    backwards, a player shut out of the start's region counts ``penalty``; with
    ``mobility``, each free square the player cannot reach after the push counts that much
    more in the priority, ``_floor_shut_off``): at most
    ``budget`` expansions, then RUNNING; FOUND (the state in counters[GOAL]), EXHAUSTED
    when nothing is left to expand, FULL when the arrays are.

    Forwards the goal is every box on a goal; backwards it is the target position (the
    start). A child found in the other direction's table (``other_*``) is FOUND too, with
    that state in counters[MEET]. Forwards, dead squares, PI-corrals, freeze deadlocks and
    goals walled off by boxes frozen on goals (``goal_squares``: each distance column's goal)
    prune, and with ``deadlocks`` corrals that can never be opened (``_corral_dead``, its
    ``scratch`` kept between calls); both ways, positions no matching can finish. Every
    position generated is kept in ``table`` (open addressing, ids + 1) so none is expanded
    twice. A pull's record is the push that undoes it."""
    width = words.shape[1]
    capacity = words.shape[0]
    boxes = distances.shape[1]
    (occupied, assumed, dead, mark, stack, cells, moves, query, matching, label, fence_mark,
     fence, corral_moves, candidate, row_of, blocked, walled, walled_for) = expansion_arrays(
        live, boxes, width
    )  # fmt: skip
    next_label = 1
    stamp = 0
    done = 0
    while done < budget:
        waiting = counters[WAITING]
        if waiting == 0:
            return EXHAUSTED
        if counters[STORED] + 4 * boxes + 1 > capacity:
            return FULL
        state = _heap_pop(heap_keys, heap_ids, waiting)
        counters[WAITING] = waiting - 1
        counters[EXPANDED] += 1
        counters[LAST] = state
        done += 1
        g = depth[state]
        counters[DEPTH] = g
        count, on_goal = _lay_out(words, state, occupied, cells, row_of, goal)
        if counting:
            for row in range(count):
                heat[cells[row]] += 1
            heat[len(heat) - 1] += 1
        stamp += 1
        _reach(player[state], occupied, neighbours, mark, stamp, stack)
        moves_found = -1
        if reverse:
            moves_found = 0
            for row in range(count):
                box = cells[row]
                for direction in range(4):
                    # The player on the box's side ``direction`` steps on; the box follows.
                    towards = neighbours[box, direction]
                    if towards < 0 or occupied[towards] or mark[towards] != stamp:
                        continue
                    beyond = neighbours[towards, direction]
                    if beyond < 0 or occupied[beyond]:
                        continue
                    moves[moves_found] = row * 4 + direction
                    moves_found += 1
        elif corrals:
            moves_found, next_label = _corral(
                occupied, neighbours, live, goal, mark, stamp, label, fence_mark, next_label,
                stack, fence, corral_moves, candidate, player[state], dead, box_keys, player_keys,
                scratch, deadlocks,
            )  # fmt: skip
            for index in range(moves_found):
                moves[index] = row_of[corral_moves[index] >> 2] * 4 + (corral_moves[index] & 3)
        if moves_found < 0:
            moves_found = _pushes(cells, count, occupied, neighbours, live, mark, stamp, moves)
        matched = False
        parent_hash = hashes[state] ^ player_keys[player[state]]
        for index in range(moves_found):
            row = moves[index] >> 2
            direction = moves[index] & 3
            box = cells[row]
            target = neighbours[box, direction]
            stamp += 1
            if reverse:
                walker = neighbours[target, direction]
                record = target * 4 + (direction ^ 2)
            else:
                walker = box
                record = box * 4 + direction
            child, low, key_hash = _child(
                state, box, target, walker, record, g + 1, occupied, neighbours, mark, stamp,
                stack, query, parent_hash, box_keys, player_keys, words, player, parent, push,
                depth, hashes, table, counters,
            )  # fmt: skip
            if child < 0:
                continue
            if _ends(
                child, box, target, low, key_hash, query, on_goal, count, goal, counters,
                other_words, other_player, other_hashes, other_table, reverse, target_words,
                target_player, target_hash,
            ):  # fmt: skip
                return FOUND
            if not reverse and _stuck(
                target, row, box, cells, count, occupied, neighbours, dead, goal, assumed,
                goal_squares, blocked, stack, walled, walled_for, box_keys,
            ):  # fmt: skip
                occupied[box] = 1
                occupied[target] = 0
                continue
            if not matched:
                _match(distances, cells, count, matching)
                matched = True
            h = _rematch(distances, cells, count, row, target, matching)
            # Backwards, the player shut out of the start's region: the boxes may be near
            # their start squares, but the last pulls cannot leave the player there.
            shut_out = 1 if reverse and mark[target_player] != stamp else 0
            penalised = 0
            if penalty > 0 and not reverse:
                # Boxes on room goals that shut off another goal still empty.
                for pair in range(shuts.shape[0]):
                    if occupied[shuts[pair, 0]]:
                        for column in range(1, shuts.shape[1]):
                            square = shuts[pair, column]
                            if square < 0:
                                break
                            if not occupied[square]:
                                penalised += 1
                                break
            elif penalty > 0:
                penalised = shut_out
            # The child's reach is still marked ``stamp``: the floor it leaves out.
            shut_off = _floor_shut_off(occupied, mark, stamp) if mobility > 0 else 0
            occupied[box] = 1
            occupied[target] = 0
            if h >= FAR:
                continue
            if h < counters[CLOSEST]:
                counters[CLOSEST] = h
            if h + SHUT_OUT * shut_out < counters[NEAREST_H]:
                counters[NEAREST_H] = h + SHUT_OUT * shut_out
                counters[NEAREST] = child
            key = g + 1 + weight * (h + penalty * penalised) + mobility * shut_off
            key = key << PRIORITY_SHIFT | h
            if seen.shape[0] > 1:
                # Novelty: a child that puts a box, or the player, where no position of the
                # same h has had one yet goes before every child that does not.
                band = min(h, seen.shape[0] - 1)
                if seen[band, target] & 1 and seen[band, low] & 2:
                    key |= STALE
                seen[band, target] |= 1
                seen[band, low] |= 2
            _heap_push(heap_keys, heap_ids, counters[WAITING], key, child)
            counters[WAITING] += 1
        for row in range(count):
            occupied[cells[row]] = 0
    return RUNNING


@njit(cache=True)
def rehash(hashes, stored, table):  # pragma: no cover - compiled
    """Put states 0..stored-1 into an empty ``table``."""
    mask = table.shape[0] - 1
    for state in range(stored):
        slot = hashes[state] & mask
        while table[slot] != 0:
            slot = (slot + 1) & mask
        table[slot] = state + 1
