"""The one small interface every game implements, and the errors it raises.

A game is a set of pure functions over immutable values: parse level text, give the start
state, apply a move (a short string in the game's notation) to get a new state, tell a win.
Undo, redo, storage, the web and the solvers' plumbing live above this and are written once.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from webapp.search import Monitor, Result

Level = TypeVar("Level")
State = TypeVar("State")

#: Largest level text any parser accepts; longer text is refused before parsing.
MAX_LEVEL_TEXT = 200_000
#: The difficulties every game's generator offers, easiest first; the last is for strong
#: players only.
DIFFICULTIES = ("easy", "medium", "hard", "expert")


@dataclass
class Made:
    """A level a game made (``Game.generate``) and what proves and measures it: a solution
    from its start, that solution's length in ``metric`` (``proved``: no shorter one
    exists), and the figures its difficulty was judged by (``measures``)."""

    level: Any
    solution: list[str]
    optimum: int
    metric: str
    proved: bool
    measures: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Tool:
    """One tool of a game's editor palette, in the game's own words: the key that picks it,
    and what it does to a cell. ``kind`` "paint" leaves ``paints[cell]`` (``paints["*"]`` for
    a cell not listed); "piece" paints the piece chosen beside the palette; "remove" clears
    the whole piece under it to ``paints["*"]``; "swap" trades two cells (a drag from one to
    the other, or two clicks)."""

    key: str
    label: str
    paints: Mapping[str, str] = field(default_factory=dict)
    kind: str = "paint"


@dataclass(frozen=True)
class Look:
    """How the editor draws a cell's value: the classes of the game's own board cells, the
    symbol inside, and its name for a screen reader and a tooltip."""

    classes: str
    symbol: str = ""
    label: str = ""


@dataclass(frozen=True)
class EditField:
    """A setting of a draft beside its grid (a goal piece and its place, say)."""

    name: str
    label: str
    kind: str = "text"  # text | number | piece


@dataclass
class Draft:
    """A level in the making: its grid of cell values (strings, a row a list) and its other
    settings by name (``title`` for every game)."""

    rows: list[list[str]]
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DraftText:
    """A draft written in the game's format, and where its grid starts in that text: the
    1-based line of its first row and the characters a cell takes in a line, so an error's
    line and column name a square."""

    text: str
    first_line: int = 1
    cell_width: int = 1

    def square(self, line: int | None, column: int | None) -> tuple[int, int] | None:
        """The (row, column) of the grid at a line and column of the text; None outside it."""
        if line is None or column is None or line < self.first_line:
            return None
        return (line - self.first_line, max(0, (column - 1) // self.cell_width))

    def in_rows(self, message: str) -> str:
        """A parser's message in the editor's words: "line 6, column 3" of the text is the
        grid's row and column, as the editor numbers them (from 1)."""

        def row(match: re.Match[str]) -> str:
            square = self.square(int(match[1]), int(match[2]))
            if square is None:
                return match[0]
            return f"row {square[0] + 1}, column {square[1] + 1}"

        return re.sub(r"\bline (\d+), column (\d+)", row, message)


class Editor:
    """A game's level editor: its palette, how each value of a cell is drawn, and its drafts
    read from levels and written as the game's text. A game's ``editor()`` returns one."""

    #: The smallest and largest grid: rows, then columns; and a new board's size.
    rows: tuple[int, int] = (3, 30)
    cols: tuple[int, int] = (3, 30)
    size: tuple[int, int] = (7, 7)
    #: The value "trim" cuts from the grid's edges (the outside), or None for no trim.
    outside: str | None = None
    #: What a resize keeps of the grid, the rest from a blank board of the new size: the
    #: squares at its top-left ("corner"), those inside its border ("inside": the border is
    #: the blank's), or nothing ("nothing": a board no part of which stands alone).
    resize_keeps: str = "corner"
    #: The most moves from solved ``shuffle`` sets a board to; 0 for no shuffle.
    shuffle_most: int = 0

    def tools(self) -> Sequence[Tool]:
        """The palette, in the game's words, the default tool first."""
        raise NotImplementedError

    def looks(self, draft: Draft) -> Mapping[str, Look]:
        """How each value a cell may take is drawn: every value the tools paint, and those
        in ``draft``."""
        raise NotImplementedError

    def fields(self) -> Sequence[EditField]:
        """A draft's settings besides its grid and title."""
        return ()

    def actions(self) -> Sequence[tuple[str, str, Mapping[str, str]]]:
        """Whole-board actions of the game's own (a Sokoban level's boxes and goals swapped):
        (name, label, the value each value becomes)."""
        return ()

    def blank(self, rows: int, cols: int) -> Draft:
        """A new board of ``rows`` by ``cols``."""
        raise NotImplementedError

    def draft_of(self, level: Any) -> Draft:
        """``level`` as a draft, its title in ``fields["title"]``."""
        raise NotImplementedError

    def text(self, draft: Draft) -> DraftText:
        """``draft`` in the game's format: its ``parse`` reads it back, or names the square
        at fault with a LevelError."""
        raise NotImplementedError

    def outside_squares(self, level: Any) -> frozenset[tuple[int, int]]:
        """The squares (row, column) beyond the level's walls: drawn as the game's board
        draws them. None by default."""
        return frozenset()

    def target_squares(self, draft: Draft) -> frozenset[tuple[int, int]]:
        """The squares (row, column) a goal set beside the grid marks (a piece's goal),
        drawn as the game's board draws a target. None by default."""
        return frozenset()

    def shuffle(self, draft: Draft, moves: int, rng: Random) -> Draft:
        """``draft``'s board set to a position exactly ``moves`` from solved, proved (a
        search: the web layer runs it in a solver child); LevelError when out of reach."""
        raise LevelError("this editor has no shuffle")


class LevelError(ValueError):
    """A level text that cannot be played, with the 1-based line and column at fault."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message = message
        self.line = line
        self.column = column
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__(where + message)


class UnsolvableLevel(LevelError):
    """A level text well formed but proved impossible by its rules alone (a colour with a
    single block that can never vanish, a board of the wrong parity): the editor's verdict
    "unsolvable", with the square at fault."""


class MoveError(ValueError):
    """A move string that is not in the game's notation."""


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow in this state."""


@dataclass(frozen=True)
class Algorithm:
    """A named solver of one game, as the CLI and the solve page list it."""

    name: str
    summary: str
    #: What a solution's length counts: "moves", "pushes", "steps", "line_moves", "path_moves".
    metric: str
    #: True when a solution this algorithm returns is guaranteed shortest in ``metric``.
    optimal: bool
    #: ``run(level, state, monitor)`` searches from ``state`` and returns a Result whose moves
    #: are tokens in the game's notation. It calls ``monitor.tick`` often (see webapp.search).
    run: Callable[[Any, Any, Monitor], Result]
    #: The algorithm in a player's words, as the solver panel names it: what it does and what
    #: its answer is worth ("breadth-first (fewest pushes, proved)"); ``name`` when empty.
    label: str = ""
    #: True when ``run`` tells a monitor's tracer of each expansion (``webapp.search.Tracer``):
    #: the textbook searches, which ``python -m webapp trace`` steps through.
    steps: bool = False


@dataclass(frozen=True)
class Collection:
    """Levels parsed from one file, with the title and credit shown to players."""

    slug: str
    title: str
    levels: Sequence[Any]
    credit: str = ""
    description: str = ""


class Game(ABC, Generic[Level, State]):
    """What a game module provides; see docs/game-interface.md for what goes where."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: A middling level's solution length in the first counter: where ratings start
    #: (a level twice as long is predicted 400 points harder).
    typical_length: ClassVar[int] = 20
    #: The counters shown to the player, in order, e.g. ("moves", "pushes").
    counters: ClassVar[tuple[str, ...]] = ("moves",)
    #: What a search's heat map counts on a square, in the game's words ("a box"): the
    #: solver panel says "how often each square held a box".
    heat_piece: ClassVar[str] = "a piece"
    #: Where the game stands in lists (the home page, the menu): smaller first.
    order: ClassVar[int] = 100

    # -- levels -----------------------------------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> list[Level]:
        """Parse a level file or collection; raise LevelError naming line and column."""

    @abstractmethod
    def level_text(self, level: Level) -> str:
        """The canonical text of a level; parse(level_text(x)) gives x back, title included."""

    @abstractmethod
    def board_text(self, level: Level) -> str:
        """The canonical text of the board alone (no title): what a level's content id hashes."""

    def level_title(self, level: Level) -> str:
        return getattr(level, "title", "") or ""

    # -- play -------------------------------------------------------------------------------
    @abstractmethod
    def start(self, level: Level) -> State:
        """The position the level starts in."""

    @abstractmethod
    def split_moves(self, moves: str) -> list[str]:
        """Split a move string into single-move tokens; raise MoveError on bad notation."""

    @abstractmethod
    def join_moves(self, tokens: Iterable[str]) -> str:
        """The inverse of split_moves."""

    @abstractmethod
    def apply(self, level: Level, state: State, move: str) -> State:
        """The state after one move token; raise IllegalMove (or MoveError) if not allowed."""

    @abstractmethod
    def legal_moves(self, level: Level, state: State) -> list[str]:
        """Every move token allowed in this state."""

    @abstractmethod
    def is_solved(self, level: Level, state: State) -> bool:
        """True when the state is a win."""

    @abstractmethod
    def render_text(self, level: Level, state: State) -> str:
        """The position as text in the game's own level format."""

    def count(
        self, level: Level, tokens: Sequence[str], state: State | None = None
    ) -> dict[str, int]:
        """The counters (see ``counters``) for move tokens played from ``state`` (the start
        by default)."""
        return {"moves": len(tokens)}

    # -- solvers ----------------------------------------------------------------------------
    default_algorithm: ClassVar[str] = ""

    def algorithms(self) -> dict[str, Algorithm]:
        """The solvers, by name; the game's solver module is imported only when asked."""
        return {}

    def default_for(self, level: Level) -> str:
        """The solver to use on this level when none is named (some only suit small boards)."""
        return self.default_algorithm

    def normalize_move(self, level: Level, state: State, move: str) -> str:
        """The canonical spelling of a legal move (Sokoban upper-cases pushes)."""
        return move

    def describe_move(self, level: Level, state: State, move: str) -> str:
        """The move in words, for hints (e.g. "push left")."""
        return move

    def move_label(self, level: Level, state: State, move: str) -> str:
        """The move as the board shows it, short, for a move list: the piece as it is drawn
        and the way it goes (the notation of links and the command line stays ``move``)."""
        return move

    def click(self, level: Level, state: State, row: int, column: int) -> list[str]:
        """The moves a click on the cell at (row, column) stands for; none by default."""
        return []

    def announce(self, level: Level, before: State | None, after: State, move: str | None) -> str:
        """What a screen reader says after ``move`` took ``before`` to ``after`` (e.g. "Box
        pushed right. 3 of 4 boxes on goals."). ``move`` and ``before`` are None after an
        undo, a redo or a restart, when only the position is told. By default: the move as
        ``describe_move`` words it, and "Solved!" on a win."""
        words = []
        if move is not None and before is not None:
            said = self.describe_move(level, before, move)
            words.append(said[:1].upper() + said[1:] + ".")
        if self.is_solved(level, after):
            words.append("Solved!")
        return " ".join(words)

    def replay(self, level: Level, tokens: Iterable[str], state: State | None = None) -> State:
        """Apply tokens one by one from ``state`` (the start by default)."""
        if state is None:
            state = self.start(level)
        for token in tokens:
            state = self.apply(level, state, token)
        return state

    # -- optional hooks: a game fills in those it has (docs/game-interface.md) ---------------
    #: True when a whole position can be written in an address (``position_code``).
    has_position_codes: ClassVar[bool] = False

    def position_code(self, level: Level) -> str:
        """The code of a level in the position address ``/<game>/p/<code>``."""
        raise NotImplementedError(f"{self.title} has no position codes")

    def from_code(self, code: str) -> Level:
        """The level a position code stands for; LevelError when it names none."""
        raise LevelError(f"{self.title} has no position codes")

    def position_title(self, level: Level) -> str:
        """The heading of a level reached by its position code."""
        return self.level_title(level) or self.title

    #: True when the game's start form (``start.html``) deals new games: ``level_from_form``.
    has_start_form: ClassVar[bool] = False

    def level_from_form(self, settings: Mapping[str, str], rng: Random) -> Level:
        """A new game from the fields of the game's start form (a shuffle, say: Tatham's
        ``new_desc``), unsolved; LevelError naming a setting that is out of range."""
        raise LevelError(f"{self.title} deals no new games")

    #: True when ``new_level`` makes levels of a chosen difficulty.
    generates: ClassVar[bool] = False
    #: The board sizes ``new_level`` offers, the default first (e.g. "4x4"); none when the
    #: difficulty alone sets the board.
    made_sizes: ClassVar[tuple[str, ...]] = ()

    def new_level(self, settings: Mapping[str, str], rng: Random) -> Made:
        """A new level made to ``settings``: its ``difficulty`` (one of DIFFICULTIES), its
        ``size`` (one of ``made_sizes``; the default when absent) and the ``title`` to give
        it where the game's levels have titles; drawn from ``rng`` alone, and solved. The
        same settings and ``rng`` state give the same level, so every search inside is
        bounded by counts, never by time."""
        raise LevelError(f"{self.title} makes no levels of its own")

    # -- the editor (docs/game-interface.md, "The editor") ------------------------------------
    def editor(self) -> Editor | None:
        """The game's level editor (``<game>/edit.py``, imported when asked for), or None:
        a game with one gets /<game>/edit and "Edit a copy" on its level pages."""
        return None

    #: The metrics ``improve`` can shorten a solution in, the default first; none for a game
    #: without a solution optimizer.
    improves: ClassVar[tuple[str, ...]] = ()

    def improve(
        self,
        level: Level,
        moves: list[str],
        metric: str,
        seconds: float,
        progress: Callable[[int, int], None] | None = None,
    ) -> Any:
        """A solution of ``level`` from its start made no longer in ``metric``, shorter where
        the game's optimizer finds a way within ``seconds``: an object with the new ``moves``
        (replayed through the rules) and the positions ``expanded``. ValueError when
        ``moves`` do not solve the level. ``progress`` is told the length in ``metric`` and
        the positions expanded so far at each gain."""
        raise LevelError(f"{self.title} has no solution optimizer")

    #: True when the board can show a picture the player chooses, uploads included.
    uses_pictures: ClassVar[bool] = False

    def board_shape(self, level: Level) -> tuple[int, int]:
        """Rows and columns of the board (a picture is cropped to this shape)."""
        return (getattr(level, "height", 1), getattr(level, "width", 1))

    def sketch(self, level: Level) -> list[str] | None:
        """The board at its start in the shared kinds of cell of ``webapp/core/sketch.py``
        (``#`` wall, ``.`` floor, ``+`` goal, ``$`` box or piece, ``*`` box on goal, ``@``
        player, ``!`` the piece to bring out, ``=`` another piece, ``T`` a tile, a to z a
        colour, a space outside): one string a row, for a collection page's small picture.
        None draws nothing."""
        return None

    def par(self, level: Level) -> int | None:
        """The level's par, where its collection publishes one: the moves a good solution
        takes, which a player's count is scored against (their golf score). None by
        default."""
        return None

    def estimate(self, level: Level) -> int | None:
        """A quick estimate of a solution's length (in the measure of ``typical_length``)
        where nothing better is known: a solver's lower bound at the start, which places a
        level nobody has rated yet (webapp/core/results.py). None by default."""
        return None

    def known_optimum(self, level: Level) -> int | None:
        """The optimal solution's length as the level's own text gives it (a level file may
        end a row with it), which ``solve`` echoes as ``known_optimal``. None by default."""
        return None

    def recorded_optimum(self, level: Level) -> tuple[int, str] | None:
        """The fewest moves the level's own record proves in one of ``counters``, and that
        count's name: a win is measured against it (webapp/core/results.py). Unlike
        ``known_optimum`` it is not echoed by ``solve``, whose output is fixed. None by
        default."""
        return None

    def frames(self, level: Level, state: State, move: str) -> list[State]:
        """The positions a move passes through before it comes to rest, in order, for the
        page to animate; not the resting position itself. None by default."""
        return []

    #: True when the game precomputes tables for a level (``build_tables``).
    has_tables: ClassVar[bool] = False

    def build_tables(self, level: Level) -> Any:
        """Tables for this level that give page figures and instant hints: heavy, so the web
        layer runs it in a child process and keeps the result. None when the level is too
        large for them."""
        return None

    def page_figures(self, level: Level, state: State, tables: Any) -> dict[str, Any]:
        """Values the game's own templates show beyond the counters (the fewest moves left,
        where a piece can be dragged). ``tables`` is what ``build_tables`` gave, or None while
        they are being built or when the game has none."""
        return {}

    def quick_hint(self, level: Level, state: State, tables: Any) -> list[str] | None:
        """The next moves of a solution from ``tables``, without a search; None if unknown."""
        return None

    #: True when some solver keeps tables on disk that are worth building ahead of time.
    has_disk_tables: ClassVar[bool] = False

    def use_disk_tables(self, folder: Path) -> None:
        """Keep the solver's tables in ``folder`` from now on (in the process that solves)."""

    def disk_tables_ready(self, folder: Path) -> bool:
        """Whether the solver's tables in ``folder`` are built."""
        return True

    def build_disk_tables(self, folder: Path) -> bool:
        """Build the solver's tables into ``folder`` (heavy: the web layer runs it in a
        low-priority child process); False at once, with nothing done, when another process
        of the machine is building them there (one builder per folder)."""
        return True

    def warm_up(self) -> None:
        """Ready compiled code (load it, or compile it on a new install) so a player's first
        solve does not wait for the compiler. Nothing by default."""

    # -- checking a level (the editor's verdict, ``webapp/checking.py``) -----------------------
    def dead_squares(self, level: Level) -> frozenset[tuple[int, int]]:
        """The squares (row, column) of the level's grid from which a piece can never reach
        its goal, whatever else moves (the editor shades them while a designer draws). None
        by default."""
        return frozenset()

    def unsolvable_reason(self, level: Level) -> tuple[str, tuple[tuple[int, int], ...]] | None:
        """A quick proof that the level cannot be solved: the reason in plain words ("a box
        on a square from which no goal can be reached") and the squares (row, column) it is
        about, for the editor to highlight. Only what is certain; None when there is no such
        proof (the search may still find none)."""
        return None
