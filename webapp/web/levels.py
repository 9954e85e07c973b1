"""The request's side of levels: the level an address names for this player, their game on
it loaded and saved, the picture they chose, and what a level page shows.

The work is in webapp/core/levels.py and webapp/core/results.py (Flask-free): a level is
found for the request's ``Asker`` (the player and their store: ``Found.asker``),
and the services on it (the game saved, a win finished and rated, its benchmark) take it.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from functools import partial
from pathlib import Path
from typing import Any

from flask import current_app, request, url_for

from webapp.core import catalog, pictures, results, sharing
from webapp.core import levels as core
from webapp.core.budgets import LEVEL_BYTES, NEW_GAMES
from webapp.core.errors import TooMany
from webapp.core.levels import MAX_LINK_MOVES, STATES, Found, replay_url
from webapp.core.play import Play
from webapp.core.records import Benchmark, Records
from webapp.games.base import Game
from webapp.storage.store import SavedGame
from webapp.web.budgets import charge, client_key
from webapp.web.players import asker, player_id, unkept
from webapp.web.solvers import get_tables


def shelf() -> sharing.Shelf:
    """Where this request's new levels go, and the budgets they count against."""
    return sharing.Shelf(
        asker(),
        current_app.config["LEVELS_BUDGET_MB"] * 2**20,
        partial(charge, LEVEL_BYTES),
        LEVEL_BYTES.message,
    )


def find_level(game_name: str, collection: str, ident: str) -> Found:
    """The level at this address, titled as this player named it (a pasted level)."""
    return core.find_level(game_name, collection, ident, asker())


def progress(game: Game) -> tuple[core.Progress, dict[str, core.Progress]]:
    """This player's progress over a game's collections (the home and game pages)."""
    return core.progress(game, asker())


def replay_context(found: Found, text: str, at: str | None) -> dict[str, Any]:
    """A replay link's view, its step links keeping the picture the request names. A link
    without a position opens at the start, where its Play shows the moves one by one."""
    kept = {"picture": request.args["picture"]} if request.args.get("picture") else {}
    return core.replay_view(found, text, "0" if at is None else at, kept)


class Unkept:
    """The games of players past their client's new-player budget: kept in this process's
    memory for their pages, never in the database (the last ``most``, the oldest forgotten).
    With several web processes a page's next request may find another process: its game
    starts afresh there, as the page's notice warns."""

    def __init__(self, most: int = 10_000):
        self._games: OrderedDict[tuple[str, str, str], SavedGame] = OrderedDict()
        self._most = most
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> SavedGame | None:
        with self._lock:
            return self._games.get(key)

    def put(self, key: tuple[str, str, str], game: SavedGame) -> None:
        with self._lock:
            self._games[key] = game
            self._games.move_to_end(key)
            if len(self._games) > self._most:
                self._games.popitem(last=False)


UNKEPT = Unkept()


def load_play(found: Found) -> Play:
    """The player's game on this level. A stored history the rules no longer accept (the
    level changed under it) is kept as it is: the game shows the position before the first
    move refused, says so (``play.broken``), and is never saved over until the player
    restarts or undoes on purpose."""
    key = (found.player, found.game.name, found.ref.key)
    saved = UNKEPT.get(key) if unkept() else found.store.load_game(*key)
    play = Play(found.game, found.level, cache=STATES, cache_key=key)
    if saved is not None:
        play.version = SavedGame(list(saved.history), saved.cursor)
        play.history, play.cursor = saved.history, min(saved.cursor, len(saved.history))
        play.state  # noqa: B018 - replay now: a history the rules refuse marks the game broken
    return play


def save_play(found: Found, play: Play, moves: int = 0, fresh: bool = False) -> None:
    """Store the game, finished and rated where it is won (webapp/core/results.py's
    ``finish``), for a kept player; a player past the new-player budget keeps it in this
    process's memory, with no record; a visitor keeps nothing."""
    if play.broken or not player_id():
        return  # a history that no longer replays is kept as it is; a visitor keeps nothing
    if unkept():  # past the new-player budget: in memory, for its page, and no record
        UNKEPT.put(
            (player_id(), found.game.name, found.ref.key), SavedGame(play.history, play.cursor)
        )
        play.version = SavedGame(list(play.history), play.cursor)
        return
    if play.version is None and not charge(NEW_GAMES, 1):
        raise TooMany(NEW_GAMES.message)  # each new game is a stored history
    results.finish(found, play, moves, fresh, rater())


def mark_shown(found: Found) -> None:
    """This player was shown a solution of this board (or a move of one): every later win
    on it is assisted, even retyped by hand after a restart."""
    core.mark_shown(found)


def mark_board_shown(game: Game, level: Any) -> None:
    """``mark_shown`` for a board at no address yet (the editor's draft): the same board
    saved or pasted later, or found in a collection, has the same id."""
    core.mark_board_shown(asker(), game, level)


def rater() -> str:
    """The client a rating change is counted against: its address (an IPv6 /56), kept as a
    keyed hash, so the store holds no address."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(secret, f"rater {client_key()}".encode(), hashlib.sha256).hexdigest()[:24]


def benchmark(found: Found, records: Records | None = None) -> Benchmark | None:
    """What a result on this level is measured against (webapp/core/results.py)."""
    return results.benchmark_of(found, records)


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
DONE = {
    "undo": "Move undone.",
    "redo": "Move redone.",
    "restart": "Back to the start.",
    "nothing to undo": "Nothing to undo.",
    "nothing to redo": "Nothing to redo.",
    "nothing to restart": "Already at the start.",
}


#: The most positions one answer shows in between its moves: more moves than that in one
#: answer came faster than anyone could watch them, and the board jumps to the last.
MAX_STEPS = 40


def play_context(
    found: Found, play: Play, message: str = "", action: str = "", played: int = 0
) -> dict[str, Any]:
    """What the board partial shows; ``action`` is what the player just did (a move or a
    click shows its frames and is announced; undo, redo and restart are announced), and
    ``played`` how many moves it added: the positions between them go with the answer."""
    game, level = found.game, found.level
    best = found.store.best(found.player, game.name, found.ref.key)
    tables, pending = get_tables().get(game, level)
    frames: list[Any] = []
    steps: list[Any] = []
    announcement = ""
    if play.moves and not play.broken and action in ("move", "click"):
        if 1 < played <= MAX_STEPS:
            steps = play.steps_before(played)
        before = play.previous_state()
        if action == "move" and played <= 1:  # a game's own frames of a move played alone
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
        "steps": steps,
        "announcement": announcement,
        "game": game,
        "found": found,
        "level": level,
        "play": play,
        "state": play.state,
        "figures": play.figures,
        "best": best,
        "next_unsolved": core.next_unsolved(found) if play.solved else None,
        "message": message or play.broken,
        "replay_url": replay_url(found.ref, play),
        "max_link_moves": MAX_LINK_MOVES,
        **results.result_view(found, play),
    }
