"""A game in progress: a level, a history of move tokens and an undo cursor.

Undo, redo and restart live here once for every game. The position is never stored: it is
derived by replaying the history up to the cursor. A restart is itself a step of history
(the token RESTART), so it can be undone like any move. Moves the player did not find
(a solver's solution, a replay link's) follow the token ASSIST: a win after it is assisted,
and undoing back over it leaves the game the player's own again. The steps of one gesture (a
click that walks, a piece dragged along a path) stand between GESTURE and END, so that one
undo takes the whole gesture back; a history without them (older games) undoes step by step.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from webapp.games.base import Game, IllegalMove, MoveError

RESTART = "!"
#: Marks the moves after it (to the next restart) as not the player's own.
ASSIST = "*"
#: Open and close the steps of one gesture: undo and redo take them as one.
GESTURE, END = "(", ")"
MARKS = (RESTART, ASSIST, GESTURE, END)
#: The marks that may stand inside the moves since the last restart.
_INNER = frozenset((ASSIST, GESTURE, END))

#: The longest history kept for one game; beyond it a move is refused with a message. A move's
#: work grows with its game (the history is saved whole, and counted), so the cap bounds it:
#: no level shipped here needs a tenth of it.
MAX_HISTORY = 20_000


class StateCache:
    """Positions already derived, so a move does not replay a long game from its start.

    Per game (key) it keeps the moves it last saw and the positions at every ``every``-th
    move of them; a new request replays only from the last position its moves share.
    """

    def __init__(self, size: int = 5000, every: int = 64, max_bytes: int = 64 * 2**20):
        self.size = size
        self.every = every
        #: Bytes the kept moves and positions may take, estimated: a long game keeps a
        #: position every ``every`` moves, so entries are counted by their size, not number.
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[Hashable, tuple[list[str], dict[int, Any], int]] = OrderedDict()
        self._lock = threading.Lock()

    def state(self, key: Hashable, game: Game, level: Any, moves: Sequence[str]) -> Any:
        with self._lock:
            entry = self._entries.get(key)
        start, state, marks = 0, None, {}
        if entry is not None:
            old, old_marks, _size = entry
            if len(old) <= len(moves) and list(moves[: len(old)]) == old:
                shared = len(old)  # the usual case, one move on: compared in C, not a loop
            else:
                shared = 0
                for a, b in zip(old, moves, strict=False):
                    if a != b:
                        break
                    shared += 1
            marks = {i: s for i, s in old_marks.items() if i <= shared}
            if marks:
                start = max(marks)
                state = marks[start]
        if state is None:
            state = game.start(level)
            marks = {0: state}
        for index in range(start, len(moves)):
            state = game.apply(level, state, moves[index])
            if (index + 1) % self.every == 0:
                marks[index + 1] = state
        marks = {i: s for i, s in marks.items() if i % self.every == 0}
        marks[len(moves)] = state
        size = MOVE_BYTES * len(moves) + position_bytes(state) * len(marks)
        with self._lock:
            replaced = self._entries.pop(key, None)
            self.bytes += size - (replaced[2] if replaced else 0)
            self._entries[key] = (list(moves), marks, size)
            while self._entries and (len(self._entries) > self.size or self.bytes > self.max_bytes):
                self.bytes -= self._entries.popitem(last=False)[1][2]
        return state

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


#: What one move token of a kept list takes in memory, roughly (a short str and its slot).
MOVE_BYTES = 64


def position_bytes(state: Any) -> int:
    """Roughly what one position takes in memory: its pickled size, doubled for the objects
    around it (a cheap bound, measured once per kept game)."""
    try:
        return 2 * len(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)) + 64
    except Exception:  # noqa: BLE001 - a position that cannot be pickled: a generous guess
        return 4096


@dataclass
class Play:
    game: Game
    level: Any
    history: list[str] = field(default_factory=list)
    cursor: int = 0
    _state: Any = None
    #: Where derived positions are remembered between requests, and this game's key there.
    cache: StateCache | None = None
    cache_key: Hashable = None
    #: Why a stored history no longer replays, or "". Such a game shows the position before
    #: the first move the rules refuse and takes no move but a restart (``mark_broken``).
    broken: str = ""
    _broken_at: int | None = None
    #: The game as the store held it when this one was loaded (None: nothing was stored);
    #: a save goes through only if that is still what is stored.
    version: Any = None
    #: Changes made through this object, so ``moves`` is worked out once per change (a page
    #: asks for it a dozen times, and on a long game each is a copy of the whole history).
    _edits: int = 0
    _moves: tuple[Any, list[str]] | None = None
    #: Why the win on the board is kept but not ranked ("hasty": played faster than a person
    #: could), or "": set when the win is saved.
    unranked: str = ""
    #: The player was shown a solution of this board (the store keeps it per player and
    #: board): set by the web tier before a win is judged.
    shown: bool = False

    # -- derived ------------------------------------------------------------------------------
    @property
    def moves(self) -> list[str]:
        """The moves since the last restart, up to the cursor: what the board shows. A new
        list each time (callers may change it), copied from one worked out once per change."""
        key = (id(self.history), len(self.history), self.cursor, self._broken_at, self._edits)
        if self._moves is None or self._moves[0] != key:
            done = self._line()
            if not _INNER.isdisjoint(done):
                done = [token for token in done if token not in _INNER]
            if self._broken_at is not None:
                done = done[: self._broken_at]  # what the board shows of a broken game
            self._moves = (key, done)
        return list(self._moves[1])

    def _line(self) -> list[str]:
        """The history since the last restart, up to the cursor, marks included."""
        done = self.history[: self.cursor]
        if RESTART in done:
            done = done[len(done) - done[::-1].index(RESTART) :]
        return done

    @property
    def assisted(self) -> bool:
        """Whether the board shows moves the player did not find (ASSIST), or the player was
        shown a solution of this board (``shown``): a win then is not their own."""
        return self.shown or ASSIST in self._line()

    @property
    def state(self) -> Any:
        """The position the board shows. A history the rules refuse (the level changed under
        a stored game) marks the game broken and stands before the first refused move."""
        if self._state is None:
            try:
                if self.cache is not None:
                    self._state = self.cache.state(
                        self.cache_key, self.game, self.level, self.moves
                    )
                else:
                    self._state = self.game.replay(self.level, self.moves)
            except (IllegalMove, MoveError):
                self.mark_broken()
        return self._state

    def previous_state(self) -> Any:
        """The position before the last move shown: from the cache's positions when there is
        one (a move's page needs it, and replaying a long game from its start is slow)."""
        moves = self.moves[:-1]
        if self.cache is not None:
            return self.cache.state(self.cache_key, self.game, self.level, moves)
        return self.game.replay(self.level, moves)

    def steps_before(self, count: int) -> list[Any]:
        """The positions after each of the last ``count`` moves shown but the last, in order
        (what the page shows in between when one answer brings several moves)."""
        moves = self.moves
        count = min(count, len(moves))
        if count < 2:
            return []
        first = len(moves) - count
        if self.cache is not None:
            state = self.cache.state(self.cache_key, self.game, self.level, moves[:first])
        else:
            state = self.game.replay(self.level, moves[:first])
        steps = []
        for token in moves[first:-1]:
            state = self.game.apply(self.level, state, token)
            steps.append(state)
        return steps

    @property
    def figures(self) -> dict[str, int]:
        return self.game.count(self.level, self.moves)

    @property
    def solved(self) -> bool:
        return self.game.is_solved(self.level, self.state)

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.history)

    def move_string(self) -> str:
        return self.game.join_moves(self.moves)

    def mark_broken(self) -> None:
        """Find the first move of the history the rules refuse, and stand before it."""
        state = self.game.start(self.level)
        for index, token in enumerate(self.moves):
            try:
                state = self.game.apply(self.level, state, token)
            except (IllegalMove, MoveError) as error:
                self.broken = (
                    f"Your saved game no longer replays on this level: move {index + 1} "
                    f"({token}) is refused ({error}). It is kept as it was, and the board "
                    "shows the position before that move. Restart to play on."
                )
                self._state = state
                self._broken_at = index
                return

    # -- changes ------------------------------------------------------------------------------
    def _kept(self) -> int:
        """The entries of the history up to the cursor, a gesture's two marks not counted
        (the cap counts what the player did)."""
        return self.cursor - 2 * self.history[: self.cursor].count(GESTURE)

    def _push(self, tokens: list[str], state: Any) -> None:
        marks = 2 if tokens and GESTURE in tokens else 0
        if self._kept() + len(tokens) - marks > MAX_HISTORY:
            raise IllegalMove(f"this game already has {MAX_HISTORY:,} moves; restart it to go on")
        del self.history[self.cursor :]
        self.history.extend(tokens)
        self.cursor = len(self.history)
        self._state = state
        self._edits += 1

    def play(self, tokens: list[str], *, assisted: bool = False, gesture: bool = False) -> None:
        """Play moves in order; all or nothing (an illegal one leaves the game unchanged).
        ``assisted``: the moves are not the player's own (a solver's solution). ``gesture``:
        they are one action of the player's (a walk, a drag), undone and redone as one."""
        if self.broken:
            raise IllegalMove("this saved game no longer replays; restart it to play on")
        state = self.state
        mark = [ASSIST] if assisted and ASSIST not in self._line() else []
        played = []
        for token in tokens:
            if token in MARKS:
                raise MoveError(f"{token!r} is not a move")
            spelled = self.game.normalize_move(self.level, state, token)
            state = self.game.apply(self.level, state, spelled)
            played.append(spelled)
        if gesture and len(played) > 1:
            played = [GESTURE, *played, END]
        if played:
            self._push(mark + played, state)

    def undo(self) -> bool:
        """One move back, or one gesture; a mark left at the cursor goes with it, so that
        undo always changes the board and the game it leaves is only as assisted as its
        moves."""
        if not self.can_undo or self.broken:
            return False
        history = self.history
        cursor = self.cursor - 1
        if history[cursor] == END:  # back to before the gesture opened
            while cursor > 0 and history[cursor] != GESTURE:
                cursor -= 1
        while cursor > 0 and history[cursor - 1] in (ASSIST, GESTURE):
            cursor -= 1
        self.cursor = cursor
        self._state = None
        return True

    def redo(self) -> bool:
        """One move on, or one gesture, with the marks before it."""
        if not self.can_redo or self.broken:
            return False
        history = self.history
        cursor = self.cursor
        while cursor < len(history) - 1 and history[cursor] == ASSIST:
            cursor += 1
        if history[cursor] == GESTURE:  # on to where the gesture closes
            while cursor < len(history) - 1 and history[cursor] != END:
                cursor += 1
        self.cursor = cursor + 1
        self._state = None
        return True

    def restart(self) -> bool:
        """Back to the start, as an undoable step; nothing to do at the start already."""
        if not self.moves and not self.broken:
            return False
        self.broken, self._broken_at = "", None
        if self._kept() >= MAX_HISTORY:
            # No room to keep the old game undoable: a new one starts afresh.
            del self.history[:]
            self.cursor = 0
        self._push([RESTART], self.game.start(self.level))
        return True

    def replace(self, tokens: list[str], *, assisted: bool = False) -> None:
        """Show exactly these moves from the start (a replay link, a solver's solution),
        keeping the old position reachable by undo. Playing the same moves again changes
        nothing. ``assisted``: the moves are not the player's own."""
        if self.broken:
            raise IllegalMove("this saved game no longer replays; restart it first")
        state = self.game.start(self.level)
        spelled = []
        for token in tokens:
            if token in MARKS:
                raise MoveError(f"{token!r} is not a move")
            token = self.game.normalize_move(self.level, state, token)
            state = self.game.apply(self.level, state, token)
            spelled.append(token)
        if spelled == self.moves:
            return
        prefix = [RESTART] if self.moves else []
        mark = [ASSIST] if assisted and spelled else []
        self._push(prefix + mark + spelled, state)


class Turns:
    """The requests of one game taken one at a time, and those of one page in the order the
    page sent them.

    A page sends each move at once, without waiting for the answer to the last, and numbers
    them; requests may still reach the server out of order (they travel on several
    connections), so one waits until the one before it from the same page has been taken, or
    until ``wait`` seconds have passed (the one before was lost on the way). A request older
    than one already taken is stale: it is not played (``turn`` yields False). Within one
    server process, which is how the app is served (docs/DEPLOY.md).
    """

    def __init__(self, wait: float = 2.0, size: int = 20_000):
        self.wait = wait
        self.size = size
        self._changed = threading.Condition()
        self._taken: OrderedDict[Hashable, int] = OrderedDict()
        self._busy: set[Hashable] = set()

    @contextmanager
    def turn(
        self, game: Hashable, page: Hashable = None, number: int | None = None
    ) -> Iterator[bool]:
        """Hold ``game`` while the body runs, after request ``number - 1`` of ``page``."""
        ordered = page is not None and number is not None
        deadline = time.monotonic() + self.wait
        with self._changed:
            while True:
                last = self._taken.get(page, 0) if ordered else 0
                if ordered and number <= last:
                    stale = True  # an answer to it would show the game out of order
                    break
                due = not ordered or number == last + 1 or time.monotonic() >= deadline
                if due and game not in self._busy:
                    stale = False
                    self._busy.add(game)
                    break
                self._changed.wait(max(0.01, deadline - time.monotonic()) if not due else None)
        if stale:
            yield False
            return
        try:
            yield True
        finally:
            with self._changed:
                self._busy.discard(game)
                if ordered:
                    self._taken[page] = max(number, self._taken.get(page, 0))
                    self._taken.move_to_end(page)
                    while len(self._taken) > self.size:
                        self._taken.popitem(last=False)
                self._changed.notify_all()
