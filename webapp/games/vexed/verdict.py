"""What can be told of a Vexed level without a search: a colour with a single block can
never vanish, so such a level cannot be cleared. Counted on the board as written and again
once it has settled (touching blocks of a pasted board may vanish before the first move).
``webapp/checking.py`` tries this before any search; the editor names the colour."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from webapp.games.vexed import rules
from webapp.games.vexed.level import COLOURS, Level
from webapp.games.vexed.rules import Board


def _lone(rows: tuple[str, ...]) -> list[str]:
    """The colours with exactly one block on these rows, in letter order."""
    counts = Counter(ch for row in rows for ch in row if ch in COLOURS)
    return sorted(colour for colour, count in counts.items() if count == 1)


def _squares(rows: tuple[str, ...], colours: list[str]) -> tuple[tuple[int, int], ...]:
    return tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in colours)


def _named(colours: list[str], symbols: Mapping[str, tuple[str, str]]) -> str:
    names = [f"{symbols[c][1]} ({c})" if c in symbols else c for c in colours]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def unsolvable_reason(
    level: Level, symbols: Mapping[str, tuple[str, str]]
) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """A colour with a single block (its name and letter), with that block's square."""
    lone = _lone(level.rows)
    if lone:
        many = len(lone) > 1
        return (
            f"the colour{'s' if many else ''} {_named(lone, symbols)} "
            f"{'each have' if many else 'has'} a single block",
            _squares(level.rows, lone),
        )
    settled = rules.settle(Board(level.rows)).rows
    lone = _lone(settled)
    if lone:
        many = len(lone) > 1
        return (
            f"once the board settles, the colour{'s' if many else ''} "
            f"{_named(lone, symbols)} {'each have' if many else 'has'} a single block",
            _squares(settled, lone),
        )
    return None
