"""What a player is refused, named for what it is: the services raise these with a sentence
the player reads, and the web tier (webapp/web/errors.py) turns each into its page and
status. No stack trace ever reaches a player."""

from __future__ import annotations


class Refused(Exception):
    """A request that cannot be done as asked (400): a malformed move, form or link."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Forbidden(Refused):
    """Not this player's to do (403): a page whose security token does not match."""

    status = 403


class NotFound(Refused):
    """Nothing at this address (404): no such game, collection, level or picture."""

    status = 404


class Conflict(Refused):
    """Not now (409): a solver is working on the board this would replace."""

    status = 409


class Gone(Refused):
    """Here once, no longer usable (410): a shared level the rules now refuse."""

    status = 410


class TooMany(Refused):
    """A budget is spent (429): too many new players, games or bytes from one client."""

    status = 429


class Unavailable(Refused):
    """Not possible just now (503): a level that could not be made in the time allowed, or
    the solvers too busy to take the request. ``retry_after``: the seconds after which to
    ask again (the page looks again by itself then), when there is a moment to name."""

    status = 503

    def __init__(self, message: str, retry_after: int = 0):
        super().__init__(message)
        self.retry_after = retry_after
