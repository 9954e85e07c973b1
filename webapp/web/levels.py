"""Finding a level from its address, and loading and saving a player's game on it.

The views call these; they speak to a game only through ``webapp.games.base.Game``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import current_app, request, url_for

from webapp import games
from webapp.core import catalog, pictures
from webapp.core.catalog import CUSTOM, POSITION, LevelRef
from webapp.core.play import Play, StateCache
from webapp.games.base import Game, IllegalMove, LevelError, MoveError
from webapp.storage.store import SavedGame
from webapp.web.budgets import NEW_GAMES
from webapp.web.database import get_store
from webapp.web.errors import BadRequest
from webapp.web.players import player_id
from webapp.web.solvers import get_tables

_CUSTOM_ID = re.compile(r"^[0-9a-f]{12}$")
#: The longest replay link a view shows, in moves.
MAX_REPLAY_MOVES = 20_000
#: Moves listed on each side of the position in a replay's move list.
REPLAY_WINDOW = 40


@dataclass
class Found:
    game: Game
    ref: LevelRef
    level: Any
    title: str
    next_ref: LevelRef | None = None
    collection_title: str = ""
    previous_ref: LevelRef | None = None
    number: int = 0
    total: int = 0

    @property
    def collection_path(self) -> str | None:
        """The page of the collection this level is in; None for a level in none (a pasted
        level, a position code: ``/<game>/p/`` is no page)."""
        if self.ref.collection in (CUSTOM, POSITION):
            return None
        return f"/{self.game.name}/{self.ref.collection}/"

    @property
    def board_key(self) -> str:
        """The key of this board among a player's solves, e.g. ``<game>/<collection>/3``."""
        return f"{self.game.name}/{self.ref.key}"


def get_game(name: str) -> Game:
    try:
        return games.get(name)
    except KeyError:
        raise BadRequest(f"There is no game called {name!r}.", 404) from None


def find_level(game_name: str, collection: str, ident: str) -> Found:
    game = get_game(game_name)
    if collection == POSITION and game.has_position_codes:
        try:
            level = game.from_code(ident)
        except LevelError as error:
            raise BadRequest(f"This address names no {game.title} position: {error}", 404) from None
        ref = LevelRef(game.name, POSITION, custom_id=game.position_code(level))
        if ref.custom_id != ident:
            raise BadRequest("This address names no position.", 404)
        return Found(game, ref, level, game.position_title(level), collection_title="Positions")
    if collection == CUSTOM:
        if not _CUSTOM_ID.match(ident):
            raise BadRequest(f"{ident!r} is not a level id.", 404)
        text = get_store().load_level(game.name, ident)
        if text is None:
            raise BadRequest("No level has that id. Paste it again to get its link.", 404)
        try:
            level = game.parse(text)[0]
        except LevelError as error:
            raise BadRequest(f"This shared level cannot be played any more: {error}", 410) from None
        ref = LevelRef(game.name, CUSTOM, custom_id=ident)
        # The board's first paster named it; a player who pasted it under another title sees
        # their own.
        own = get_store().title(player_id(), game.name, ident)
        title = own or catalog.level_title(game, level, "Your level")
        return Found(game, ref, level, title, collection_title="Shared levels")
    found = catalog.collection(game.name, collection)
    if found is None:
        raise BadRequest(f"{game.title} has no collection called {collection!r}.", 404)
    total = len(found.levels)
    if not ident.isdecimal() or not 1 <= int(ident) <= total:
        raise BadRequest(
            f"{found.title} has levels 1 to {total}; there is no level {ident[:20]!r}.", 404
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


def load_play(found: Found) -> Play:
    """The player's game on this level. A stored history the rules no longer accept (the
    level changed under it) is kept as it is: the game shows the position before the first
    move refused, says so (``play.broken``), and is never saved over until the player
    restarts or undoes on purpose."""
    saved = get_store().load_game(player_id(), found.game.name, found.ref.key)
    key = (player_id(), found.game.name, found.ref.key)
    play = Play(found.game, found.level, cache=STATES, cache_key=key)
    if saved is not None:
        play.version = SavedGame(list(saved.history), saved.cursor)
        play.history, play.cursor = saved.history, min(saved.cursor, len(saved.history))
        play.state  # noqa: B018 - replay now: a history the rules refuse marks the game broken
    return play


def save_play(found: Found, play: Play) -> None:
    """Store the game, and the win with its figures: the player's own, or an assisted one
    (moves from a solver or a replay link), which never becomes their best."""
    if play.broken or not player_id():
        return  # a history that no longer replays is kept as it is; a visitor keeps nothing
    if play.version is None and not NEW_GAMES.charge(1):
        raise BadRequest(NEW_GAMES.message, 429)  # each new game is a stored history
    win = play.figures if play.solved and play.moves else None
    saved = SavedGame(play.history, play.cursor)
    get_store().save_game(
        player_id(),
        found.game.name,
        found.ref.key,
        saved,
        win=win,
        assisted=play.assisted,
        expected=play.version,
    )
    play.version = SavedGame(list(play.history), play.cursor)


# -- onward: progress and the next level --------------------------------------------------------
@dataclass
class Progress:
    """How many levels of a collection (or of a whole game) the player has solved."""

    solved: int
    total: int
    assisted: int = 0


def progress(game: Game) -> tuple[Progress, dict[str, Progress]]:
    """The player's progress over a game's built-in collections, and per collection."""
    store = get_store()
    own, helped = store.solved(player_id(), game.name), store.assisted(player_id(), game.name)
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
    player has not solved on their own; None outside collections or when all are solved."""
    if not found.total:
        return None
    own = get_store().solved(player_id(), found.game.name)
    for step in range(1, found.total):
        number = (found.number - 1 + step) % found.total + 1
        ref = LevelRef(found.game.name, found.ref.collection, number)
        if ref.key not in own:
            return ref
    return None


def replay_context(found: Found, text: str, at: str | None) -> dict[str, Any]:
    """A replay link's view: the moves, the position after the first ``at`` of them (all
    by default), and the links that step through them. The player's game is not touched."""
    game = found.game
    try:
        tokens = game.split_moves(text)
    except MoveError as exc:
        raise BadRequest(f"This replay link does not work on this level: {exc}") from None
    if len(tokens) > MAX_REPLAY_MOVES:
        raise BadRequest(
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
        raise BadRequest(f"This replay link does not work on this level: {exc}") from None
    moves = game.join_moves(spelled)
    kept = {"picture": request.args["picture"]} if request.args.get("picture") else {}
    return {
        "moves": spelled,
        "move_text": moves,
        "position": position,
        "state": shown,
        "figures": game.count(found.level, spelled[:position]),
        "solved": game.is_solved(found.level, shown),
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


# -- pictures ---------------------------------------------------------------------------------
def picture_folder() -> Path:
    return Path(current_app.instance_path) / "pictures"


def chosen_picture() -> str:
    """The picture the request names (query or form), if it is one we have; else the default."""
    picture = request.values.get("picture", "")
    if picture in pictures.BUILT_IN:
        return picture
    path = pictures.upload_path(picture_folder(), picture)
    if path is not None:
        pictures.touch(path)  # in use: the sweep keeps it
        return picture
    return pictures.DEFAULT


def picture_url(picture: str) -> str:
    if picture in pictures.BUILT_IN:
        return url_for("static", filename=f"pictures/{picture}.svg")
    return url_for("web.uploaded_picture", picture=picture)


def picture_context(game: Game) -> dict[str, Any]:
    if not game.uses_pictures:
        return {}
    picture = chosen_picture()
    return {"picture": picture, "picture_url": picture_url(picture), "pictures": pictures.BUILT_IN}


# -- what a level page shows ------------------------------------------------------------------
#: What a screen reader hears first after the buttons that change no single move.
DONE = {"undo": "Move undone.", "redo": "Move redone.", "restart": "Back to the start."}


def play_context(found: Found, play: Play, message: str = "") -> dict[str, Any]:
    game, level = found.game, found.level
    best = get_store().best(player_id(), game.name, found.ref.key)
    tables, pending = get_tables().get(game, level)
    frames: list[Any] = []
    action = request.form.get("action")
    announcement = ""
    if play.moves and not play.broken and action in ("move", "click"):
        before = play.previous_state()
        if action == "move":
            frames = game.frames(level, before, play.moves[-1])
        if not message:  # a refused move is told by the message itself
            announcement = game.announce(level, before, play.state, play.moves[-1])
    elif action in DONE:
        announcement = f"{DONE[action]} {game.announce(level, None, play.state, None)}".strip()
    return {
        **picture_context(game),
        **game.page_figures(level, play.state, tables),
        "tables_pending": pending,
        "optimum": catalog.known_optimum(game, level),
        "frames": frames,
        "announcement": announcement,
        "game": game,
        "found": found,
        "level": level,
        "play": play,
        "state": play.state,
        "figures": play.figures,
        "best": best,
        "next_unsolved": next_unsolved(found) if play.solved else None,
        "message": message or play.broken,
        "replay_url": replay_url(found.ref, play),
        "max_link_moves": MAX_LINK_MOVES,
    }
