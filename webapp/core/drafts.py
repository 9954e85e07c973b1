"""Drafts from the level editor: reading one a page sent (its shape, its size, its cells and
settings), judging it by the game's rules at once (errors by square, dead squares), keeping
it as the player's own level, and listing a player's own levels.

Flask-free: the view passes the text the page sent, the store and the player. The solver's
verdict (a bounded search) is the job runner's, not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.core import sharing
from webapp.core.catalog import CUSTOM, LevelRef
from webapp.core.errors import NotFound, Refused
from webapp.core.players import Asker
from webapp.core.text import check_text, read_json
from webapp.games.base import Draft, Editor, Game, LevelError, UnsolvableLevel
from webapp.storage.store import Store

#: The most bytes a draft may take as JSON (a 30 x 30 board takes about 4,000).
MAX_DRAFT_BYTES = 40_000
#: The longest title, author's name or other setting a draft may carry.
MAX_FIELD = 80
#: The most of a player's own levels their game's page lists, newest first.
MOST_LISTED = 50


def editor_of(game: Game) -> Editor:
    """The game's editor; NotFound for a game without one."""
    editor = game.editor()
    if editor is None:
        raise NotFound(f"{game.title} has no editor yet.")
    return editor


def read_draft(game: Game, editor: Editor, raw: str) -> Draft:
    """The draft a page sent (JSON: ``rows`` of cells and ``fields`` by name), checked for
    shape and size before the game reads it; Refused names what is wrong."""
    data = read_json(raw, "draft", MAX_DRAFT_BYTES)
    if not isinstance(data, dict):
        raise Refused("The draft is not readable (an object was expected).")
    rows, fields = data.get("rows"), data.get("fields", {})
    if not isinstance(rows, list) or not rows or not all(isinstance(row, list) for row in rows):
        raise Refused("The draft has no board (rows of cells were expected).")
    low, high = editor.rows
    if not low <= len(rows) <= high:
        raise Refused(f"A {game.title} board has {low} to {high} rows, not {len(rows)}.")
    low, high = editor.cols
    width = len(rows[0])
    if not low <= width <= high:
        raise Refused(f"A {game.title} board has {low} to {high} columns, not {width}.")
    if any(len(row) != width for row in rows):
        raise Refused("Every row of the board must be as long as the first.")
    if not isinstance(fields, dict):
        raise Refused("The draft's settings are not readable.")
    known = {"title"} | {field.name for field in editor.fields()}
    kept = {}
    for name, value in fields.items():
        if name not in known or not isinstance(value, str):
            raise Refused(f"The draft has a setting {str(name)[:20]!r} that {game.title} has not.")
        if len(value) > MAX_FIELD:
            raise Refused(f"The {name} is too long (the most is {MAX_FIELD} characters).")
        kept[name] = check_text(value, name)
    draft = Draft([[str(cell) for cell in row] for row in rows], kept)
    looks = editor.looks(draft)
    for r, row in enumerate(draft.rows):
        for c, cell in enumerate(row):
            if cell not in looks:
                raise Refused(
                    f"Row {r + 1}, column {c + 1} holds {cell[:4]!r}, which is nothing a "
                    f"{game.title} board has."
                )
    return draft


def level_of(game: Game, editor: Editor, draft: Draft) -> Any:
    """The level a draft stands for; LevelError names what is wrong."""
    return game.parse(editor.text(draft).text)[0]


def structure(game: Game, editor: Editor, draft: Draft) -> dict[str, Any]:
    """What the rules say of a draft at once: errors (each naming its square where it has
    one), the squares where a box would be stuck for good, and, for a draft the rules alone
    prove unsolvable, that ``verdict`` (status and reason) with the square it names."""
    written = editor.text(draft)
    targets = [list(square) for square in sorted(editor.target_squares(draft))]
    try:
        level = game.parse(written.text)[0]
    except UnsolvableLevel as proof:  # well formed, and the rules alone say it cannot be won
        square = written.square(proof.line, proof.column)
        return {
            "ok": False,
            "errors": [],
            "dead": [],
            "squares": [list(square)] if square else [],
            "targets": targets,
            "verdict": {"status": "unsolvable", "reason": proof.message},
        }
    except LevelError as error:
        square = written.square(error.line, error.column)
        message = written.in_rows(error.message)
        return {
            "ok": False,
            "errors": [{"message": message, "square": list(square) if square else None}],
            "dead": [],
            "targets": targets,
        }
    dead = sorted(game.dead_squares(level))
    outside = sorted(editor.outside_squares(level))
    return {
        "ok": True,
        "errors": [],
        "dead": [list(square) for square in dead],
        "outside": [list(square) for square in outside],
        "targets": targets,
    }


def read_author(text: str) -> str:
    """The name a draft's maker signs it with, its spaces made single; Refused when it is too
    long or holds a character no kept text may (webapp/core/text.py)."""
    author = " ".join(text.split())
    if len(author) > MAX_FIELD:
        raise Refused(f"The author's name is too long (the most is {MAX_FIELD} characters).")
    return check_text(author, "author's name")


def playable(game: Game, editor: Editor, draft: Draft) -> Any:
    """The draft's level, to save or test-play; Refused saying why it cannot be played."""
    try:
        return level_of(game, editor, draft)
    except LevelError as error:
        raise Refused(f"The level cannot be played yet: {error.message}") from None


def keep(shelf: sharing.Shelf, game: Game, level: Any, author: str | None = None) -> LevelRef:
    """The draft's level shared at its content address (the one door that saves levels);
    with an ``author``, kept as the player's own level too, signed with that name."""
    ref = sharing.share_level(shelf, game, level)
    if author is not None:
        shelf.store.save_authored(shelf.player, game.name, ref.custom_id or "", author)
    return ref


@dataclass(frozen=True)
class OwnLevel:
    """One of a player's own levels, as their game's page lists it."""

    path: str
    title: str
    author: str


def own_levels(asker: Asker, game: Game) -> list[OwnLevel]:
    """The levels the asking player saved from the editor and the site still keeps, newest first
    (the ``MOST_LISTED`` newest), titled as they named them: one query to the store."""
    store, player = asker.store, asker.player
    if not player or game.editor() is None:
        return []
    listed = []
    for level_id, author, text, own_title in store.authored_levels(player, game.name, MOST_LISTED):
        title = own_title
        if title is None:
            try:
                title = game.level_title(game.parse(text)[0])
            except LevelError:  # kept under rules that have changed since: listed untitled
                title = ""
        ref = LevelRef(game.name, CUSTOM, custom_id=level_id)
        listed.append(OwnLevel(ref.path, title or "Untitled", author))
    return listed


def author_of(store: Store, ref: LevelRef) -> str:
    """Who made a level in the editor, as they signed it ("" for any other level)."""
    if ref.collection != CUSTOM or not ref.custom_id:
        return ""
    return store.author(ref.game, ref.custom_id) or ""
