"""Pictures a board can show: the built-in ones, and players' uploads checked with Pillow.

An upload is decoded to prove it is an image, refused if it is too large (in bytes or pixels),
re-encoded (which drops its metadata), centre-cropped to the board's aspect and stored under
the hash of its content, so the same picture always gets the same id.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import time
import warnings
from pathlib import Path

from PIL import Image, UnidentifiedImageError

#: Pictures drawn for the project (static/pictures/<id>.svg), by id, with their names.
BUILT_IN = {"sunrise": "Sunrise", "tangram": "Tangram", "rings": "Rings", "city": "City"}
DEFAULT = "sunrise"
MAX_BYTES = 5 * 1024 * 1024
MAX_SIDE = 4096
FORMATS = {"PNG", "JPEG", "WEBP"}
#: The stored picture's longest side: plenty for an 8x8 board on a large screen.
STORED_SIDE = 1200

_UPLOAD_ID = re.compile(r"^[0-9a-f]{24}$")


class PictureError(ValueError):
    """An upload that is not a picture we accept, with the reason for the player."""


def store_upload(data: bytes, folder: Path, rows: int, cols: int) -> str:
    """Check, crop to cols:rows, re-encode and store an upload; its id."""
    if len(data) > MAX_BYTES:
        raise PictureError(f"The picture is larger than {MAX_BYTES // 2**20} MB.")
    if not data:
        raise PictureError("The file is empty.")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
            if image.format not in FORMATS:
                raise PictureError(
                    f"A {image.format or 'file of that'} type is not accepted: "
                    "use a PNG, JPEG or WebP picture."
                )
            width, height = image.size
            if width > MAX_SIDE or height > MAX_SIDE:
                raise PictureError(
                    f"The picture is {width}×{height} pixels; the most is {MAX_SIDE}×{MAX_SIDE}."
                )
            image.load()
        except PictureError:
            raise
        except (
            UnidentifiedImageError,
            Image.DecompressionBombError,
            Image.DecompressionBombWarning,
        ):
            raise PictureError(
                "That file is not a picture we can read (PNG, JPEG or WebP)."
            ) from None
        except (OSError, SyntaxError, ValueError):
            raise PictureError("The picture is damaged or cut short; try another file.") from None
    image = image.convert("RGB")
    image = _crop_to(image, cols, rows)
    image.thumbnail((STORED_SIDE, STORED_SIDE))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=88, optimize=True)
    encoded = out.getvalue()
    picture = hashlib.sha256(encoded).hexdigest()[:24]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{picture}.jpg"
    if not target.exists():
        partial = target.with_suffix(".part")
        partial.write_bytes(encoded)
        partial.replace(target)
    return picture


def _crop_to(image: Image.Image, wide: int, high: int) -> Image.Image:
    """The largest centred part of the image with the aspect wide:high."""
    width, height = image.size
    if width * high > height * wide:
        new_width = height * wide // high
        left = (width - new_width) // 2
        return image.crop((left, 0, left + new_width, height))
    new_height = width * high // wide
    top = (height - new_height) // 2
    return image.crop((0, top, width, top + new_height))


def upload_path(folder: Path, picture: str) -> Path | None:
    if not _UPLOAD_ID.match(picture):
        return None
    path = folder / f"{picture}.jpg"
    return path if path.exists() else None


def store_checked(data: bytes, folder: Path, rows: int, cols: int) -> dict[str, str]:
    """``store_upload`` for a child process (decoding is the work a flood would aim at):
    ``{"picture": id}``, or ``{"refused": the reason for the player}``."""
    try:
        return {"picture": store_upload(data, folder, rows, cols)}
    except PictureError as error:
        return {"refused": str(error)}


def touch(path: Path) -> None:
    """Mark a stored picture as in use now (the sweep keeps pictures in use)."""
    try:
        os.utime(path)
    except OSError:
        pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # removed meanwhile (another process's sweep)


def folder_bytes(folder: Path) -> int:
    return sum(_size(path) for path in folder.glob("*.jpg")) if folder.exists() else 0


def sweep(folder: Path, unused_days: float, budget_bytes: int, now: float | None = None) -> int:
    """Remove pictures nobody showed for ``unused_days``, then the least recently shown ones
    while the folder holds more than ``budget_bytes``; how many were removed."""
    if not folder.exists():
        return 0
    now = now or time.time()
    kept = []
    removed = 0
    for path in folder.glob("*.jpg"):
        try:
            stat = path.stat()
        except OSError:
            continue  # removed meanwhile (another process's sweep)
        if now - stat.st_mtime > unused_days * 86400:
            path.unlink(missing_ok=True)
            removed += 1
        else:
            kept.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in kept)
    for _, size, path in sorted(kept):
        if total <= budget_bytes:
            break
        path.unlink(missing_ok=True)
        total -= size
        removed += 1
    return removed
