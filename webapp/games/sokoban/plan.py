"""The plan search: forwards, greedy on filling the goals in the packing order.

Where goals must be filled in an order (a goal room with one door, a dead end of goals), the
matching bound cannot tell a good position from a hopeless one: it counts a box home as soon
as it stands on any goal. The packing order (packing.py) says which goals come first. The
plan search makes that order its first concern, as the packing-order search of YASS does:

- **Score.** Each goal filled in the order (every goal of the phases already whole, and the
  goals filled so far of the phase being filled) takes PLAN_GOAL off a position's score; then
  come the pushes made so far, the boxes' distances to their nearest goals, and how far the
  box just pushed is from the nearest empty goal of the phase being filled (NEAREST_WEIGHT a
  push, by ``plan``: the push distances with the boxes of earlier phases that are frozen by
  then as walls; UNREACHED when it cannot get to one).
- **Pushes that bring a box nearer** an empty goal of that phase do not count: a box taken
  to its goal in one go costs one push, however far it goes (``cost``).
- **Dives.** A child no worse than its parent and than anything waiting is expanded next,
  without queueing: the search follows a box while it gains. The pushed box's pushes come
  first among the children.
- **Corrals.** A push into a PI-corral keeps its parent's score when it would be worse:
  opening the corral must come sooner or later, and it should not wait behind everything.
- **Open list.** Buckets by score, last in first out; every PLAN_ESCAPE-th pick comes from a
  rover that walks up the buckets, so a search that went wrong early still looks elsewhere.

A greedy search walks into every deadlock its tests miss and then works through all that
follows, so it runs the strict corral test (``kernels._corral_dead`` with ``strict``): a
corral whose boxes, with those touching them, can never all get out or home ends the position.

The rest is the fast solver's: the transposition table, dead squares, freeze deadlocks, goals
walled off, PI-corral pruning, a matching bound that finds positions no matching can finish,
and meeting the backward search's table. Every cut is sound, so a plan search that runs dry
proves the level unsolvable.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.games.sokoban.board import FAR
from webapp.games.sokoban.kernels import (
    CLOSEST,
    DEPTH,
    EXHAUSTED,
    EXPANDED,
    FILLED,
    FOUND,
    FULL,
    LAST,
    RUNNING,
    STORED,
    WAITING,
    _child,
    _corral,
    _ends,
    _lay_out,
    _match,
    _pushes,
    _reach,
    _rematch,
    _stuck,
    expansion_arrays,
)

#: Buckets of the open list: scores are clamped into 0..PLAN_BUCKETS - 1.
PLAN_BUCKETS = 1 << 15
#: Every PLAN_ESCAPE-th pick comes from the rover bucket instead of the best one.
PLAN_ESCAPE = 8
#: What a goal filled in the packing order takes off the score.
PLAN_GOAL = 32
#: What each push between the box just pushed and the phase's nearest empty goal adds, and
#: what it adds when that box can get to none of them.
NEAREST_WEIGHT = 2
UNREACHED = 8
#: Slots of the counters array (kernels.COUNTERS) the open list keeps between calls: the
#: lowest bucket that may hold a state, the rover's bucket, the picks so far, the bucket of
#: the last pick, and the state a dive goes on with (+ 1; 0 for none) and its score; then
#: the expansions made when the most goals filled in order (kernels.FILLED) last rose.
LOWEST, ROVER, PICKS, PICKED, DIVING, DIVE_SCORE, FILLED_AT = 12, 13, 14, 15, 16, 17, 18
#: What ``plan_search`` returns, besides kernels' statuses, when it has made ``stall``
#: expansions since a position filled more goals in order than any before it.
STALLED = 4
#: A state's ``cost``: the pushes it counts in its low bits, the phase being filled above.
PHASE_SHIFT = 20
PUSHES = (1 << PHASE_SHIFT) - 1


@njit(cache=True)
def _advance(phases, release, phase_of, before, occupied, total, phase, box):  # pragma: no cover
    """The phase being filled after the push of the box from ``box`` (``occupied`` after
    it), its parent's being ``phase`` (phases.shape[0] when all are whole), and the targets
    not yet filled in order. A box leaving a target of an earlier phase takes the search
    back to that phase, unless it leaves a parking square whose box is due to go on to its
    goal by now (``release``); then every whole phase is passed. ``before[phase]`` counts
    the targets of the phases before it."""
    last = phases.shape[0]
    left = phase_of[box]
    if 0 <= left < phase and not (0 <= release[box] <= phase):
        phase = left
    filled = 0
    while phase < last:
        filled = 0
        whole = True
        for column in range(phases.shape[1]):
            square = phases[phase, column]
            if square < 0:
                break
            if occupied[square]:
                filled += 1
            else:
                whole = False
        if not whole:
            break
        phase += 1
        filled = 0
    return total - before[phase] - filled, phase


@njit(cache=True)
def _take(heads, links, counters):  # pragma: no cover - compiled
    """The next state to expand: the last one put in the lowest bucket, or every
    PLAN_ESCAPE-th time the last one in the rover's next bucket up (the rover wraps round to
    the lowest). Its bucket goes to counters[PICKED]."""
    picks = counters[PICKS] + 1
    counters[PICKS] = picks
    bucket = counters[LOWEST]
    while heads[bucket] == 0:
        bucket += 1
    counters[LOWEST] = bucket
    if picks % PLAN_ESCAPE == 0:
        rover = counters[ROVER] + 1
        while rover < heads.shape[0] and heads[rover] == 0:
            rover += 1
        if rover >= heads.shape[0]:
            rover = bucket
        counters[ROVER] = rover
        bucket = rover
    state = heads[bucket] - 1
    heads[bucket] = links[state]
    counters[PICKED] = bucket
    return state


@njit(cache=True)
def _put(heads, links, counters, state, bucket):  # pragma: no cover - compiled
    links[state] = heads[bucket]
    heads[bucket] = state + 1
    if bucket < counters[LOWEST]:
        counters[LOWEST] = bucket
    counters[WAITING] += 1


@njit(cache=True)
def _lowest(heads, counters):  # pragma: no cover - compiled
    """The lowest bucket that holds a state (the last bucket when none does)."""
    lowest = counters[LOWEST]
    while lowest < heads.shape[0] - 1 and heads[lowest] == 0:
        lowest += 1
    counters[LOWEST] = lowest
    return lowest


@njit(cache=True)
def _plan_bonus(phases, phase, plan, column_of, occupied, box, target):  # pragma: no cover
    """For the push of a box from ``box`` to ``target`` (``occupied`` after it), in the
    phase being filled: 2 for each empty goal of the phase it brings the box nearer, 1 when
    it lands on one; and the pushes left from ``target`` to the nearest empty one (0 when it
    landed on one, FAR when it can reach none)."""
    bonus = 0
    nearest = FAR
    for column in range(phases.shape[1]):
        square = phases[phase, column]
        if square < 0:
            break
        if square == target:
            bonus += 1
            nearest = 0
        elif not occupied[square]:
            far = plan[target, column_of[square]]
            if far < nearest:
                nearest = far
            if far < plan[box, column_of[square]]:
                bonus += 2
    return bonus, nearest


@njit(cache=True)
def plan_search(
    neighbours,
    live,
    goal,
    distances,
    box_keys,
    player_keys,
    goal_squares,
    phases,
    release,
    column_of,
    plan,
    words,
    player,
    parent,
    push,
    depth,
    cost,
    hashes,
    table,
    heads,
    links,
    counters,
    other_words,
    other_player,
    other_hashes,
    other_table,
    scratch,
    deadlocks,
    seed,
    stall,
    budget,
    heat,  # int64[squares + 1]: boxes per square over the positions expanded, then those
    counting,  # whether to add to ``heat`` (webapp.search.heat)
):  # pragma: no cover - compiled
    """At most ``budget`` expansions of the plan search (this module's docstring), then
    RUNNING; FOUND (the state in counters[GOAL], and in counters[MEET] the backward
    search's state where the two met), EXHAUSTED when nothing is left to expand, FULL when
    the arrays are. ``phases``: the packing order's goals by phase, the first phase first
    (-1 padded); ``plan[square, column]`` the push distances to each goal with earlier
    phases' frozen boxes as walls, ``column_of`` each goal square's column; ``cost`` the
    pushes each state counts (those that brought no box nearer the plan's next goals);
    ``heads`` and ``links`` the bucket lists (state + 1, 0 for none); ``deadlocks`` the
    corral test's kind (kernels._corral_dead: 2 strict, 1 quick, 0 none); with ``stall``
    above 0, STALLED once that many expansions have gone by without a position filling
    more goals in order than any before it (it may be called again to go on)."""
    squares = neighbours.shape[0]
    width = words.shape[1]
    capacity = words.shape[0]
    nearest_goal = np.empty(squares, np.int64)
    for square in range(squares):
        nearest_goal[square] = FAR
        for column in range(distances.shape[1]):
            nearest_goal[square] = min(nearest_goal[square], distances[square, column])
    boxes = distances.shape[1]
    # Each target's phase, and how many targets the phases before each one hold.
    phase_of = np.full(squares, -1, np.int64)
    before = np.zeros(phases.shape[0] + 1, np.int64)
    for phase in range(phases.shape[0]):
        before[phase + 1] = before[phase]
        for column in range(phases.shape[1]):
            if phases[phase, column] >= 0:
                phase_of[phases[phase, column]] = phase
                before[phase + 1] += 1
    total = before[phases.shape[0]]
    (occupied, assumed, dead, mark, stack, cells, moves, query, matching, label, fence_mark,
     fence, corral_moves, candidate, row_of, blocked, walled, walled_for) = expansion_arrays(
        live, boxes, width
    )  # fmt: skip
    top = heads.shape[0] - 1
    # A dive goes on from one call to the next (counters[DIVING]), so slices of any size
    # make the same search.
    diving = counters[DIVING] - 1
    dive_score = counters[DIVE_SCORE]
    next_label = 1
    stamp = 0
    done = 0
    while done < budget:
        if stall > 0 and counters[EXPANDED] - counters[FILLED_AT] >= stall:
            counters[DIVING] = diving + 1
            counters[DIVE_SCORE] = dive_score
            return STALLED
        if counters[WAITING] == 0 and diving < 0:
            return EXHAUSTED
        if counters[STORED] + 4 * boxes + 1 > capacity:
            if diving >= 0:
                _put(heads, links, counters, diving, dive_score)
                counters[DIVING] = 0
            return FULL
        if diving >= 0:
            state = diving
            score = dive_score
            diving = -1
        else:
            state = _take(heads, links, counters)
            score = counters[PICKED]
            counters[WAITING] -= 1
        counters[EXPANDED] += 1
        counters[LAST] = state
        done += 1
        counters[DEPTH] = depth[state]
        count, on_goal = _lay_out(words, state, occupied, cells, row_of, goal)
        if counting:
            for row in range(count):
                heat[cells[row]] += 1
            heat[len(heat) - 1] += 1
        stamp += 1
        _reach(player[state], occupied, neighbours, mark, stamp, stack)
        moves_found, next_label = _corral(
            occupied, neighbours, live, goal, mark, stamp, label, fence_mark, next_label, stack,
            fence, corral_moves, candidate, player[state], dead, box_keys, player_keys, scratch,
            deadlocks,
        )  # fmt: skip
        cornered = moves_found >= 0
        if cornered:
            for index in range(moves_found):
                moves[index] = row_of[corral_moves[index] >> 2] * 4 + (corral_moves[index] & 3)
        else:
            moves_found = _pushes(cells, count, occupied, neighbours, live, mark, stamp, moves)
        front = 0
        if parent[state] >= 0:
            # The box pushed last goes first.
            last = neighbours[push[state] >> 2, push[state] & 3]
            for index in range(moves_found):
                if cells[moves[index] >> 2] == last:
                    moves[index], moves[front] = moves[front], moves[index]
                    front += 1
        if seed != 0:
            # The others in an order of their own for this run (a restart's seed).
            mix = np.uint64(seed) ^ hashes[state]
            for index in range(moves_found - 1, front, -1):
                mix ^= mix << np.uint64(13)
                mix ^= mix >> np.uint64(7)
                mix ^= mix << np.uint64(17)
                other = front + np.int64(mix % np.uint64(index - front + 1))
                moves[index], moves[other] = moves[other], moves[index]
        simple = 0
        for row in range(count):
            simple += nearest_goal[cells[row]]
        matched = False
        parent_hash = hashes[state] ^ player_keys[player[state]]
        for index in range(moves_found):
            row = moves[index] >> 2
            direction = moves[index] & 3
            box = cells[row]
            target = neighbours[box, direction]
            stamp += 1
            child, low, key_hash = _child(
                state, box, target, box, box * 4 + direction, depth[state] + 1, occupied,
                neighbours, mark, stamp, stack, query, parent_hash, box_keys, player_keys, words,
                player, parent, push, depth, hashes, table, counters,
            )  # fmt: skip
            if child < 0:
                continue
            if _ends(
                child, box, target, low, key_hash, query, on_goal, count, goal, counters,
                other_words, other_player, other_hashes, other_table, False, query, -1, key_hash,
            ):  # fmt: skip
                return FOUND
            if _stuck(
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
            misplaced, phase = _advance(
                phases, release, phase_of, before, occupied, total, cost[state] >> PHASE_SHIFT,
                box,
            )  # fmt: skip
            bonus, nearest = 0, FAR
            if phase < phases.shape[0]:
                bonus, nearest = _plan_bonus(phases, phase, plan, column_of, occupied, box, target)
            occupied[box] = 1
            occupied[target] = 0
            if h >= FAR:
                continue
            counters[CLOSEST] = min(counters[CLOSEST], h)
            if total - misplaced > counters[FILLED]:
                counters[FILLED] = total - misplaced
                counters[FILLED_AT] = counters[EXPANDED]
            pushes = cost[state] & PUSHES
            cost[child] = (pushes + (0 if bonus > 0 else 1)) | phase << PHASE_SHIFT
            worth = pushes + 1 + simple - nearest_goal[box] + nearest_goal[target]
            worth += PLAN_GOAL * misplaced - bonus
            worth += NEAREST_WEIGHT * (nearest + 1) if nearest < FAR else UNREACHED
            bucket = min(max(worth, 0), top)
            if cornered and bucket > score:
                bucket = score
            if diving < 0 and bucket <= score:
                if counters[WAITING] == 0 or bucket <= _lowest(heads, counters):
                    diving = child
                    dive_score = bucket
                    continue
            _put(heads, links, counters, child, bucket)
        for row in range(count):
            occupied[cells[row]] = 0
    counters[DIVING] = diving + 1
    counters[DIVE_SCORE] = dive_score
    return RUNNING
