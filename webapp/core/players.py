"""Who asks, and where their things are kept: one value the web tier makes once per request
(``webapp.web.players.asker``) and hands to every core service that acts for a player.

Flask-free, so a unit test makes one from any store and any player id without a request.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.storage.store import Store


@dataclass(frozen=True)
class Asker:
    """The player a request acts for (``""``: a visitor who has only read so far and keeps
    nothing) and the store that keeps their games, results, levels and settings."""

    store: Store
    player: str = ""
