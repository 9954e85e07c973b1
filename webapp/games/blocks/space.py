"""Positions of a sliding-block level packed into integers, and their moves, for fast search.

A position is one integer with a small field of ``bits`` bits per cell. An empty cell (or a
wall) holds 0; a cell under a piece holds a code naming the piece's shape class and which of
its cells this is. Pieces of one shape share a class, so positions that look the same are the
same integer; the goal piece always has a class of its own. Mirror images stay distinct.

A unit step of a piece is precomputed as a ``Step``: the cells it newly enters (as a mask of
whole fields, which must all be empty) and the number to add to the position to make it. The
moves of a position are then found from its empty cells: only a piece next to an empty cell
can move, and the code in that neighbouring cell tells which piece it is and where it starts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from webapp.games.blocks.level import Level

DIRECTIONS = "UDLR"
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))

# A Step is a list, indexed by these constants, for speed in the inner loops:
ENTER, ADD, CLASS, FROM, DIRECTION, TO, ONWARD, PIECE = range(8)
# ENTER: mask of the fields of the cells the piece enters; ADD: the number to add to the key;
# CLASS: the piece's shape class; FROM/TO: its top-left cell before and after; DIRECTION: an
# index into DIRECTIONS; ONWARD: the Step one further cell the same way, or None; PIECE: a
# small number naming the piece's class and starting cell together.

METRICS = ("steps", "line_moves", "path_moves")

#: Sets of empty cells kept in the memo of where pieces can go (cleared when full).
FLOOD_MEMO_SIZE = 50_000


#: Where a memo entry of the path moves keeps the positions looked at with its empty cells.
LOOKED = -1


class Looked:
    """The positions a search has looked at, by their empty cells (the flags of those cells),
    for its heat map: ``empties`` lists them one by one; the path moves count them in their
    memo by empty cells instead (``memos``: each set of empty cells with its entry, the count
    under LOOKED). ``take`` hands on the counts so far."""

    def __init__(self) -> None:
        self.empties: list[int] = []
        self.memos: list[tuple[int, dict[int, Any]]] = []

    def take(self) -> Counter[int]:
        tally = Counter(self.empties)
        self.empties.clear()
        for empty, memo in self.memos:
            times = memo.pop(LOOKED, 0)
            if times:
                tally[empty] += times
        return tally

    def __len__(self) -> int:
        return len(self.empties)


class Space:
    """The integer encoding of one level's positions, with move generation over it."""

    def __init__(self, level: Level):
        self.level = level
        width, height = level.width, level.height
        self.width = width
        cells = width * height
        # Shape classes: the goal piece alone first, then one class per other shape.
        shapes: list[tuple[int, int]] = [level.pieces[level.goal_piece].shape]
        self.class_of: list[int] = []
        for index, piece in enumerate(level.pieces):
            if index == level.goal_piece:
                self.class_of.append(0)
                continue
            if piece.shape not in shapes[1:]:
                shapes.append(piece.shape)
            self.class_of.append(shapes.index(piece.shape, 1))
        self.shapes = shapes
        self.members = [
            [i for i, k in enumerate(self.class_of) if k == cls] for cls in range(len(shapes))
        ]
        # Codes: 1.. for each (class, cell of the piece), row by row within the piece.
        self.first_code: list[int] = []
        code_info: list[tuple[int, int] | None] = [None]  # code -> (class, offset to top-left)
        for cls, (h, w) in enumerate(shapes):
            self.first_code.append(len(code_info))
            for dr in range(h):
                for dc in range(w):
                    code_info.append((cls, dr * width + dc))
        self.bits = bits = max(1, (len(code_info) - 1).bit_length())
        self.field = field = (1 << bits) - 1
        walls = level.walls
        self.flags = sum(1 << (bits * cell) for cell in range(cells) if cell not in walls)

        def fits(cls: int, place: int) -> bool:
            h, w = shapes[cls]
            r, c = divmod(place, width)
            if r + h > height or c + w > width:
                return False
            return all((r + dr) * width + c + dc not in walls for dr in range(h) for dc in range(w))

        def footprint(cls: int, place: int) -> int:
            h, w = shapes[cls]
            code = self.first_code[cls]
            total = 0
            for dr in range(h):
                for dc in range(w):
                    total += code << (bits * (place + dr * width + dc))
                    code += 1
            return total

        def fields(cls: int, place: int) -> set[int]:
            h, w = shapes[cls]
            return {place + dr * width + dc for dr in range(h) for dc in range(w)}

        self._footprint = footprint
        # steps[cls][place] -> [Step or None for U, D, L, R], or None where the piece cannot be.
        self.steps: list[list[list[list | None] | None]] = []
        for cls in range(len(shapes)):
            by_place: list[list[list | None] | None] = []
            for place in range(cells):
                if not fits(cls, place):
                    by_place.append(None)
                    continue
                moves: list[list | None] = []
                r, c = divmod(place, width)
                for d, (dr, dc) in enumerate(_DELTAS):
                    nr, nc = r + dr, c + dc
                    target = nr * width + nc
                    if not (0 <= nr < height and 0 <= nc < width) or not fits(cls, target):
                        moves.append(None)
                        continue
                    entered = fields(cls, target) - fields(cls, place)
                    enter = sum(field << (bits * cell) for cell in entered)
                    add = footprint(cls, target) - footprint(cls, place)
                    moves.append([enter, add, cls, place, d, target, None, cls * cells + place])
                by_place.append(moves)
            self.steps.append(by_place)
        # live[cls][place]: only the Steps that exist, for the flood of path moves.
        self.live = [
            [[step for step in moves if step is not None] if moves else [] for moves in by_place]
            for by_place in self.steps
        ]
        for by_place in self.steps:
            for moves in by_place:
                for step in moves or ():
                    if step is not None:
                        onward = by_place[step[TO]]
                        step[ONWARD] = onward[step[DIRECTION]] if onward else None
        # around[bit position of an empty cell's flag + 1] -> [(shift of a neighbour, table)],
        # where table[code] is the Step that slides the piece with that code in the neighbour
        # into the empty cell.
        self.around: list[list[tuple[int, list]]] = [[] for _ in range(bits * cells + 1)]
        for empty in range(cells):
            if empty in walls:
                continue
            r, c = divmod(empty, width)
            for d, (dr, dc) in enumerate(_DELTAS):
                nr, nc = r - dr, c - dc  # the neighbour that would move in direction d
                if not (0 <= nr < height and 0 <= nc < width) or nr * width + nc in walls:
                    continue
                neighbour = nr * width + nc
                table: list[list | None] = [None] * len(code_info)
                for code in range(1, len(code_info)):
                    cls, offset = code_info[code]  # type: ignore[misc]
                    dr_in, dc_in = divmod(offset, width)
                    if nr < dr_in or nc < dc_in:
                        continue
                    moves = self.steps[cls][neighbour - offset]
                    if moves is not None:
                        table[code] = moves[d]
                self.around[bits * empty + 1].append((bits * neighbour, table))
        goal_shift = bits * level.goal_place
        self.goal_mask = field << goal_shift
        self.goal_value = self.first_code[0] << goal_shift

    # -- positions ------------------------------------------------------------------------
    def encode(self, places: tuple[int, ...]) -> int:
        """The key of a game position (top-left cells of the level's pieces, in order)."""
        return sum(self._footprint(self.class_of[i], place) for i, place in enumerate(places))

    def decode(self, key: int) -> tuple[int, ...]:
        """A game position with this key; same-shaped pieces are placed in board order."""
        found: list[list[int]] = [[] for _ in self.shapes]
        bits, field = self.bits, self.field
        tops = {code: cls for cls, code in enumerate(self.first_code)}
        for cell in range(self.level.width * self.level.height):
            cls = tops.get((key >> (bits * cell)) & field)
            if cls is not None:
                found[cls].append(cell)
        places = [0] * len(self.class_of)
        for cls, members in enumerate(self.members):
            for index, place in zip(members, found[cls], strict=True):
                places[index] = place
        return tuple(places)

    def is_goal(self, key: int) -> bool:
        return key & self.goal_mask == self.goal_value

    def empties(self, key: int) -> int:
        """The flag bits of the empty cells."""
        occupied = key
        for shift in range(1, self.bits):
            occupied |= key >> shift
        return self.flags & ~occupied

    # -- moves ----------------------------------------------------------------------------
    def first_steps(self, key: int) -> list[list]:
        """Every unit step possible in this position (a piece may appear more than once)."""
        out = []
        field, around = self.field, self.around
        empty = self.empties(key)
        while empty:
            low = empty & -empty
            empty ^= low
            for shift, table in around[low.bit_length()]:
                step = table[(key >> shift) & field]
                if step is not None and not key & step[ENTER]:
                    out.append(step)
        return out

    def children(self, metric: str, looked: Looked | None = None) -> Callable[[int], list[int]]:
        """The function giving the positions one move away, in the metric's kind of move.
        With ``looked``, each position it is given is noted there by its empty cells: a
        search's heat map counts the cells under a piece from them (solver.py), as the moves
        are found from the empty cells anyway."""
        field, around, live = self.field, self.around, self.live
        occupied_shifts = range(1, self.bits)
        flags = self.flags
        # The path moves count in their memo by empty cells (no second lookup); the others
        # note each position's empty cells.
        paths = metric == "path_moves"
        note = looked.empties.append if looked is not None and not paths else None
        memos = looked.memos if looked is not None and paths else None

        def empties(key: int) -> int:
            occupied = key
            for shift in occupied_shifts:
                occupied |= key >> shift
            empty = flags & ~occupied
            if note is not None:
                note(empty)
            return empty

        def unit(key: int) -> list[int]:
            out = []
            empty = empties(key)
            while empty:
                low = empty & -empty
                empty ^= low
                for shift, table in around[low.bit_length()]:
                    step = table[(key >> shift) & field]
                    if step is not None and not key & step[0]:
                        out.append(key + step[1])
            return out

        def line(key: int) -> list[int]:
            out = []
            empty = empties(key)
            while empty:
                low = empty & -empty
                empty ^= low
                for shift, table in around[low.bit_length()]:
                    step = table[(key >> shift) & field]
                    if step is not None and not key & step[0]:
                        child = key + step[1]
                        out.append(child)
                        step = step[6]
                        while step is not None and not child & step[0]:
                            child += step[1]
                            out.append(child)
                            step = step[6]
            return out

        # Where a piece can go depends only on the empty cells, so floods repeat: remember
        # them, for each set of empty cells, by piece (see PIECE).
        flood_memo: dict[int, dict[int, list[int]]] = {}

        def path(key: int) -> list[int]:
            out: list[int] = []
            done = 0  # flags of the top-left cells of the pieces already flooded
            empty = rest = empties(key)
            known = flood_memo.get(empty)
            if known is None:
                if len(flood_memo) >= FLOOD_MEMO_SIZE:
                    flood_memo.clear()
                known = flood_memo[empty] = {}
                if memos is not None:
                    memos.append((empty, known))
            if memos is not None:
                known[LOOKED] = known.get(LOOKED, 0) + 1
            while rest:
                low = rest & -rest
                rest ^= low
                for shift, table in around[low.bit_length()]:
                    step = table[(key >> shift) & field]
                    if step is None or key & step[0] or done >> step[3] & 1:
                        continue
                    done |= 1 << step[3]
                    adds = known.get(step[7])
                    if adds is None:
                        adds = known[step[7]] = flood(key, step[2], step[3])
                    for add in adds:
                        out.append(key + add)
            return out

        def flood(key: int, cls: int, place: int) -> list[int]:
            """What to add to ``key`` for each other place the piece at ``place`` reaches."""
            by_place = live[cls]
            # A piece reaches few places, so short lists beat sets here.
            reached = [key]
            places = [place]
            i = 0
            while i < len(reached):
                here = reached[i]
                for onward in by_place[places[i]]:
                    if not here & onward[0]:
                        child = here + onward[1]
                        if child not in reached:
                            reached.append(child)
                            places.append(onward[5])
                i += 1
            return [child - key for child in reached[1:]]

        return {"steps": unit, "line_moves": line, "path_moves": path}[metric]

    def unit_steps(self, key: int, target: int) -> list[str]:
        """The unit steps of one piece taking ``key`` to ``target`` by a shortest path."""
        if key == target:
            return []
        for first in self.first_steps(key):
            by_place = self.steps[first[CLASS]]
            came: dict[int, tuple[int, list] | None] = {key: None}
            todo = [(key, first[FROM])]
            for here, place in todo:
                for step in by_place[place]:  # type: ignore[union-attr]
                    if step is None or here & step[ENTER]:
                        continue
                    child = here + step[ADD]
                    if child in came:
                        continue
                    came[child] = (here, step)
                    if child == target:
                        return self._tokens(came, child)
                    todo.append((child, step[TO]))
        raise ValueError("no single piece's moves lead to that position")

    def _tokens(self, came: dict[int, tuple[int, list] | None], key: int) -> list[str]:
        tokens = []
        link = came[key]
        while link is not None:
            key, step = link
            row, column = divmod(step[FROM], self.width)
            tokens.append(f"{row},{column}{DIRECTIONS[step[DIRECTION]]}")
            link = came[key]
        return tokens[::-1]

    def successors(self, key: int, metric: str) -> list[tuple[list[str], int]]:
        """Each distinct position one move away, with the unit steps of that move."""
        seen: set[int] = set()
        out = []
        for child in self.children(metric)(key):
            if child not in seen:
                seen.add(child)
                out.append((self.unit_steps(key, child), child))
        return out
