"""The sliding puzzle's pages: shuffles, position addresses, picture uploads."""

from __future__ import annotations

import io
import os
import re
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from tests.conftest import csrf_of
from webapp.games import get

GAME = get("sliding")


@pytest.fixture
def token(client):
    return csrf_of(client.get("/sliding/").text)


def shuffled(client, token, **fields) -> str:
    data = {"csrf_token": token, "rows": "3", "cols": "3", "mode": "uniform", **fields}
    response = client.post("/sliding/generate", data=data)
    assert response.status_code == 303, response.text
    return response.headers["Location"]


def test_a_new_game_is_a_solvable_position_with_its_own_address(client, token):
    seen = set()
    for _ in range(20):
        address = shuffled(client, token)
        code = re.fullmatch(r"/sliding/p/(3x3-[0-9a-z]{9})", address).group(1)
        level = GAME.from_code(code)
        assert GAME.start(level) != tuple(range(1, 9)) + (0,)
        seen.add(code)
    assert len(seen) > 15  # really random
    page = client.get(address)
    assert page.status_code == 200 and "3×3 puzzle" in page.text
    assert page.text.count('class="cell tile') == 8


def test_an_easy_game_is_a_few_moves_from_home_and_sizes_are_checked(client, token):
    address = shuffled(client, token, rows="4", cols="5", mode="moves", moves="6")
    level = GAME.from_code(address.rsplit("/", 1)[1])
    assert (level.rows, level.cols) == (4, 5)
    from webapp.games.solving import solve

    assert solve(GAME, level, "astar").cost <= 6
    bad = client.post("/sliding/generate", data={"csrf_token": token, "rows": "9", "cols": "3"})
    assert bad.status_code == 400 and "from 2 to 8" in bad.text
    walk = client.post(
        "/sliding/generate",
        data={"csrf_token": token, "rows": "3", "cols": "3", "mode": "moves", "moves": "99999"},
    )
    assert walk.status_code == 400 and "from 1 to 1000" in walk.text


def test_bad_position_addresses_say_so(client):
    assert client.get("/sliding/p/3x3-123456870").status_code == 404  # unsolvable parity
    response = client.get("/sliding/p/nonsense")
    assert response.status_code == 404 and "names no Sliding puzzle position" in response.text
    assert client.get("/sliding/p/3x3-12345678").status_code == 404  # a tile short


def png(width: int, height: int, colour=(200, 40, 40), **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format=save.pop("format", "PNG"), **save)
    return out.getvalue()


def upload(client, token, data: bytes, name: str = "me.png", code: str = "3x4-12345678a0b9"):
    return client.post(
        "/sliding/picture",
        content_type="multipart/form-data",
        data={
            "csrf_token": token,
            "code": code,
            "back": f"/sliding/p/{code}",
            "picture": (io.BytesIO(data), name),
        },
    )


def test_an_uploaded_picture_is_cropped_reencoded_and_shown_on_the_tiles(client, token):
    exif = Image.Exif()
    exif[0x010F] = "SecretCamera"
    response = upload(client, token, png(1000, 400, format="JPEG", exif=exif.tobytes()), "me.jpg")
    assert response.status_code == 303
    picture = re.search(r"picture=([0-9a-f]{24})", response.headers["Location"]).group(1)
    page = client.get(response.headers["Location"])
    assert f"/pictures/{picture}.jpg" in page.text
    stored = client.get(f"/pictures/{picture}.jpg")
    assert stored.status_code == 200 and stored.mimetype == "image/jpeg"
    image = Image.open(io.BytesIO(stored.data))
    assert abs(image.width / image.height - 4 / 3) < 0.01  # cropped to the 3x4 board
    assert b"SecretCamera" not in stored.data and not image.getexif()
    # The same picture again gets the same id.
    again = upload(client, token, png(1000, 400, format="JPEG", exif=exif.tobytes()), "me.jpg")
    assert picture in again.headers["Location"]


@pytest.mark.parametrize(
    ("data", "name", "words"),
    [
        (b"just some text", "notes.png", "not a picture we can read"),
        (png(40, 40, format="GIF"), "anim.gif", "GIF type is not accepted"),
        (png(300, 300)[:200], "cut.png", "damaged or cut short"),
        (png(5000, 20), "wide.png", "the most is 4096×4096"),
        (b"", "empty.png", "empty"),
    ],
)
def test_bad_uploads_get_a_clear_message(client, token, data, name, words):
    response = upload(client, token, data, name)
    assert response.status_code == 400
    assert words in response.text


def declared(width: int, height: int) -> bytes:
    """A whole, valid PNG of ``width``×``height`` black-and-white pixels, all off: a few
    kilobytes that decode to a byte a pixel."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1 bit, greyscale
    squeeze = zlib.compressobj(9)
    row = bytes(1 + (width + 7) // 8)  # each row: its filter byte, then the pixels
    pixels = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_a_decompression_bomb_is_refused_before_it_is_decoded(client, token, tmp_path, monkeypatch):
    from webapp.core import pictures

    bomb = declared(9000, 9000)  # 81 million pixels (under Pillow's own bomb limit) in 10 KB
    assert len(bomb) < 100_000 and Image.open(io.BytesIO(bomb)).size == (9000, 9000)
    response = upload(client, token, bomb)
    assert response.status_code == 400 and "9000×9000 pixels" in response.text
    # The same check in this process, with decoding recorded: the header alone refuses it.
    decoded = []
    for kind in (Image.Image, ImageFile.ImageFile):
        monkeypatch.setattr(kind, "load", lambda image: decoded.append(image.size))
    folder = tmp_path / "pictures"
    refused = pictures.store_checked(bomb, folder, 4, 3)
    assert refused == {"refused": "The picture is 9000×9000 pixels; the most is 4096×4096."}
    assert decoded == [] and not folder.exists()


def noise(side: int) -> bytes:
    """A PNG of random pixels: it compresses to no less than its pixels' bytes."""
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def test_an_upload_larger_than_5_mb_is_refused(app, client, token):
    picture = noise(1350)  # a picture we would take (within 4096×4096), only too heavy
    assert 5 * 2**20 < len(picture) < app.config["MAX_CONTENT_LENGTH"] - 10_000
    assert Image.open(io.BytesIO(picture)).size == (1350, 1350)
    response = upload(client, token, picture)
    assert response.status_code == 400 and "larger than 5 MB" in response.text
    assert not list((Path(app.instance_path) / "pictures").glob("*"))


def test_a_new_game_is_refused_while_a_solver_works_on_the_board(app, client, token):
    from webapp.web.solvers import get_runner as runner

    page = client.get("/sliding/fifteen/10")
    solve = client.post(
        "/sliding/fifteen/10/solve",
        data={"algorithm": "astar"},
        headers={"X-CSRF-Token": csrf_of(page.text)},
    )
    assert solve.status_code == 200
    refused = client.post(
        "/sliding/generate",
        data={"csrf_token": token, "rows": "4", "cols": "4", "board": "sliding/fifteen/10"},
    )
    assert refused.status_code == 409 and "solver is working on this board" in refused.text
    with app.app_context():
        for job in list(runner().jobs.values()):
            runner().cancel(job)


def test_the_app_prebuilds_the_15_puzzle_tables_in_a_child_process(tmp_path, monkeypatch):
    import subprocess

    from webapp import create_app

    started = []

    class Recorder:
        def __init__(self, args, **kwargs):
            started.append(args)

    monkeypatch.setattr(subprocess, "Popen", Recorder)
    app = create_app({"INSTANCE_PATH": str(tmp_path), "PREBUILD_TABLES": True})
    ((*command, game, folder),) = started
    assert command[1:] == ["-m", "webapp", "tables"] and game == "sliding"
    assert folder == app.instance_path


def test_every_link_in_a_shuffled_puzzles_breadcrumb_leads_somewhere(client):
    """A shuffled puzzle is in no collection: its breadcrumb names its kind of level without
    linking to /sliding/p/, which is no page."""
    page = client.get("/sliding/p/3x3-123405786")
    crumbs = re.search(r'<nav class="crumbs".*?</nav>', page.text, re.S).group(0)
    links = re.findall(r'href="([^"]+)"', crumbs)
    assert "/sliding/p/" not in links and links
    for link in links:
        assert client.get(link).status_code == 200, link
    level = client.get("/sliding/fifteen/10").text
    assert 'href="/sliding/fifteen/"' in level  # a collection's level still links to it
