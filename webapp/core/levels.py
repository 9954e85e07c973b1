"""Finding a level from its address, a player's progress, and what a replay link shows.

Flask-free: the store and the player are arguments (webapp/web/levels.py passes the
request's). Every game is reached through ``webapp.games.base.Game`` only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from webapp import games
from webapp.core import catalog
from webapp.core.catalog import CUSTOM, POSITION, LevelRef
from webapp.core.errors import Gone, NotFound, Refused
from webapp.core.play import Play, StateCache
from webapp.core.players import Asker
from webapp.games.base import Game, IllegalMove, LevelError, MoveError
from webapp.storage.store import Store

_CUSTOM_ID = re.compile(r"^[0-9a-f]{12}$")
#: The longest replay link a view shows, in moves.
MAX_REPLAY_MOVES = 20_000
#: Moves listed on each side of the position in a replay's move list.
REPLAY_WINDOW = 40


@dataclass
class Found:
    """A level at an address, as ``player`` finds it in ``store`` (a pasted level's title is
    the one they gave it): the services on a found level (the player's game on it, its
    records, a win finished and rated) read and write that store for that player."""

    game: Game
    ref: LevelRef
    level: Any
    title: str
    next_ref: LevelRef | None = None
    collection_title: str = ""
    previous_ref: LevelRef | None = None
    number: int = 0
    total: int = 0
    store: Store = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    player: str = ""

    @property
    def collection_path(self) -> str | None:
        """The page of the collection this level is in; None for a level in none (a pasted
        level, a position code: ``/<game>/p/`` is no page)."""
        if self.ref.collection in (CUSTOM, POSITION):
            return None
        return f"/{self.game.name}/{self.ref.collection}/"

    @property
    def asker(self) -> Asker:
        """The player this level was found for, and their store."""
        return Asker(self.store, self.player)

    @property
    def board_key(self) -> str:
        """The key of this board among a player's solves, e.g. ``<game>/<collection>/3``."""
        return f"{self.game.name}/{self.ref.key}"


def get_game(name: str) -> Game:
    try:
        return games.get(name)
    except KeyError:
        raise NotFound(f"There is no game called {name!r}.") from None


def find_level(game_name: str, collection: str, ident: str, asker: Asker) -> Found:
    """The level at ``/<game_name>/<collection>/<ident>``, found for the asking player in
    their store; NotFound (or Gone, for a shared level the rules no longer read) naming what
    is wrong."""
    store, player = asker.store, asker.player
    return replace(_find(game_name, collection, ident, store, player), store=store, player=player)


def _find(game_name: str, collection: str, ident: str, store: Store, player: str) -> Found:
    game = get_game(game_name)
    if collection == POSITION and game.has_position_codes:
        try:
            level = game.from_code(ident)
        except LevelError as error:
            raise NotFound(f"This address names no {game.title} position: {error}") from None
        ref = LevelRef(game.name, POSITION, custom_id=game.position_code(level))
        if ref.custom_id != ident:
            raise NotFound("This address names no position.")
        return Found(game, ref, level, game.position_title(level), collection_title="Positions")
    if collection == CUSTOM:
        if not _CUSTOM_ID.match(ident):
            raise NotFound(f"{ident!r} is not a level id.")
        text = store.load_level(game.name, ident)
        if text is None:
            raise NotFound("No level has that id. Paste it again to get its link.")
        try:
            level = game.parse(text)[0]
        except LevelError as error:
            raise Gone(f"This shared level cannot be played any more: {error}") from None
        ref = LevelRef(game.name, CUSTOM, custom_id=ident)
        # The board's first paster named it; a player who pasted it under another title sees
        # their own.
        own = store.title(player, game.name, ident)
        title = own or catalog.level_title(game, level, "Your level")
        return Found(game, ref, level, title, collection_title="Shared levels")
    found = catalog.collection(game.name, collection)
    if found is None:
        raise NotFound(f"{game.title} has no collection called {collection!r}.")
    total = len(found.levels)
    if not ident.isdecimal() or not 1 <= int(ident) <= total:
        raise NotFound(
            f"{found.title} has levels 1 to {total}; there is no level {ident[:20]!r}.",
        )
    number = int(ident)
    level = found.levels[number - 1]
    ref = LevelRef(game.name, found.slug, number)
    following = LevelRef(game.name, found.slug, number + 1) if number < total else None
    previous = LevelRef(game.name, found.slug, number - 1) if number > 1 else None
    title = catalog.level_title(game, level, f"{found.title} {number}")
    return Found(game, ref, level, title, following, found.title, previous, number, total)


#: Positions derived for recent games, so long games do not replay from the start each move.
STATES = StateCache()


# -- onward: progress and the next level --------------------------------------------------------
@dataclass
class Progress:
    """How many levels of a collection (or of a whole game) the player has solved."""

    solved: int
    total: int
    assisted: int = 0


def progress(game: Game, asker: Asker) -> tuple[Progress, dict[str, Progress]]:
    """The asking player's progress over a game's built-in collections, and per collection."""
    store, player = asker.store, asker.player
    own, helped = store.solved(player, game.name), store.assisted(player, game.name)
    each = {}
    for found in catalog.collections(game.name):
        keys = {f"{found.slug}/{n}" for n in range(1, len(found.levels) + 1)}
        each[found.slug] = Progress(len(keys & own), len(keys), len(keys & helped))
    whole = Progress(
        sum(p.solved for p in each.values()),
        sum(p.total for p in each.values()),
        sum(p.assisted for p in each.values()),
    )
    return whole, each


def next_unsolved(found: Found) -> LevelRef | None:
    """The first level after this one in its collection (then from its start) that the
    player it was found for has not solved on their own; None outside collections or when
    all are solved."""
    if not found.total:
        return None
    own = found.store.solved(found.player, found.game.name)
    for step in range(1, found.total):
        number = (found.number - 1 + step) % found.total + 1
        ref = LevelRef(found.game.name, found.ref.collection, number)
        if ref.key not in own:
            return ref
    return None


def mark_shown(found: Found) -> None:
    """The player was shown a solution of this board (or a move of one): every later win on
    it is assisted, even retyped by hand after a restart."""
    mark_board_shown(found.asker, found.game, found.level)


def mark_board_shown(asker: Asker, game: Game, level: Any) -> None:
    """``mark_shown`` for a board at no address yet (the editor's draft), by the board's own
    id (``catalog.content_id``), the same at every address it has or gets: a collection's,
    a paste's, the editor's copy. A visitor ("") keeps nothing."""
    if asker.player:
        asker.store.mark_shown(asker.player, game.name, catalog.content_id(game, level))


def was_shown(found: Found) -> bool:
    """Whether the player was shown a solution of this board, at any of its addresses."""
    return found.store.was_shown(
        found.player, found.game.name, catalog.content_id(found.game, found.level)
    )


def replay_seen(found: Found, replay: dict[str, Any]) -> None:
    """A replay link holding a solution (``replay_view``) was shown to the player ("watch a
    shorter solution", a link passed on, the editor's watch): the board counts as shown to
    them, unless their own best is already as good as the link's (their own replay, say)."""
    figures = replay.get("solution")
    if figures is None or not found.player:
        return
    first = found.game.counters[0]
    best = found.store.best(found.player, found.game.name, found.ref.key)
    if best is not None and best.get(first, 1 << 30) <= figures.get(first, 0):
        return
    mark_shown(found)


def replay_view(
    found: Found, text: str, at: str | None, kept: dict[str, str] | None = None
) -> dict[str, Any]:
    """A replay link's view: the moves, the position after the first ``at`` of them (all
    by default), and the links that step through them, which keep the query ``kept`` (a
    picture). The player's game is not touched."""
    game = found.game
    try:
        tokens = game.split_moves(text)
    except MoveError as exc:
        raise Refused(f"This replay link does not work on this level: {exc}") from None
    if len(tokens) > MAX_REPLAY_MOVES:
        raise Refused(
            f"This replay link has {len(tokens):,} moves; a replay shows {MAX_REPLAY_MOVES:,} "
            "at most."
        )
    position = len(tokens)
    if at is not None and at.isdecimal():
        position = min(int(at), len(tokens))
    # Every move is checked, but only the position shown is kept: a long link costs time in
    # proportion to its length, never memory.
    state = shown = game.start(found.level)
    spelled = []
    try:
        for index, token in enumerate(tokens):
            token = game.normalize_move(found.level, state, token)
            state = game.apply(found.level, state, token)
            spelled.append(token)
            if index + 1 == position:
                shown = state
    except (IllegalMove, MoveError) as exc:
        played = len(spelled)
        raise Refused(
            f"This replay link stops working at move {played + 1} of {len(tokens)} "
            f"({tokens[played]}): {exc}. Here is the level itself."
        ) from None
    moves = game.join_moves(spelled)
    kept = kept or {}
    return {
        "moves": spelled,
        "move_text": moves,
        "position": position,
        "state": shown,
        "figures": game.count(found.level, spelled[:position]),
        "solved": game.is_solved(found.level, shown),
        # Whether the link holds a solution (whatever position it shows): its figures then.
        "solution": game.count(found.level, spelled)
        if game.is_solved(found.level, state)
        else None,
        # The moves listed: those around the position (a page stays small for a long link).
        "window": range(
            max(1, position - REPLAY_WINDOW), min(len(spelled), position + REPLAY_WINDOW) + 1
        ),
        "step_url": lambda n: f"{found.ref.path}?{urlencode({'moves': moves, 'at': n, **kept})}",
    }


#: The longest move string a replay link carries: an address longer than a few thousand
#: characters is refused by servers and proxies on the way (gunicorn's limit is 4,094).
MAX_LINK_MOVES = 3_500


def replay_url(ref: LevelRef, play: Play) -> str | None:
    """The level with the player's moves, as an address to share; None when the moves are
    too many for an address (and the page says so instead of carrying them every move)."""
    if len(play.moves) > MAX_LINK_MOVES:
        return None
    moves = play.move_string()
    if len(moves) > MAX_LINK_MOVES:
        return None
    return ref.path + ("?moves=" + moves if moves else "")
