"""What one client may ask of the site, each budget declared once, here.

Two kinds: a ``Budget`` counts requests (a route spends it: ``@spends`` in
webapp/web/budgets.py), and every route that spends one budget spends the same counter (a
client gets what the setting says, not that times the routes: editor saves and pastes are one
budget of new levels shared); an ``Allowance`` is priced by what a request costs (the
server's milliseconds, bytes kept) and charged by the services. Each has a setting a
deployment may change, ``BUDGET_<NAME>`` (docs/DEPLOY.md). Flask-free: the web tier counts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """Requests one client may make of the routes that spend it, counted together."""

    name: str
    #: e.g. "60 per hour"; several windows separated by ";".
    default: str
    #: What the player reads once it is spent.
    message: str

    @property
    def setting(self) -> str:
        return f"BUDGET_{self.name.upper()}"


@dataclass(frozen=True)
class Allowance:
    """A budget counted by what a client's requests cost (milliseconds of the server's time,
    bytes kept), not by their number: one expensive request counts as many cheap ones."""

    name: str
    #: The setting that overrides ``default`` (e.g. BUDGET_CPU_MS).
    setting: str
    default: str
    message: str


# -- budgets of requests, by the routes that spend them ----------------------------------------
#: Moves (/play).
MOVES = Budget(
    "moves", "40 per second;2000 per minute", "Too many moves at once; slow down a little."
)
#: Bytes of move text (/play): a move is a few bytes; this is over 10,000 moves a minute.
MOVE_BYTES = Budget(
    "move_bytes", "400000 per minute", "Too many moves at once; slow down a little."
)
#: Solves started: a search (/solve) and a solution shortened (/solve/improve).
SOLVES = Budget(
    "solves",
    "12 per minute;120 per hour",
    "You have started many solves lately; wait a minute before the next one.",
)
#: Hints (/hint).
HINTS = Budget("hints", "30 per minute", "You have asked for many hints lately; wait a minute.")
#: Solver streams opened (the socket).
SOCKETS = Budget("sockets", "60 per minute", "Too many solver streams opened lately.")
#: Levels shared: pasted (/new) and saved from the editor (/edit/save).
PASTES = Budget(
    "pastes", "60 per hour", "You have shared many levels this hour; please wait a while."
)
#: New games made by the site: a start form's level (/generate).
NEW_LEVELS = Budget(
    "new_levels", "120 per hour", "You have made many new games this hour; please wait."
)
#: Levels made to order (/random).
MADE_LEVELS = Budget(
    "made_levels", "60 per hour", "You have asked for many new levels this hour; please wait."
)
#: Pictures uploaded.
UPLOADS = Budget(
    "uploads", "20 per hour", "You have uploaded many pictures this hour; please wait a while."
)
#: Names chosen (a change on /settings: viewing the page is free).
NAMES = Budget(
    "names", "30 per hour", "You have changed your name many times this hour; wait a while."
)
#: Kept page settings changed.
PREFERENCES = Budget(
    "preferences", "120 per hour", "Your settings changed many times lately; wait a while."
)
#: The editor's looks at a draft, verdicts and shuffles.
EDIT_LOOKS = Budget(
    "edit_looks", "240 per minute", "The editor is checking a lot just now; wait a moment."
)
EDIT_VERDICTS = Budget(
    "edit_verdicts", "60 per minute", "The solver has checked many drafts lately; wait."
)
EDIT_SHUFFLES = Budget(
    "edit_shuffles", "30 per minute", "You have shuffled many boards lately; wait a moment."
)
#: New players one client may start an hour: counted when a new player's first action is
#: accepted, never for reading, so a class or an office behind one address plays.
NEW_PLAYERS = Budget(
    "new_players",
    "100 per hour",
    "Many new players have started playing from your network this hour, so this game is not "
    "kept: you can play it here, but it is lost when you leave the page. Try again in a while.",
)

# -- allowances, priced by cost --------------------------------------------------------------------
#: The server's time one client's requests may take, every request counted, pages included
#: (a replay link on a large board costs tens of milliseconds; a move, a few). Generous, as a
#: class may share one address: fairness under load is the door's work (webapp/core/door.py).
CPU = Allowance(
    "cpu",
    "BUDGET_CPU_MS",
    "40000 per minute",
    "Your network has asked a lot of the server this minute; please wait a few seconds.",
)
#: Bytes of shared levels one client may add a day, as stored (a format that stores more
#: than was pasted is counted at what it stores).
LEVEL_BYTES = Allowance(
    "level-bytes",
    "BUDGET_LEVEL_BYTES",
    "2000000 per day",
    "You have shared a lot of levels today; the rest of the site's room is kept for others.",
)
#: Bytes of pictures one client may have stored a day: the sweep then never has to make room
#: for one client by removing everyone else's.
PICTURE_BYTES = Allowance(
    "picture-bytes",
    "BUDGET_PICTURE_BYTES",
    "20000000 per day",
    "You have uploaded a lot of pictures today; the rest of the site's room is kept for others.",
)
#: New games (a level, a shuffle or a position code first played) one client may start a day:
#: each is a stored history.
NEW_GAMES = Allowance(
    "new-games",
    "BUDGET_NEW_GAMES",
    "2000 per day",
    "You have started a great many games today; finish some, or come back tomorrow.",
)
