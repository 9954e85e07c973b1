"""The level editor: ``/<game>/edit`` for every game whose package fills in the editing
hooks (docs/game-interface.md, "The editor"), and the requests its page makes.

The page draws and keeps the draft itself (static/js/editor.js); the server reads a draft
back as the game's own level text (webapp/core/drafts.py: reading, judging, keeping, a
player's own levels), so the checks are the game's rules:
- ``look``: the structure, at once, in this process (a parse, bounded by the editor's board
  sizes): errors naming their square, and the squares no box may stand on;
- ``verdict``: a bounded search in a solver child through the job runner (``task`` "check",
  in the hint pool); a newer check of the same player cancels the one still running;
- ``save``: test-play, save and share, through the one door that saves levels, at the
  content address a paste of the same board gets.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)

from webapp import games
from webapp.checking import Status, Verdict
from webapp.core import drafts
from webapp.core.budgets import EDIT_LOOKS, EDIT_SHUFFLES, EDIT_VERDICTS, PASTES
from webapp.core.errors import NotFound, Refused, Unavailable
from webapp.core.levels import MAX_LINK_MOVES, get_game
from webapp.games.base import Draft, Editor, Game, LevelError, MoveError, UnsolvableLevel
from webapp.generating import shuffle_draft
from webapp.jobs.base import Busy, wait_for
from webapp.jobs.work import Check, verdict_of
from webapp.search import Limits
from webapp.web.budgets import spends, waiting_elsewhere
from webapp.web.levels import find_level, mark_board_shown, shelf
from webapp.web.players import asker, player_id
from webapp.web.solvers import get_runner, job_request

bp = Blueprint("editing", __name__)

#: Seconds a verdict's search may take (the EDIT_TIME_LIMIT setting), and how long a page
#: waits beyond that for its answer.
EDIT_SECONDS = 5.0
EDIT_GRACE = 5.0
#: Seconds a shuffle to an exact distance may take in its solver child.
SHUFFLE_SECONDS = 30.0


def editable(game_name: str) -> tuple[Game, Editor]:
    """The game at this address and its editor; NotFound for a game without one."""
    game = get_game(game_name)
    return game, drafts.editor_of(game)


def sent_draft(game: Game, editor: Editor) -> Draft:
    """The draft the page sent, read and checked (webapp/core/drafts.py)."""
    return drafts.read_draft(game, editor, request.form.get("draft", ""))


# -- the page ---------------------------------------------------------------------------------
@bp.get("/<game_name>/edit")
def edit_page(game_name: str) -> str:
    """The editor: a new board, the draft this browser keeps, or a copy of a level (``from``,
    the level's path on this site)."""
    game, editor = editable(game_name)
    copy, source = None, request.args.get("from", "")
    if source:
        parts = source.strip("/").split("/")
        if len(parts) != 3 or parts[0] != game.name:
            raise Refused(f"{source[:80]!r} is not the address of a {game.title} level.")
        found = find_level(*parts)
        draft = editor.draft_of(found.level)
        draft.fields["title"] = found.title or draft.fields.get("title", "")
        copy = {"rows": draft.rows, "fields": draft.fields}
    blank = editor.blank(*editor.size)
    config = {
        "game": game.name,
        "title": game.title,
        "tools": [
            {"key": t.key, "label": t.label, "paints": dict(t.paints), "kind": t.kind}
            for t in editor.tools()
        ],
        "looks": _looks(editor, blank),
        "actions": [
            {"name": name, "label": label, "table": dict(table)}
            for name, label, table in editor.actions()
        ],
        "fields": [vars(field) for field in editor.fields()],
        "rows": list(editor.rows),
        "cols": list(editor.cols),
        "outside": editor.outside,
        "resize_keeps": editor.resize_keeps,
        "blank": {"rows": blank.rows, "fields": blank.fields},
        "copy": copy,
        "seconds": _seconds(),
        "shuffle_most": editor.shuffle_most,
    }
    return render_template("edit.html", game=game, config=config)


def _looks(editor: Editor, draft: Draft) -> dict[str, dict[str, str]]:
    return {value: vars(look) for value, look in editor.looks(draft).items()}


def _seconds() -> float:
    return float(current_app.config.get("EDIT_TIME_LIMIT", EDIT_SECONDS))


@bp.get("/<game_name>/edit/blank")
def blank_board(game_name: str) -> Response:
    """A new empty board of the size asked for."""
    game, editor = editable(game_name)
    sizes = []
    for name, (low, high) in (("rows", editor.rows), ("cols", editor.cols)):
        text = request.args.get(name, "")
        if not text.isdecimal() or not low <= int(text) <= high:
            raise Refused(f"The number of {name} is from {low} to {high}.")
        sizes.append(int(text))
    draft = editor.blank(*sizes)
    return jsonify(rows=draft.rows, fields=draft.fields, looks=_looks(editor, draft))


# -- checks -----------------------------------------------------------------------------------
@bp.post("/<game_name>/edit/look")
@spends(EDIT_LOOKS)
def look(game_name: str) -> Response:
    """The structure of the draft: errors by square, and the dead squares."""
    game, editor = editable(game_name)
    draft = sent_draft(game, editor)
    found = drafts.structure(game, editor, draft)
    if "verdict" in found:  # the rules alone prove it unsolvable: the verdict as the panel shows it
        found["verdict"] = _verdict_html(game, found["verdict"])
    return jsonify(**found, looks=_looks(editor, draft))


@bp.post("/<game_name>/edit/verdict")
@spends(EDIT_VERDICTS)
def verdict(game_name: str) -> Response:
    """The solver's verdict on the draft, from a bounded search in a solver child."""
    game, editor = editable(game_name)
    draft = sent_draft(game, editor)
    try:
        level = drafts.level_of(game, editor, draft)
    except UnsolvableLevel as proof:  # well formed, and the rules alone say it cannot be won
        square = editor.text(draft).square(proof.line, proof.column)
        squares = [square] if square else []
        return _verdict_json(game, Verdict(Status.UNSOLVABLE, proof.message, squares=squares))
    except LevelError as error:
        return _verdict_json(game, Verdict(Status.INVALID, error.message))
    seconds = _seconds()
    runner = get_runner()
    board = f"{game.name}#edit"
    earlier = runner.latest(player_id(), board)
    if earlier is not None and not earlier.done:
        earlier.stop()  # a newer draft: the older check's answer would be stale
        with waiting_elsewhere():  # a loaded machine may take seconds to stop a child
            wait_for(earlier, lambda job: job.done, 10.0)
    limits = Limits(seconds=seconds, nodes=None, memory_mb=1024)
    check = job_request(game, level, Check(), limits, board)
    try:
        job = runner.submit(check)
    except Busy as busy:
        return jsonify(status="busy", html=_verdict_html(game, {"status": "busy",
                       "reason": str(busy)}), squares=[])  # fmt: skip
    with job, waiting_elsewhere():
        result = job.wait(seconds + EDIT_GRACE)
    runner.forget(job)
    found = verdict_of(result)
    if result is not None and result.status == "cancelled":
        return jsonify(status="stale", html=_verdict_html(game, {"status": "stale",
                       "reason": "a newer draft is being checked"}), squares=[])  # fmt: skip
    if found is None:
        if result is not None and result.error:
            found = Verdict(Status.UNKNOWN, f"the check failed: {result.error}")
        else:
            found = Verdict(Status.UNKNOWN, f"not decided within {seconds:g} s")
    if found.solution:
        mark_board_shown(game, level)  # the editor shows it: a win on this board is assisted
    return _verdict_json(game, found)


def _verdict_json(game: Game, verdict: Verdict) -> Response:
    """The verdict as the editor's script reads it: its status, its words, its squares."""
    shown = verdict.to_dict()
    return jsonify(
        status=shown["status"],
        html=_verdict_html(game, shown),
        squares=shown["squares"],
        solution=verdict.solution,
    )


def _verdict_html(game: Game, found: dict[str, Any]) -> str:
    return render_template("partials/verdict.html", game=game, verdict=found, seconds=_seconds())


@bp.post("/<game_name>/edit/shuffle")
@spends(EDIT_SHUFFLES)
def shuffle(game_name: str) -> Response:
    """The draft's board set to a position exactly the moves asked from solved, found and
    proved in a solver child."""
    game, editor = editable(game_name)
    if not editor.shuffle_most:
        raise NotFound(f"{game.title} has no shuffle.")
    draft = sent_draft(game, editor)
    text = request.form.get("moves", "")
    if not text.isdecimal() or not 1 <= int(text) <= editor.shuffle_most:
        raise Refused(f"The moves from solved are a number from 1 to {editor.shuffle_most}.")
    try:
        with waiting_elsewhere():
            made = get_runner().call(
                shuffle_draft,
                game.name,
                games.module_of(game.name),
                draft.rows,
                draft.fields,
                int(text),
                timeout=SHUFFLE_SECONDS,
                memory_mb=1024,
            )
    except (TimeoutError, RuntimeError):
        raise Unavailable(
            f"No such board was found within {SHUFFLE_SECONDS:g} s; try again."
        ) from None
    if "error" in made:
        raise Refused(made["error"])
    return jsonify(rows=made["rows"], fields=made["fields"])


# -- test-play, save and share ----------------------------------------------------------------
@bp.post("/<game_name>/edit/save")
@spends(PASTES)
def save(game_name: str) -> Response:
    """The draft saved at its content address: to test-play it (``intent`` play, or watch with
    the solver's ``moves``), or to keep it as the player's own, signed with an author's name."""
    game, editor = editable(game_name)
    draft = sent_draft(game, editor)
    intent = request.form.get("intent", "save")
    if intent not in ("save", "play", "watch"):
        raise Refused("The editor can save, test-play or watch a draft; nothing else.")
    author = drafts.read_author(request.form.get("author", ""))
    level = drafts.playable(game, editor, draft)
    ref = drafts.keep(shelf(), game, level, author if intent == "save" else None)
    if intent == "save":
        return redirect(ref.path, code=303)
    if intent == "watch":
        moves = request.form.get("moves", "")
        if len(moves) > MAX_LINK_MOVES:  # it rides in the address the page is sent to
            raise Refused(
                f"The solution is too long to watch ({len(moves):,} characters); an address "
                f"carries {MAX_LINK_MOVES:,} at most."
            )
        try:
            game.split_moves(moves)
        except MoveError as error:
            raise Refused(f"The solution cannot be read: {error}") from None
        return redirect(f"{ref.path}?{urlencode({'edited': 1, 'moves': moves})}", code=303)
    return redirect(f"{ref.path}?edited=1", code=303)


def own_levels(game: Game) -> list[drafts.OwnLevel]:
    """The levels this player saved from the editor, for the game's page."""
    return drafts.own_levels(asker(), game)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.context_processor
    def editor_helpers() -> dict[str, Any]:
        return {"authored_levels": own_levels}
