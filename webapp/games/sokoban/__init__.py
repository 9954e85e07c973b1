"""Sokoban: push every box onto a goal. Moves are LURD (lower case a step, upper case a push)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from random import Random
from typing import TYPE_CHECKING

from webapp.games.base import Algorithm, Editor, Game, IllegalMove, Made, MoveError
from webapp.games.sokoban.level import Level, parse_collection
from webapp.games.sokoban.position import DIRECTIONS, Position, step_offset, walk

if TYPE_CHECKING:
    from webapp.games.sokoban.optimize import Improvement


class Sokoban(Game[Level, Position]):
    name = "sokoban"
    title = "Sokoban"
    counters = ("moves", "pushes")
    heat_piece = "a box"
    typical_length = 20  # pushes: where a new level's rating starts
    default_algorithm = "fast"
    order = 10

    def editor(self) -> Editor:
        from webapp.games.sokoban.edit import EDITOR

        return EDITOR

    def parse(self, text: str) -> list[Level]:
        return parse_collection(text)

    def level_text(self, level: Level) -> str:
        head = f"Title: {level.title}\n" if level.title else ""
        return head + level.xsb()

    def board_text(self, level: Level) -> str:
        return level.xsb()

    def start(self, level: Level) -> Position:
        return Position(level.player, level.boxes)

    def split_moves(self, moves: str) -> list[str]:
        tokens = [ch for ch in moves if not ch.isspace()]
        for index, ch in enumerate(tokens):
            if ch.lower() not in DIRECTIONS:
                raise MoveError(
                    f"move {index + 1} is {ch!r}: Sokoban moves are l u r d (steps) "
                    "and L U R D (pushes)"
                )
        return tokens

    def join_moves(self, tokens: Iterable[str]) -> str:
        return "".join(tokens)

    generates = True

    def new_level(self, settings: Mapping[str, str], rng: Random) -> Made:
        """A room whose start is as many pushes from solved as the difficulty asks, made
        backwards from the solved position."""
        from webapp.games.sokoban.generate import generate

        return generate(settings["difficulty"], rng, settings.get("title", ""), self)

    def apply(self, level: Level, state: Position, move: str) -> Position:
        direction = move.lower()
        if direction not in DIRECTIONS:
            raise MoveError(f"{move!r} is not a Sokoban move")
        offset = step_offset(level, direction)
        target = state.player + offset
        if target not in level.floor:
            raise IllegalMove("a wall is in the way")
        if target in state.boxes:
            beyond = target + offset
            if beyond not in level.floor or beyond in state.boxes:
                raise IllegalMove("that box cannot move: something is behind it")
            return Position(target, (state.boxes - {target}) | {beyond})
        if move.isupper():
            raise IllegalMove(f"{move!r} is a push, but there is no box to push")
        return Position(target, state.boxes)

    def normalize_move(self, level: Level, state: Position, move: str) -> str:
        """The move with the right case: upper case when it pushes a box."""
        if move.lower() not in DIRECTIONS:
            raise MoveError(f"{move!r} is not a Sokoban move")
        target = state.player + step_offset(level, move.lower())
        return move.upper() if target in state.boxes else move.lower()

    def describe_move(self, level: Level, state: Position, move: str) -> str:
        words = {"l": "left", "u": "up", "r": "right", "d": "down"}[move.lower()]
        return ("push " if move.isupper() else "step ") + words + f" ({move})"

    def legal_moves(self, level: Level, state: Position) -> list[str]:
        moves = []
        for direction in DIRECTIONS:
            offset = step_offset(level, direction)
            target = state.player + offset
            if target not in level.floor:
                continue
            if target in state.boxes:
                beyond = target + offset
                if beyond in level.floor and beyond not in state.boxes:
                    moves.append(direction.upper())
            else:
                moves.append(direction)
        return moves

    def is_solved(self, level: Level, state: Position) -> bool:
        return state.boxes == level.goals

    def algorithms(self) -> dict[str, Algorithm]:
        from webapp.games.sokoban.solver import ALGORITHMS

        return ALGORITHMS

    #: The metrics a solution can be improved in (``improve``), the default first.
    improves = ("moves", "pushes")

    def improve(
        self,
        level: Level,
        moves: list[str],
        metric: str,
        seconds: float,
        progress: Callable[[int, int], None] | None = None,
    ) -> Improvement:
        """A solution made no longer in ``metric``, shorter where a search finds a way
        (optimize.py); ValueError when ``moves`` do not solve the level."""
        from webapp.games.sokoban.optimize import improve

        return improve(self, level, moves, metric, seconds, progress=progress)

    def warm_up(self) -> None:
        from webapp.games.sokoban.warmup import warm_up

        warm_up()

    def sketch(self, level: Level) -> list[str]:
        start = self.start(level)
        kinds = {"#": "#", " ": ".", ".": "+", "$": "$", "*": "*", "@": "@", "+": "@"}
        rows = []
        for line in self.render_text(level, start).split("\n"):
            first, last = line.find("#"), line.rfind("#")
            cells = [kinds.get(ch, ".") for ch in line]
            rows.append("".join(ch if first <= i <= last else " " for i, ch in enumerate(cells)))
        return rows

    def render_text(self, level: Level, state: Position) -> str:
        return level.xsb(state.player, state.boxes)

    def count(
        self, level: Level, tokens: Sequence[str], state: Position | None = None
    ) -> dict[str, int]:
        return {"moves": len(tokens), "pushes": sum(1 for t in tokens if t.isupper())}

    def click(self, level: Level, state: Position, row: int, column: int) -> list[str]:
        """A click on a box next to the player pushes it one step away from the player (when
        it can move); a click on a floor square walks there by a shortest path (no pushes)."""
        if not (0 <= row < level.height and 0 <= column < level.width):
            return []
        cell = row * level.width + column
        if cell in state.boxes:
            for direction in DIRECTIONS:
                if state.player + step_offset(level, direction) == cell:
                    push = direction.upper()
                    return [push] if push in self.legal_moves(level, state) else []
            return []
        return walk(level, state, cell) or []

    def announce(
        self, level: Level, before: Position | None, after: Position, move: str | None
    ) -> str:
        """ "Box pushed right. 3 of 4 boxes on goals." (or "Stepped left." when it pushed none)."""
        words = []
        if move is not None and before is not None:
            way = {"l": "left", "u": "up", "r": "right", "d": "down"}[move.lower()]
            words.append(f"Box pushed {way}." if after.boxes != before.boxes else f"Stepped {way}.")
        home = len(after.boxes & level.goals)
        goals = len(level.goals)
        words.append(f"{home} of {goals} {'box' if goals == 1 else 'boxes'} on goals.")
        if after.boxes == level.goals:
            words.append("Solved!")
        return " ".join(words)

    def estimate(self, level: Level) -> int | None:
        """The solver's lower bound at the start: each box matched to its own goal, the
        fewest pushes in all (the matching bound, webapp/games/sokoban/matching.py)."""
        from webapp.games.sokoban.verdict import start_bound

        return start_bound(level)

    # -- checking a level (verdict.py) ------------------------------------------------------
    def dead_squares(self, level: Level) -> frozenset[tuple[int, int]]:
        from webapp.games.sokoban.verdict import dead_squares

        return dead_squares(level)

    def unsolvable_reason(self, level: Level) -> tuple[str, tuple[tuple[int, int], ...]] | None:
        from webapp.games.sokoban.verdict import unsolvable_reason

        return unsolvable_reason(level)


GAME = Sokoban()
