"""Vexed's optimal A*, compiled with numba.

The same search as docs/vexed-solver.md describes -- settled boards, the lone-block prune,
f buckets taken deepest first, the per-colour lower bound -- written over flat numpy arrays
so numba can compile it: CPython managed about 20,000 boards a second, which left the hard
levels out of reach. Boards live in one pool (a row per board: every open cell, half a byte
each when the level has at most 14 colours), found again through an open-addressing table of
their ids and hash fingerprints; each board keeps its g and its parent. The per-colour bounds
are remembered in an open-addressing table keyed by the colour's cells, as the Python
``Bounds`` does (``bounds.py`` stays the readable reference, and a test checks the two
agree).

``astar`` runs for a bounded number of expansions and returns; everything it needs to go on
is in its arrays, so the caller ticks the monitor between calls (limits, progress,
cancellation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = 10**6
#: Colours with more blocks than this get the cheaper "everyone needs a partner" bound
#: (as ``bounds.LARGE_COLOUR``).
LARGE_COLOUR = 6
#: Blocks take byte values 2 .. 2 + 25.
COLOUR_SLOTS = 28

# Kernel outcomes.
RUNNING = 0
FOUND = 1
EXHAUSTED = 2  # the open list ran dry: no solution
FULL = 3  # the pool or the open list is full: the memory share is spent
GROW = 4  # the table of boards is 3/4 full: rehash into a larger one, then go on

# Slots of the search's state array.
BOUND, EXPANDED, GENERATED, WAITING, BOARDS, ENTRIES, GOAL, LAST, MEMO = range(9)
TOUCHED = 9  # a sum of the rows read ahead (see the lookups), so that they are read
DEFER_AT = 10  # the pool's count of boards from which partial expansion begins
STATE_SIZE = 11

#: In a bounded-cost search whose pool holds ``state[DEFER_AT]`` boards or more, a board's
#: children more than this above its own bucket wait until the search gets there (partial
#: expansion): most children are never taken, and storing them filled the memory of the
#: densest levels long before their time was up. Taking a board again costs an expansion,
#: so a search with room to spare stores them all.
DEFER = 1

#: Buckets and g beyond these are not queued (no published level comes near). A bucket of the
#: bounded-cost search holds g + 2 bound + PER_BLOCK * blocks (solver.py).
F_CAP = 2048
G_CAP = 512


# -- the lower bound ---------------------------------------------------------------------------


@njit(cache=True)
def _popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def _star(members, mask, reach, near, m):
    """The fewest moves for the lone blocks of ``mask`` (indices into ``members``) to form a
    star: one of them with all the others beside it."""
    size = _popcount(mask)
    if size == 2:
        a = -1
        b = -1
        for i in range(len(members)):
            if mask >> i & 1:
                if a < 0:
                    a = members[i]
                else:
                    b = members[i]
        best = INF
        for p in range(m):
            total = reach[a, p] + near[b, p]
            if total < best:
                best = total
        return best
    best = INF
    for c in range(len(members)):
        if not mask >> c & 1:
            continue
        centre = members[c]
        for p in range(m):
            total = reach[centre, p]
            if total >= best:
                continue
            for leaf in range(len(members)):
                if leaf != c and mask >> leaf & 1:
                    total += near[members[leaf], p]
            if total < best:
                best = total
    return min(best, INF)


@njit(cache=True)
def _colour_bound(members, reach, near, pair, column, m):
    """A lower bound on the moves of one colour's blocks (open-cell indices, ascending) until
    all have vanished: the cheapest split into groups of two or more, a group costing the
    larger of its empty columns and its cheapest cover by stars (bounds.py, with proofs in
    docs/vexed-solver.md)."""
    k = len(members)
    if k == 0:
        return 0
    if k == 1:
        return INF
    if k > LARGE_COLOUR:
        worst = 0
        for a in range(k):
            nearest = INF
            for b in range(k):
                if b != a and pair[members[a], members[b]] < nearest:
                    nearest = pair[members[a], members[b]]
            if nearest > worst:
                worst = nearest
        return min(worst, INF)
    full = (1 << k) - 1
    star = np.full(full + 1, INF, np.int64)
    for mask in range(1, full + 1):
        size = _popcount(mask)
        if 2 <= size <= 5:
            star[mask] = _star(members, mask, reach, near, m)
    # cover[mask]: the cheapest split of ``mask`` into stars of two to five blocks.
    cover = np.full(full + 1, INF, np.int64)
    cover[0] = 0
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        best = INF
        while sub:
            remainder = rest ^ sub
            if _popcount(sub) + 1 <= 5 and (remainder == 0 or remainder & (remainder - 1)):
                total = star[low | sub] + cover[remainder]
                if total < best:
                    best = total
            sub = (sub - 1) & rest
        cover[mask] = min(best, INF)
    # split[mask]: the cheapest split of ``mask`` into vanishing groups.
    split = np.full(full + 1, INF, np.int64)
    split[0] = 0
    columns = np.empty(k, np.int64)
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        best = INF
        while sub:
            remainder = rest ^ sub
            if remainder == 0 or remainder & (remainder - 1):
                group = low | sub
                # The empty columns strictly inside the group's span.
                count = 0
                for i in range(k):
                    if group >> i & 1:
                        columns[count] = column[members[i]]
                        count += 1
                sorted_columns = np.sort(columns[:count])
                gaps = 0
                for i in range(count - 1):
                    step = sorted_columns[i + 1] - sorted_columns[i] - 1
                    if step > 0:
                        gaps += step
                cost = max(gaps, cover[group])
                total = cost + split[remainder]
                if total < best:
                    best = total
            sub = (sub - 1) & rest
        split[mask] = min(best, INF)
    return split[full]


@njit(cache=True, inline="always")
def _memo_slot(keys, key):
    """The slot of ``key`` in the open-addressing table ``keys`` (0 marks a free slot; keys
    are never 0), or of the free slot where it belongs."""
    mask = len(keys) - 1
    slot = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)) & mask
    while keys[slot] != 0 and keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def memo_rehash(keys, values, new_keys, new_values):
    """Move every entry of a memo table into an empty, larger one."""
    for i in range(len(keys)):
        if keys[i] != 0:
            slot = _memo_slot(new_keys, keys[i])
            new_keys[slot] = keys[i]
            new_values[slot] = values[i]


@njit(cache=True, inline="always")
def _by_colour(row, m, counts, starts, members):
    """Group the open cells of a board by colour (a counting sort): colour c's cells are
    ``members[starts[c] : starts[c] + counts[c]]``, ascending."""
    counts[:] = 0
    for i in range(m):
        counts[row[i]] += 1
    at = 0
    for colour in range(COLOUR_SLOTS):
        starts[colour] = at
        at += counts[colour]
    for i in range(m):
        colour = row[i]
        members[starts[colour]] = i
        starts[colour] += 1
    for colour in range(COLOUR_SLOTS):
        starts[colour] -= counts[colour]


@njit(cache=True)
def estimate(row, memo_keys, memo_values, state, reach, near, pair, column, m, counts, starts,
             members):  # fmt: skip
    """The sum of the colours' bounds for a board (one byte per open cell); INF if some
    colour can never vanish. Colour bounds are remembered in ``memo_keys``/``memo_values``
    (``state[MEMO]`` entries; the caller grows the table). ``counts``, ``starts`` and
    ``members`` are scratch space for ``_by_colour``. ``astar`` computes the same bound in
    its loop, written out there and kept per colour from the parent's; this whole-board form
    is what a test checks against ``Bounds.estimate``."""
    _by_colour(row, m, counts, starts, members)
    total = 0
    for colour in range(2, COLOUR_SLOTS):
        k = counts[colour]
        if k == 0:
            continue
        cells = members[starts[colour] : starts[colour] + k]
        if k <= LARGE_COLOUR:
            key = k  # exact: k < 8 in the top bits, then 10 bits a cell (at most 1,024)
            for i in range(k):
                key = (key << 10) | cells[i]
            slot = _memo_slot(memo_keys, key)
            if memo_keys[slot] == key:
                value = memo_values[slot]
            else:
                value = _colour_bound(cells, reach, near, pair, column, m)
                memo_keys[slot] = key
                memo_values[slot] = value
                state[MEMO] += 1
        else:
            value = _colour_bound(cells, reach, near, pair, column, m)
        total += value
        if total >= INF:
            return INF
    return total


# -- the rules ---------------------------------------------------------------------------------


@njit(cache=True)
def _settle(grid, moved, moved_count, stride, counts, doomed, doomed_cells):
    """Settle ``grid`` after the cells ``moved[:moved_count]`` received blocks: vanish every
    block touching its colour (all at once), let the blocks above each gap fall, repeat. False
    when a colour is left with a single block (such a board is never worth keeping)."""
    while True:
        found = 0
        for x in range(moved_count):
            cell = moved[x]
            colour = grid[cell]
            if colour < 2:
                continue
            for other in (cell - 1, cell + 1, cell - stride, cell + stride):
                if grid[other] == colour:
                    if not doomed[cell]:
                        doomed[cell] = 1
                        doomed_cells[found] = cell
                        found += 1
                    if not doomed[other]:
                        doomed[other] = 1
                        doomed_cells[found] = other
                        found += 1
        if found == 0:
            return True
        lonely = False
        for x in range(found):
            cell = doomed_cells[x]
            counts[grid[cell]] -= 1
            grid[cell] = 0
        # Before the move no colour had a single block, so one that has now lost blocks
        # to a vanishing and kept exactly one is the only way to get there.
        for colour in range(2, COLOUR_SLOTS):
            if counts[colour] == 1:
                lonely = True
        # Lowest gaps first (insertion sort: a handful of cells).
        for x in range(1, found):
            cell = doomed_cells[x]
            y = x - 1
            while y >= 0 and doomed_cells[y] < cell:
                doomed_cells[y + 1] = doomed_cells[y]
                y -= 1
            doomed_cells[y + 1] = cell
        moved_count = 0
        for x in range(found):
            gap = doomed_cells[x]
            if not doomed[gap]:
                continue  # compacted from a lower gap of the same stretch
            doomed[gap] = 0
            # Compact the blocks above the gap, up to the next solid cell: a column may hold
            # several stretches between solid cells, and each one with a gap is compacted.
            free = gap
            cell = gap - stride
            while grid[cell] != 1:
                doomed[cell] = 0
                colour = grid[cell]
                if colour:
                    grid[free] = colour
                    grid[cell] = 0
                    moved[moved_count] = free
                    moved_count += 1
                    free -= stride
                cell -= stride
        if lonely:
            return False


# The small helpers below are inlined (``inline="always"``): a numba call that passes arrays
# counts references to each of them on the way in and out, and those atomic counts took a
# sixth of a long search's time before. For the same reason they take a 2-d array and a row
# index rather than a row (a view is counted too).


@njit(cache=True, inline="always")
def _pack(row, m, rows, r):
    """A board's ``m`` cells (one byte each) into row ``r`` of ``rows`` as a pool row: half
    a byte a cell when ``rows`` is half as wide (a level of at most 14 colours, numbered
    from 2; see the solver), else a byte a cell."""
    width = rows.shape[1]
    if width == m:
        for i in range(m):
            rows[r, i] = row[i]
        return
    for j in range(width):
        rows[r, j] = 0
    for i in range(m):
        rows[r, i >> 1] = rows[r, i >> 1] | (row[i] << ((i & 1) << 2))


@njit(cache=True, inline="always")
def _unpack(rows, r, m, row):
    """The inverse of ``_pack``: row ``r`` of ``rows`` into ``row``, a byte a cell."""
    if rows.shape[1] == m:
        for i in range(m):
            row[i] = rows[r, i]
        return
    for i in range(m):
        row[i] = (rows[r, i >> 1] >> ((i & 1) << 2)) & 15


@njit(cache=True, inline="always")
def _hash(rows, r, width):
    h = np.uint64(1469598103934665603)
    for i in range(width):
        h = (h ^ np.uint64(rows[r, i])) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _id_bits(capacity):
    """The low bits of a table slot that hold a board id + 1, for a pool of ``capacity``
    boards; the other bits of the 31 hold a fingerprint of the board's hash."""
    bits = 1
    while (1 << bits) <= capacity:
        bits += 1
    return bits


@njit(cache=True, inline="always")
def _find(pool, table, rows, r, width, bits, h):
    """The id of the board in row ``r`` of ``rows`` (whose ``_hash`` is ``h``) in the pool
    (-1 if it is not there), its slot in the table (where it is, or the free slot to add it
    at) and the fingerprint to store there.

    A slot holds the board's id + 1 in its low ``bits`` and the top bits of its hash above
    them: a slot whose fingerprint differs is passed over without reading the board's row,
    which is a cache miss once the pool is large (most of the time of a long search went to
    rows read only to find they differ)."""
    mask = len(table) - 1
    slot = np.int64(h & np.uint64(mask))
    tag = np.int64(0)
    if bits < 31:
        tag = np.int64(h >> np.uint64(33 + bits)) << bits
    ids = (np.int64(1) << bits) - 1
    while True:
        here = np.int64(table[slot])
        if here == 0:
            return -1, slot, tag
        if here & ~ids == tag:
            board = (here & ids) - 1
            same = True
            for i in range(width):
                if pool[board, i] != rows[r, i]:
                    same = False
                    break
            if same:
                return board, slot, tag
        slot = (slot + 1) & mask


@njit(cache=True, inline="always")
def _add(pool, table, slot, tag, rows, r, width, state):
    """Add the board in row ``r`` of ``rows`` at the free ``slot`` that ``_find`` gave, with
    its fingerprint ``tag``: its id, or -1 when the pool is full."""
    boards = state[BOARDS]
    if boards >= pool.shape[0]:
        return -1
    for i in range(width):
        pool[boards, i] = rows[r, i]
    table[slot] = tag | (boards + 1)
    state[BOARDS] = boards + 1
    return boards


@njit(cache=True, inline="always")
def _keep(pool, table, slot, tag, rows, r, width, state, known, g_of, parent, g, board):
    """The board in row ``r`` of ``rows`` (``known``: its id, or -1 to add it at ``slot``),
    reached at ``g`` from ``board``: its id, or -1 when the pool is full."""
    if known < 0:
        known = _add(pool, table, slot, tag, rows, r, width, state)
        if known < 0:
            return -1
    g_of[known] = g
    parent[known] = board
    return known


@njit(cache=True, inline="always")
def _push(heads, top_g, entry_board, entry_next, state, bucket, g, value):
    """Queue ``value`` (a board's id, or for a board waiting again its id negated, minus
    one) in ``bucket`` at depth ``g``: False when the open list is full."""
    entries = state[ENTRIES]
    if entries >= len(entry_board):
        return False
    entry_board[entries] = value
    entry_next[entries] = heads[bucket, g]
    heads[bucket, g] = entries
    state[ENTRIES] = entries + 1
    if g > top_g[bucket]:
        top_g[bucket] = g
    state[WAITING] += 1
    return True


@njit(cache=True)
def _find_or_add(pool, table, rows, r, width, state):
    """The id of the board in row ``r`` of ``rows`` in the pool, adding it if new: (id, True
    if added). (-1, False) when the pool is full."""
    bits = _id_bits(pool.shape[0])
    known, slot, tag = _find(pool, table, rows, r, width, bits, _hash(rows, r, width))
    if known >= 0:
        return known, False
    return _add(pool, table, slot, tag, rows, r, width, state), True


@njit(cache=True)
def rehash(pool, boards, table, width):
    """Fill an empty, larger ``table`` with the first ``boards`` boards of the pool."""
    bits = _id_bits(pool.shape[0])
    mask = len(table) - 1
    for board in range(boards):
        h = _hash(pool, board, width)
        slot = np.int64(h & np.uint64(mask))
        while table[slot] != 0:
            slot = (slot + 1) & mask
        tag = np.int64(0)
        if bits < 31:
            tag = np.int64(h >> np.uint64(33 + bits)) << bits
        table[slot] = tag | (board + 1)


@njit(cache=True)
def rebucket(heads, top_g, entry_board, entry_next, g_of, new_heads, new_top, state, cap,
             weight, per_block, pool, m):  # fmt: skip
    """Hand A*'s open list to a bounded-cost search in the same arrays: every entry still
    waiting (not stale) with f = g + h <= ``cap`` moves to the bucket g + ``weight`` * h +
    ``per_block`` * (its blocks) of ``new_heads``/``new_top`` (fresh, all -1); the others are
    dropped, as that search would cut them. Sets WAITING and BOUND for the new buckets."""
    waiting = 0
    lowest = F_CAP
    row = np.empty(m, np.uint8)
    for f in range(F_CAP):
        for g in range(min(top_g[f] + 1, G_CAP)):
            entry = heads[f, g]
            while entry >= 0:
                following = entry_next[entry]
                h = f - g
                bucket = g + weight * h
                keep = g_of[entry_board[entry]] == g and f <= cap and (g < cap or h == 0)
                if keep and per_block:
                    _unpack(pool, entry_board[entry], m, row)
                    for i in range(m):
                        if row[i] > 1:
                            bucket += per_block
                if keep and bucket < F_CAP:
                    entry_next[entry] = new_heads[bucket, g]
                    new_heads[bucket, g] = entry
                    if g > new_top[bucket]:
                        new_top[bucket] = g
                    waiting += 1
                    if bucket < lowest:
                        lowest = bucket
                entry = following
    state[WAITING] = waiting
    state[BOUND] = min(lowest, F_CAP - 1)


@njit(cache=True)
def astar(
    pool,  # uint8[capacity, m]: every board met, one byte per open cell
    g_of,  # int32[capacity]: moves to reach each board
    parent,  # int32[capacity]
    table,  # int32[2^k]: board id + 1 per slot, 0 free
    heads,  # int32[F_CAP, G_CAP]: the first open entry per (f, g), -1 none
    top_g,  # int64[F_CAP]: the deepest g that may hold entries, per f
    entry_board,  # int32[entries]
    entry_next,  # int32[entries]
    walls,  # uint8[size]: the grid with every block gone
    cell_at,  # int64[m]: the grid cell of each open cell
    stride,
    memo_keys,  # int64[2^k]: colour bounds by the colour's cells (see ``estimate``)
    memo_values,
    reach,
    near,
    pair,
    column,
    state,  # int64[STATE_SIZE]
    budget,
    cap,  # no board with f = g + bound above this is queued (F_CAP: none is cut)
    weight,  # 0: A* on f; w > 0: best-first on g + w * bound (a bounded-cost search)
    per_block,  # with weight > 0, added to a board's bucket for each block it has left
    heat,  # int64[m + 1]: blocks per open cell over the boards expanded, then the boards
    counting,  # whether to add to ``heat`` (webapp.search.heat)
):
    """A* on f = moves + bound over settled boards, deepest g first within an f; the first
    cleared board taken (or generated at g equal to the current f) is optimal because the
    bound is consistent. Resumable: runs ``budget`` expansions, then returns RUNNING.

    With ``weight`` > 0 the buckets hold g + weight * bound + per_block * (blocks left)
    instead of f, and the first cleared board generated ends the search: it is a solution of
    at most ``cap`` moves (the bound is admissible), not necessarily the shortest.
    ``state[BOUND]`` is then the lowest bucket that may be full, which can go down as well as
    up."""
    m = len(cell_at)
    size = len(walls)
    # Small tables grow (the caller rehashes) rather than start huge: a slot in a fresh
    # page costs a page fault, and most searches are small.
    roomy = min(len(table) // 4 * 3, pool.shape[0])
    bits = _id_bits(pool.shape[0])
    grid = np.empty(size, np.uint8)
    child = np.empty(size, np.uint8)
    row = np.empty(m, np.uint8)
    counts = np.zeros(COLOUR_SLOTS, np.int64)
    child_counts = np.zeros(COLOUR_SLOTS, np.int64)
    moved = np.empty(size, np.int64)
    doomed = np.zeros(size, np.uint8)
    scratch = np.empty(size, np.int64)
    scratch_counts = np.empty(COLOUR_SLOTS, np.int64)
    scratch_starts = np.empty(COLOUR_SLOTS, np.int64)
    scratch_members = np.empty(m, np.int64)
    # The parent's bound by colour, from which each child's is updated.
    parent_counts = np.empty(COLOUR_SLOTS, np.int64)
    parent_starts = np.empty(COLOUR_SLOTS, np.int64)
    parent_members = np.empty(m, np.int64)
    values = np.zeros(COLOUR_SLOTS, np.int64)
    saved = np.empty(size, np.uint8)
    cells = np.empty(m, np.int64)
    index_of = np.zeros(size, np.int64)
    for i in range(m):
        index_of[cell_at[i]] = i
    # A board's children that the bound keeps (at most two slides a block), before the
    # lookups in the table of boards.
    width = pool.shape[1]
    survivors = np.empty((2 * m, width), np.uint8)
    parent_row = np.empty(m, np.uint8)
    survivor_h = np.empty(2 * m, np.int64)
    survivor_cleared = np.empty(2 * m, np.bool_)
    survivor_bucket = np.empty(2 * m, np.int64)
    hashes = np.empty(2 * m, np.uint64)
    firsts = np.empty(2 * m, np.int64)
    stop_at = state[EXPANDED] + budget
    bound = state[BOUND]
    while True:
        if state[WAITING] == 0:
            return EXHAUSTED
        g = top_g[bound]
        while g >= 0 and heads[bound, g] < 0:
            g -= 1
        top_g[bound] = g
        if g < 0:
            bound += 1
            state[BOUND] = bound
            if bound >= F_CAP:
                return EXHAUSTED
            if weight == 0:
                return RUNNING  # let the caller note the new bound
            continue
        entry = heads[bound, g]
        heads[bound, g] = entry_next[entry]
        state[WAITING] -= 1
        board = entry_board[entry]
        if board < 0:  # a board waiting again for children it left out (see below)
            board = -board - 1
            g -= 1
        if g_of[board] != g:
            continue  # reached again more cheaply after this entry was queued
        # Partial expansion (a bounded-cost search only, once the pool holds DEFER_AT boards):
        # children whose bucket is above this one's by more than DEFER are neither stored
        # nor queued; the board waits again at the lowest such bucket and makes them then.
        popped = bound
        deferred = F_CAP
        partial = weight > 0 and state[BOARDS] >= state[DEFER_AT]
        _unpack(pool, board, m, parent_row)
        blocks = 0
        for i in range(m):
            if parent_row[i] > 1:
                blocks += 1
        if blocks == 0:
            state[GOAL] = board
            return FOUND
        state[EXPANDED] += 1
        if counting:  # the blocks of the board expanded (the loop above only counts them)
            for i in range(m):
                if parent_row[i] > 1:
                    heat[i] += 1
            heat[m] += 1
        state[LAST] = board
        # The board as a grid, and its colour counts.
        grid[:] = walls
        counts[:] = 0
        for i in range(m):
            value = parent_row[i]
            grid[cell_at[i]] = value
            counts[value] += 1
        child_g = g + 1
        parent_h = 0
        # The parent's bound by colour, from which the children's bounds are updated.
        # (Written out here: a numba call with many array arguments costs more than the
        # lookups themselves, each array being reference-counted on the way in and out.)
        _by_colour(parent_row, m, parent_counts, parent_starts, parent_members)
        for colour in range(2, COLOUR_SLOTS):
            k = parent_counts[colour]
            start = parent_starts[colour]
            value = 0
            if k > LARGE_COLOUR:
                value = _colour_bound(parent_members[start : start + k], reach, near, pair,
                                      column, m)  # fmt: skip
            elif k > 0:
                key = k
                for x in range(start, start + k):
                    key = (key << 10) | parent_members[x]
                slot = _memo_slot(memo_keys, key)
                if memo_keys[slot] == key:
                    value = memo_values[slot]
                else:
                    value = _colour_bound(parent_members[start : start + k], reach, near,
                                          pair, column, m)  # fmt: skip
                    memo_keys[slot] = key
                    memo_values[slot] = value
                    state[MEMO] += 1
            values[colour] = value
            parent_h += value
        kept = 0
        for i in range(m):
            cell = cell_at[i]
            colour = grid[cell]
            if colour < 2:
                continue
            for step in (-1, 1):
                target = cell + step
                if grid[target]:
                    continue
                h = -1  # the child's bound, once known
                # The bound before the child is built. Most slides set nothing vanishing;
                # then only the colours of the moved block and of the stack that rested on
                # it change, and the child's bound is the parent's with those looked up
                # again. The slide is tried in place on the parent's grid and undone; a
                # child above the cap is cut unbuilt, and a child kept is built from what
                # the trial recorded.
                grid[cell] = 0
                land = target
                while not grid[land + stride]:
                    land += stride
                grid[land] = colour
                contact = (
                    grid[land - 1] == colour
                    or grid[land + 1] == colour
                    or grid[land + stride] == colour
                )
                lifted = 0
                above = cell - stride
                below = cell
                while grid[above] > 1:
                    here = grid[above]
                    saved[lifted] = here
                    lifted += 1
                    grid[below] = here
                    grid[above] = 0
                    if not contact and (
                        grid[below - 1] == here
                        or grid[below + 1] == here
                        or grid[below + stride] == here
                    ):
                        contact = True
                    below = above
                    above -= stride
                grid[land] = 0
                grid[cell] = colour
                for x in range(lifted):
                    grid[cell - (x + 1) * stride] = saved[x]
                if not contact:
                    limit = cap - child_g  # moves left: the child needs h <= limit
                    cut = limit <= 0  # (blocks are left, and no move is)
                    known_h = True
                    child_h = parent_h
                    top = cell - lifted * stride  # the top of the stack before the drop
                    for x in range(lifted + 1):
                        if cut or not known_h:
                            break
                        changed = colour if x == 0 else saved[x - 1]
                        again = False
                        for y in range(x):
                            if (colour if y == 0 else saved[y - 1]) == changed:
                                again = True
                        if again:
                            continue
                        k = parent_counts[changed]
                        if k > LARGE_COLOUR:
                            known_h = False  # rare: left to the full bound
                            break
                        # The colour's cells after the slide, kept ascending.
                        start = parent_starts[changed]
                        for y in range(k):
                            at = cell_at[parent_members[start + y]]
                            if at == cell:
                                at = land
                            elif top <= at < cell and (cell - at) % stride == 0:
                                at += stride
                            j = index_of[at]
                            z = y - 1
                            while z >= 0 and cells[z] > j:
                                cells[z + 1] = cells[z]
                                z -= 1
                            cells[z + 1] = j
                        key = k
                        for y in range(k):
                            key = (key << 10) | cells[y]
                        slot = _memo_slot(memo_keys, key)
                        if memo_keys[slot] == key:
                            value = memo_values[slot]
                        else:
                            value = _colour_bound(cells[:k], reach, near, pair, column, m)
                            memo_keys[slot] = key
                            memo_values[slot] = value
                            state[MEMO] += 1
                        if value >= INF:
                            cut = True
                        else:
                            child_h += value - values[changed]
                    if known_h:
                        if cut or child_h > limit:
                            continue
                        h = child_h
                # The child: the slide tried above, replayed from what it recorded (the
                # landing cell, and the stack that dropped one cell into the moved block's).
                child[:] = grid
                child_counts[:] = counts
                child[land] = colour
                moved[0] = land
                for x in range(lifted):
                    child[cell - x * stride] = saved[x]
                    moved[x + 1] = cell - x * stride
                child[cell - lifted * stride] = 0
                moved_count = lifted + 1
                if contact and not _settle(
                    child, moved, moved_count, stride, child_counts, doomed, scratch
                ):
                    continue
                child_blocks = 0
                for j in range(m):
                    row[j] = child[cell_at[j]]
                    if row[j] > 1:
                        child_blocks += 1
                cleared = child_blocks == 0
                if not cleared and h < 0:
                    # The bound comes before the lookup in the table of boards (a cache miss
                    # once the table is large): in a bounded search most children are cut,
                    # and the cut ones never touch it. It is ``estimate`` written out, with
                    # the parent's value kept for every colour whose cells did not change.
                    limit = cap - child_g
                    if limit <= 0:
                        continue
                    _by_colour(row, m, scratch_counts, scratch_starts, scratch_members)
                    h = 0
                    for changed in range(2, COLOUR_SLOTS):
                        k = scratch_counts[changed]
                        if k == 0:
                            continue
                        start = scratch_starts[changed]
                        same = k == parent_counts[changed]
                        if same:
                            before = parent_starts[changed]
                            for y in range(k):
                                if scratch_members[start + y] != parent_members[before + y]:
                                    same = False
                                    break
                        if same:
                            value = values[changed]
                        elif k == 1:
                            value = INF
                        elif k > LARGE_COLOUR:
                            value = _colour_bound(scratch_members[start : start + k], reach,
                                                  near, pair, column, m)  # fmt: skip
                        else:
                            key = k
                            for y in range(start, start + k):
                                key = (key << 10) | scratch_members[y]
                            slot = _memo_slot(memo_keys, key)
                            if memo_keys[slot] == key:
                                value = memo_values[slot]
                            else:
                                value = _colour_bound(scratch_members[start : start + k],
                                                      reach, near, pair, column, m)  # fmt: skip
                                memo_keys[slot] = key
                                memo_values[slot] = value
                                state[MEMO] += 1
                        h += value
                        if h > limit:
                            break
                    if h > limit:
                        continue
                # Its bucket in a bounded-cost search (A* queues by f, below).
                later = child_g + weight * h + per_block * child_blocks
                if partial and not cleared and later > popped + DEFER:
                    if later < deferred:
                        deferred = later
                    continue
                # Looked up in the table of boards below, once every child is built.
                _pack(row, m, survivors, kept)
                survivor_h[kept] = h
                survivor_cleared[kept] = cleared
                survivor_bucket[kept] = later
                kept += 1
        # The children the bound keeps, looked up in the table of boards, in the order they
        # were built. Each lookup starts with two cache misses once the search is large: the
        # table's slot, then the row of the board it names. Touching every child's slot and
        # row first lets those misses overlap, instead of each child waiting for its own.
        # (Three loops: with the hashing in the same loop, too few loads are in flight.)
        for c in range(kept):
            hashes[c] = _hash(survivors, c, width)
        mask = np.uint64(len(table) - 1)
        for c in range(kept):
            firsts[c] = table[np.int64(hashes[c] & mask)]
        ids = (np.int64(1) << bits) - 1
        touched = 0
        for c in range(kept):
            if firsts[c] != 0:
                touched += pool[(firsts[c] & ids) - 1, 0]
        state[TOUCHED] = touched
        for c in range(kept):
            h = survivor_h[c]
            cleared = survivor_cleared[c]
            # Only boards that are queued (or cleared) are kept: in a bounded search most
            # children are cut, and keeping them would fill the pool.
            known, slot, tag = _find(pool, table, survivors, c, width, bits, hashes[c])
            if known >= 0 and g_of[known] <= child_g:
                continue
            if cleared:
                if child_g > cap:
                    continue
                known = _keep(pool, table, slot, tag, survivors, c, width, state, known,
                              g_of, parent, child_g, board)  # fmt: skip
                if known < 0:
                    return FULL
                if weight > 0 or child_g == bound:
                    state[GOAL] = known
                    state[GENERATED] += 1
                    return FOUND
                h = 0
            f = child_g + h
            if f > cap or child_g >= cap or f >= F_CAP or child_g >= G_CAP:
                continue  # (a board with blocks left at g = cap needs more than cap)
            if weight > 0:
                f = survivor_bucket[c]  # the bucket, no longer f itself
                if f >= F_CAP:
                    continue
                if f < bound:
                    bound = f
                    state[BOUND] = f
            known = _keep(pool, table, slot, tag, survivors, c, width, state, known, g_of,
                          parent, child_g, board)  # fmt: skip
            if known < 0 or not _push(heads, top_g, entry_board, entry_next, state, f,
                                      child_g, known):  # fmt: skip
                return FULL
            state[GENERATED] += 1
        if deferred < F_CAP:
            # The board waits among the boards of its children's depth (flagged by a
            # negative id), so that they are made when they would have been taken.
            if not _push(heads, top_g, entry_board, entry_next, state, deferred, child_g,
                         -board - 1):  # fmt: skip
                return FULL
        if state[BOARDS] + 4 * m > roomy and state[BOARDS] + 4 * m < pool.shape[0]:
            return GROW
        if state[MEMO] + COLOUR_SLOTS * 2 * m > len(memo_keys) // 2:
            return GROW
        if state[EXPANDED] >= stop_at:
            return RUNNING
