"""What a player keeps of their own: the name shown on leaderboards and the page settings
every browser they play in shows (theme, motion, numbers, sound, spoilers).

Flask-free: the store and the player are arguments; what the page sent is read by the view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from webapp.core.errors import Refused
from webapp.core.players import Asker
from webapp.core.text import check_text, is_reserved, name_key

#: A display name: 2 to 24 letters, digits, spaces and - _ . ', not starting or ending with
#: a space.
NAME = re.compile(r"[\w\-.' ]{2,24}")
TAKEN = "Another player's name is that one, or looks like it."

#: The page settings a player may keep (static/js/settings.js): each name's allowed values.
PREFERENCES: dict[str, tuple[Any, ...]] = {
    "theme": ("auto", "light", "dark"),
    "motion": ("normal", "fast", "off"),
    "numbers": (True, False),
    "sound": (True, False),
    "spoilers": (True, False),
}
#: The most bytes of JSON a page's kept settings take (five names, short values).
MAX_SETTINGS_BYTES = 2_000


def check_name(name: str) -> str:
    """The name as kept ("" for none: anonymous); Refused, saying why, for one that cannot
    be shown: an invisible, control or bidirectional character (webapp/core/text.py), a
    sign, or a reserved name."""
    name = check_text(name, "name").strip()
    if not name:
        return ""
    if not NAME.fullmatch(name) or "  " in name:
        raise Refused(
            "A name is 2 to 24 letters, digits, single spaces and - _ . ' (no other signs)."
        )
    if is_reserved(name):
        raise Refused(f"{name!r} is kept for the site; choose another name.")
    return name


def rename(asker: Asker, name: str) -> None:
    """Show the asking player as ``name`` (checked by ``check_name``; "" for anonymous);
    Refused when another player's name is that one, or looks like it (``name_key``)."""
    name = check_name(name)
    if not asker.store.set_name(asker.player, name, name_key(name) if name else ""):
        raise Refused(TAKEN)


@dataclass(frozen=True)
class Profile:
    """The player's name ("" for anonymous) and rating (None before their first rated
    attempt)."""

    name: str
    rating: float | None


def profile(asker: Asker) -> Profile:
    """The asking player's profile; a visitor ("") has none."""
    store, player = asker.store, asker.player
    if not player:
        return Profile("", None)
    mine = store.player_rating(player)
    return Profile(store.name(player), mine[0] if mine else None)


def preferences(asker: Asker) -> dict[str, Any]:
    """The asking player's kept page settings; none for a visitor ("")."""
    return asker.store.preferences(asker.player) if asker.player else {}


def keep_preferences(asker: Asker, sent: Any) -> dict[str, Any]:
    """The asking player's page settings with those ``sent`` (a mapping of names to values) kept;
    Refused, naming the first, for a setting there is not or a value it cannot take."""
    if not isinstance(sent, dict):
        raise Refused("Settings are sent as a JSON object.")
    store, player = asker.store, asker.player
    kept = store.preferences(player)
    for name, value in sent.items():
        # 1 == True in Python: a number is not a yes or no.
        if name not in PREFERENCES or type(value) is int or value not in PREFERENCES[name]:
            raise Refused(f"{str(name)[:20]!r} cannot be set to {str(value)[:20]!r}.")
        kept[name] = value
    store.set_preferences(player, kept)
    return kept
