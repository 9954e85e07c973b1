"""The sliding puzzle's own pages: new shuffled games, and pictures (built-in and uploaded)."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, redirect, request, send_file, url_for

from webapp import pictures
from webapp.extras import register
from webapp.games import get
from webapp.games.sliding import position_code, shuffle
from webapp.limits import RateLimit
from webapp.web import BadRequest, player_id

bp = Blueprint("sliding", __name__, url_prefix="/sliding")

MAX_WALK = 1000
#: Pictures a player may upload per hour.
UPLOADS = RateLimit(20, 3600)
SIZES = [(3, 3), (4, 4), (5, 5), (6, 6), (3, 4), (4, 5), (8, 8)]


def picture_folder() -> Path:
    return Path(current_app.instance_path) / "pictures"


def chosen_picture() -> str:
    """The picture the request names (query or form), if it is one we have; else the default."""
    picture = request.values.get("picture", "")
    if picture in pictures.BUILT_IN:
        return picture
    if pictures.upload_path(picture_folder(), picture) is not None:
        return picture
    return pictures.DEFAULT


def picture_url(picture: str) -> str:
    if picture in pictures.BUILT_IN:
        return url_for("static", filename=f"pictures/{picture}.svg")
    return url_for("sliding.uploaded_picture", picture=picture)


def board_address(code: str, picture: str) -> str:
    query = urlencode({"picture": picture}) if picture != pictures.DEFAULT else ""
    return f"/sliding/p/{code}" + (f"?{query}" if query else "")


def _size(name: str) -> int:
    value = request.form.get(name, "")
    if not value.isdecimal() or not 2 <= int(value) <= 8:
        raise BadRequest(f"The board's {name} must be a number from 2 to 8.")
    return int(value)


def prebuild_databases(app: Any) -> None:
    """Build the 4x4 pattern databases once, in a low-priority child process, so the first
    player to ask for an optimal 15-puzzle solve does not wait a minute for them."""
    from webapp.games.sliding import pdb

    folder = Path(app.instance_path)
    if all((folder / pdb.database_path(4, 4, p).name).exists() for p in pdb.PARTITION_4X4):
        return
    env = {**os.environ, "PUZZLE_LAB_INSTANCE": app.instance_path}
    subprocess.Popen(
        [sys.executable, "-c", "from webapp.games.sliding import pdb; pdb.ensure_databases()"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.nice(15),
    )


@bp.post("/shuffle")
def new_game() -> Response:
    """A new shuffled position; refused while a solver works on the board it would replace."""
    from webapp.live import runner

    current = request.form.get("board", "")
    job = runner().latest(player_id(), current) if current else None
    if job is not None and job.state != "done":
        raise BadRequest(
            "A solver is working on this board: cancel it or let it finish before a new game.",
            409,
        )
    rows, cols = _size("rows"), _size("cols")
    walk = request.form.get("moves", "")
    moves = None
    if request.form.get("mode") == "moves":
        if not walk.isdecimal() or not 1 <= int(walk) <= MAX_WALK:
            raise BadRequest(f"The number of random moves must be from 1 to {MAX_WALK}.")
        moves = int(walk)
    tiles = shuffle(rows, cols, random.SystemRandom(), moves)
    code = position_code((rows, cols), tiles)
    return redirect(board_address(code, chosen_picture()), code=303)


@bp.post("/picture")
def upload_picture() -> Response:
    """Store an uploaded picture, cropped to the board it was sent from, and show it there."""
    code = request.form.get("code", "")
    game = get("sliding")
    try:
        level = game.from_code(code)
    except ValueError:
        raise BadRequest("Upload a picture from a puzzle's page.") from None
    upload = request.files.get("picture")
    if upload is None or not upload.filename:
        raise BadRequest("Choose a picture to upload.")
    if not UPLOADS.allow(player_id()):
        raise BadRequest("You have uploaded many pictures this hour; please wait a while.", 429)
    data = upload.read(pictures.MAX_BYTES + 1)
    try:
        picture = pictures.store_upload(data, picture_folder(), level.rows, level.cols)
    except pictures.PictureError as error:
        raise BadRequest(str(error)) from None
    back = request.form.get("back", "")
    if re.fullmatch(r"/sliding/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+", back):
        return redirect(f"{back}?{urlencode({'picture': picture})}", code=303)
    return redirect(board_address(code, picture), code=303)


@bp.get("/pictures/<picture>.jpg")
def uploaded_picture(picture: str) -> Response:
    path = pictures.upload_path(picture_folder(), picture)
    if path is None:
        raise BadRequest("There is no such picture.", 404)
    return send_file(path, mimetype="image/jpeg", max_age=31536000)


@register("sliding")
def sliding_extras(found: Any, play: Any) -> dict[str, Any]:
    picture = chosen_picture()
    return {
        "picture": picture,
        "picture_url": picture_url(picture),
        "pictures": pictures.BUILT_IN,
        "sizes": SIZES,
    }
