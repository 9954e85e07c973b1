"""Storage stays bounded and heavy decoding stays out of the web process."""

from __future__ import annotations

import io
import os
import time

from PIL import Image

from tests.conftest import csrf_of, upload_picture
from webapp import create_app
from webapp.core import pictures


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_an_upload_is_decoded_in_a_child_process_never_in_the_web_process(client, monkeypatch):
    # The decoder, as this process sees it, records any call: the child process the runner
    # starts imports its own, untouched copy.
    decoded_here = []
    monkeypatch.setattr(pictures, "store_upload", lambda *args: decoded_here.append(args))
    token = csrf_of(client.get("/sliding/").text)
    answer = upload_picture(client, token, png(300, 300))
    assert answer.status_code == 303 and "picture=" in answer.headers["Location"]
    assert decoded_here == []  # stored, and not decoded by this process


def test_a_bad_picture_is_refused_with_its_reason_from_the_child(client):
    token = csrf_of(client.get("/sliding/").text)
    answer = upload_picture(client, token, b"GIF89a not really")
    assert answer.status_code == 400 and "not a picture we can read" in answer.text


def test_pictures_unused_for_a_month_and_beyond_the_budget_are_swept(tmp_path):
    folder = tmp_path / "pictures"
    folder.mkdir()
    now = time.time()
    for name, age_days, size in (("old", 40, 10), ("a", 3, 100), ("b", 2, 100), ("c", 1, 100)):
        path = folder / f"{name * 24}.jpg"[-28:]
        path.write_bytes(b"x" * size)
        os.utime(path, (now - age_days * 86400, now - age_days * 86400))
    removed = pictures.sweep(folder, unused_days=30, budget_bytes=250, now=now)
    left = sorted(path.stat().st_mtime for path in folder.glob("*.jpg"))
    assert removed == 2 and len(left) == 2  # the old one, then the least recently shown
    assert min(left) > now - 2.5 * 86400


def test_shared_levels_stop_at_the_global_budget_with_a_clear_message(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "LEVELS_BUDGET_MB": 0})
    client = app.test_client()
    token = csrf_of(client.get("/sokoban/").text)
    first = client.post("/sokoban/new", data={"text": "#####\n#@$.#\n#####", "csrf_token": token})
    assert first.status_code == 303  # an empty store is within any budget
    second = client.post(
        "/sokoban/new", data={"text": "######\n#@$ .#\n######", "csrf_token": token}
    )
    assert second.status_code == 400 and "as many shared levels as it can" in second.text
