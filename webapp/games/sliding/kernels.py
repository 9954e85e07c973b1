"""The sliding puzzle's hot loops, compiled with numba.

CPython runs the pattern-database IDA* at about a million nodes a second; Korf's hardest
15-puzzles need tens of millions. These loops are the same algorithms written over flat
numpy arrays so numba can compile them to machine code (tens of millions of nodes a
second). Everything around them -- building tables, limits, progress, cancellation, turning
cells into move letters -- stays in plain Python: a kernel runs for a bounded number of
nodes, keeps all of its state in the arrays it is given, and returns, so the caller can
tick the monitor and call it again to resume exactly where it stopped.

Compiled code is cached beside this file (``cache=True``), so only the first run on a new
install pays the compile (a few seconds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Kernel outcomes.
RUNNING = 0  # the node budget ran out; call again to go on
FOUND = 1  # the goal was reached: the path is in the stack of hole cells
EXHAUSTED = 2  # this IDA* iteration is over; the next bound is in the state array

# Slots of the IDA* state array.
DEPTH, BOUND, NEXT_BOUND, EXPANDED, GENERATED = range(5)
STATE_SIZE = 5

#: Deeper than any 15-puzzle's optimum (80) with room to spare.
MAX_DEPTH = 256


@njit(cache=True)
def pdb_ida(
    board,  # uint8[n]: the tile on each cell, changed in place and restored on the way back
    tables,  # uint8[...]: the pattern databases laid end to end
    offsets,  # int64[patterns]: where each pattern's table starts in ``tables``
    pattern_of,  # int64[n]: the pattern of each tile (and of its mirror image)
    shift,  # int64[n * 4]: per (tile, direction), the change of the placement index
    mirror_pattern,
    mirror_shift,
    move_cell,  # int64[n, 4]: per hole cell, the cells whose tile can slide in
    move_dir,  # int64[n, 4]: the direction of each of those moves
    move_count,  # int64[n]
    index,  # int64[patterns]: the current placement index per pattern (and mirrored)
    value,  # int64[patterns]: the table value at that index
    mirror_index,
    mirror_value,
    holes,  # int64[MAX_DEPTH]: the hole's cell at each depth (the path)
    slot,  # int64[MAX_DEPTH]: the next move to try at each depth
    h_plain,  # int64[MAX_DEPTH]: the sum of the plain values at each depth
    h_mirror,  # int64[MAX_DEPTH]
    undo,  # int64[MAX_DEPTH, 4]: what the move into each depth overwrote
    state,  # int64[STATE_SIZE]
    budget,  # nodes to expand before returning RUNNING
    heat,  # int64[n + 1]: per cell, the boards expanded with the hole there; then all of them
    counting,  # whether to add to ``heat``
):
    """One IDA* iteration (bound ``state[BOUND]``) with the max of the plain and mirrored
    additive database sums, resumable. Depth 0 must be set up by the caller."""
    depth = state[DEPTH]
    bound = state[BOUND]
    next_bound = state[NEXT_BOUND]
    expanded = state[EXPANDED]
    generated = state[GENERATED]
    stop_at = expanded + budget
    status = RUNNING
    n_cells = len(board)
    while True:
        hole = holes[depth]
        j = slot[depth]
        if j >= move_count[hole]:
            if depth == 0:
                status = EXHAUSTED
                break
            # Undo the move into this depth: the tile goes back to where the hole is now.
            back = holes[depth - 1]
            tile = board[back]
            board[hole] = tile
            board[back] = 0
            p = pattern_of[tile]
            q = mirror_pattern[tile]
            index[p] = undo[depth, 0]
            value[p] = undo[depth, 1]
            mirror_index[q] = undo[depth, 2]
            mirror_value[q] = undo[depth, 3]
            depth -= 1
            continue
        slot[depth] = j + 1
        cell = move_cell[hole, j]
        if depth > 0 and cell == holes[depth - 1]:
            continue  # straight back
        tile = board[cell]
        key = tile * 4 + move_dir[hole, j]
        g1 = depth + 1
        room = bound - g1
        p = pattern_of[tile]
        new = index[p] + shift[key]
        new_value = np.int64(tables[offsets[p] + new])
        plain = h_plain[depth] - value[p] + new_value
        if plain > room:
            if g1 + plain < next_bound:
                next_bound = g1 + plain
            continue
        q = mirror_pattern[tile]
        mirror_new = mirror_index[q] + mirror_shift[key]
        mirror_new_value = np.int64(tables[offsets[q] + mirror_new])
        mirrored = h_mirror[depth] - mirror_value[q] + mirror_new_value
        if mirrored > room:
            if g1 + mirrored < next_bound:
                next_bound = g1 + mirrored
            continue
        generated += 1
        undo[g1, 0] = index[p]
        undo[g1, 1] = value[p]
        undo[g1, 2] = mirror_index[q]
        undo[g1, 3] = mirror_value[q]
        board[hole] = tile
        board[cell] = 0
        index[p] = new
        value[p] = new_value
        mirror_index[q] = mirror_new
        mirror_value[q] = mirror_new_value
        holes[g1] = cell
        slot[g1] = 0
        h_plain[g1] = plain
        h_mirror[g1] = mirrored
        depth = g1
        if plain == 0:
            status = FOUND
            break
        expanded += 1
        if counting:
            heat[cell] += 1  # the hole has moved to ``cell``
        if expanded >= stop_at:
            break
    if counting:
        heat[n_cells] += expanded - state[EXPANDED]  # each counted once, above
    state[DEPTH] = depth
    state[NEXT_BOUND] = next_bound
    state[EXPANDED] = expanded
    state[GENERATED] = generated
    return status


# -- beam search (the fast solver) ---------------------------------------------------------


@njit(cache=True)
def _line_conflicts(board, cells, length, home_line, home_place, line):
    """Linear conflicts on one line: 2 x (tiles of this line - the longest run of them already
    in increasing home order), the tiles that must step aside for the others to pass.

    The run is found by patience sorting over bit sets (a line is at most 8 long): bit k of
    ``ends`` is set when some increasing run of length j ends at home place k, kept as the
    smallest end per length -- the classic tails array, here as one small integer."""
    count = 0
    tails = np.uint64(0)  # bit p set: p is the smallest tail of some run length
    for i in range(length):
        tile = board[cells[i]]
        if tile == 0 or home_line[tile] != line:
            continue
        count += 1
        place = np.uint64(home_place[tile])
        # Replace the smallest tail >= place by place (or append when there is none).
        above = tails >> place
        if above != 0:
            # Clear the lowest set bit at or above place.
            low = above & (~above + np.uint64(1))
            tails &= ~(low << place)
        tails |= np.uint64(1) << place
    longest = 0
    while tails != 0:
        tails &= tails - np.uint64(1)
        longest += 1
    return 2 * (count - longest)


@njit(cache=True)
def _conflicts(board, rows, cols, row_cells, col_cells, home_row, home_col):
    total = 0
    for r in range(rows):
        total += _line_conflicts(board, row_cells[r], cols, home_row, home_col, r)
    for c in range(cols):
        total += _line_conflicts(board, col_cells[c], rows, home_col, home_row, c)
    return total


@njit(cache=True)
def _seen_add(seen, key):
    """Add ``key`` to the open-addressing set ``seen`` (0 marks a free slot); False if it was
    there already."""
    mask = len(seen) - 1
    slot = (key ^ (key >> np.uint64(29))) & np.uint64(mask)
    while True:
        here = seen[slot]
        if here == 0:
            seen[slot] = key
            return True
        if here == key:
            return False
        slot = (slot + np.uint64(1)) & np.uint64(mask)


@njit(cache=True)
def beam_layer(
    boards,  # uint8[width, n]: the layer, rows 0..count-1
    holes,  # int64[width]
    manhattans,  # int64[width]
    conflicts,  # int64[width]
    keys,  # uint64[width]: Zobrist keys of the boards
    count,
    rows,
    cols,
    row_cells,  # int64[rows, cols]
    col_cells,  # int64[cols, rows]
    home_row,  # int64[n]: per tile
    home_col,
    distance,  # int64[n, n]: Manhattan distance of tile t on cell c from home
    zobrist,  # uint64[n, n]
    seen,  # uint64[2^k]: every board generated so far
    move_cell,  # int64[n, 4]
    move_count,  # int64[n]
    out_boards,  # the next layer, same shapes
    out_holes,
    out_manhattans,
    out_conflicts,
    out_keys,
    out_parent,  # int64[width]: the index in this layer each next-layer board came from
):
    """Expand one layer of a beam search and keep the ``width`` best children by Manhattan
    distance plus linear conflicts, boards seen before left out. Returns (children kept, index
    of a solved child or -1)."""
    width = boards.shape[0]
    most = count * 4
    cand_parent = np.empty(most, np.int64)
    cand_cell = np.empty(most, np.int64)
    cand_h = np.empty(most, np.int64)
    cand_manhattan = np.empty(most, np.int64)
    cand_conflict = np.empty(most, np.int64)
    cand_key = np.empty(most, np.uint64)
    made = 0
    for i in range(count):
        board = boards[i]
        hole = holes[i]
        for j in range(move_count[hole]):
            cell = move_cell[hole, j]
            tile = board[cell]
            key = keys[i] ^ zobrist[tile, cell] ^ zobrist[tile, hole]
            if not _seen_add(seen, key):
                continue
            manhattan = manhattans[i] - distance[tile, cell] + distance[tile, hole]
            # A sideways move changes the tile's column: only those two columns' conflicts
            # change; an up or down move changes two rows'.
            if cell // cols == hole // cols:
                a, b = cell % cols, hole % cols
                before = _line_conflicts(board, col_cells[a], rows, home_col, home_row, a)
                before += _line_conflicts(board, col_cells[b], rows, home_col, home_row, b)
                board[hole] = tile
                board[cell] = 0
                after = _line_conflicts(board, col_cells[a], rows, home_col, home_row, a)
                after += _line_conflicts(board, col_cells[b], rows, home_col, home_row, b)
            else:
                a, b = cell // cols, hole // cols
                before = _line_conflicts(board, row_cells[a], cols, home_row, home_col, a)
                before += _line_conflicts(board, row_cells[b], cols, home_row, home_col, b)
                board[hole] = tile
                board[cell] = 0
                after = _line_conflicts(board, row_cells[a], cols, home_row, home_col, a)
                after += _line_conflicts(board, row_cells[b], cols, home_row, home_col, b)
            board[cell] = tile
            board[hole] = 0
            conflict = conflicts[i] - before + after
            cand_parent[made] = i
            cand_cell[made] = cell
            cand_manhattan[made] = manhattan
            cand_conflict[made] = conflict
            cand_h[made] = manhattan + conflict
            cand_key[made] = key
            made += 1
            if manhattan == 0:
                _emit(0, made - 1, boards, holes, cand_parent, cand_cell, cand_manhattan,
                      cand_conflict, cand_key, out_boards, out_holes, out_manhattans,
                      out_conflicts, out_keys, out_parent)  # fmt: skip
                return 1, 0
    if made == 0:
        return 0, -1
    # Keep the best ``width``: every child under the threshold value, then ties in order.
    top = 0
    for c in range(made):
        if cand_h[c] > top:
            top = cand_h[c]
    histogram = np.zeros(top + 2, np.int64)
    for c in range(made):
        histogram[cand_h[c]] += 1
    threshold = 0
    below = 0
    while threshold <= top and below + histogram[threshold] <= width:
        below += histogram[threshold]
        threshold += 1
    ties = width - below
    kept = 0
    for c in range(made):
        h = cand_h[c]
        if h < threshold or (h == threshold and ties > 0):
            if h == threshold:
                ties -= 1
            _emit(kept, c, boards, holes, cand_parent, cand_cell, cand_manhattan,
                  cand_conflict, cand_key, out_boards, out_holes, out_manhattans,
                  out_conflicts, out_keys, out_parent)  # fmt: skip
            kept += 1
    return kept, -1


@njit(cache=True)
def _emit(k, c, boards, holes, cand_parent, cand_cell, cand_manhattan, cand_conflict,
          cand_key, out_boards, out_holes, out_manhattans, out_conflicts, out_keys,
          out_parent):  # fmt: skip
    i = cand_parent[c]
    cell = cand_cell[c]
    out_boards[k, :] = boards[i, :]
    hole = holes[i]
    out_boards[k, hole] = boards[i, cell]
    out_boards[k, cell] = 0
    out_holes[k] = cell
    out_manhattans[k] = cand_manhattan[c]
    out_conflicts[k] = cand_conflict[c]
    out_keys[k] = cand_key[c]
    out_parent[k] = i
