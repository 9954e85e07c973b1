"""The vendored front-end files are exactly the recorded versions."""

import hashlib
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "static" / "vendor"


def test_vendored_files_match_their_recorded_checksums():
    lines = (VENDOR / "SHA256SUMS").read_text().split("\n")
    recorded = dict(reversed(line.split()) for line in lines if line.strip())
    assert set(recorded) == {p.name for p in VENDOR.glob("*.js")}
    for name, digest in recorded.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_pages_load_the_vendored_htmx(client):
    page = client.get("/")
    assert "/static/vendor/htmx-2.0.11.min.js" in page.text
    assert client.get("/static/vendor/htmx-2.0.11.min.js").status_code == 200


def test_the_secret_key_is_generated_into_the_instance_folder(app):
    key = Path(app.instance_path) / "secret_key"
    assert key.exists() and len(key.read_text().strip()) == 64
    assert app.config["SECRET_KEY"] == key.read_text().strip()
    assert oct(key.stat().st_mode & 0o777) == "0o600"
