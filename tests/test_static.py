"""The vendored front-end files are exactly the recorded versions."""

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

from webapp.web.assets import FOREVER

STATIC = Path(__file__).resolve().parents[1] / "static"
VENDOR = STATIC / "vendor"


def test_vendored_files_match_their_recorded_checksums():
    lines = (VENDOR / "SHA256SUMS").read_text().split("\n")
    recorded = dict(reversed(line.split()) for line in lines if line.strip())
    assert set(recorded) == {p.name for p in VENDOR.glob("*.js")}
    for name, digest in recorded.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_pages_load_the_vendored_htmx(client):
    page = client.get("/")
    assert "/static/vendor/htmx-2.0.11.min.js?v=" in page.text
    assert client.get("/static/vendor/htmx-2.0.11.min.js").status_code == 200


def test_the_secret_key_is_generated_into_the_instance_folder(app):
    key = Path(app.instance_path) / "secret_key"
    assert key.exists() and len(key.read_text().strip()) == 64
    assert app.config["SECRET_KEY"] == key.read_text().strip()
    assert oct(key.stat().st_mode & 0o777) == "0o600"


def _address(page_html: str, name: str) -> str:
    match = re.search(rf'"(/static/{re.escape(name)}\?v=[0-9a-f]+)"', page_html)
    assert match, f"the page does not load {name} by its version"
    return match.group(1)


def test_browser_files_are_addressed_by_their_version_and_kept_a_year(client):
    address = _address(client.get("/").text, "js/app.js")
    body = (STATIC / "js" / "app.js").read_bytes()
    assert address.endswith("?v=" + hashlib.sha256(body).hexdigest()[:12])
    kept = client.get(address)
    assert kept.status_code == 200 and kept.data == body
    assert kept.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # Without its version, or with a version that is not this file's, an hour only.
    for stale in ("/static/js/app.js", "/static/js/app.js?v=000000000000"):
        assert client.get(stale).headers["Cache-Control"] == "public, max-age=3600"
    again = client.get(address, headers={"If-None-Match": kept.headers["ETag"]})
    assert again.status_code == 304


def test_a_games_files_are_addressed_by_their_version(client):
    page = client.get("/sokoban/microban/1").text
    match = re.search(r'"(/games/sokoban/game\.js\?v=[0-9a-f]+)"', page)
    assert match, "the level page does not load the game's script by its version"
    answer = client.get(match.group(1))
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_browser_files_are_compressed_for_a_browser_that_takes_gzip(client):
    address = _address(client.get("/").text, "css/app.css")
    packed = client.get(address, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == (STATIC / "css" / "app.css").read_bytes()
    plain = client.get(address)
    assert "Content-Encoding" not in plain.headers
    # Pictures are compressed already: sent as they are.
    icon = client.get("/static/icons/icon-192.png", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in icon.headers


def test_pages_are_never_compressed(client):
    """A page holds the player's CSRF token beside text the address chooses (an editor's
    ?from=, a replay's moves): compressed, its length would leak the token (BREACH)."""
    page = client.get("/sokoban/edit?from=x", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in page.headers


def test_no_file_outside_the_static_folder_is_served(client):
    for path in (
        "/static/..%2fwsgi.py",
        "/static/%2e%2e/pyproject.toml",
        "/static/%2e%2e%2fwsgi.py",
    ):
        assert client.get(path).status_code == 404


def test_every_page_says_what_it_is_to_a_search_engine(client):
    for path in ("/", "/sokoban/", "/sokoban/microban/", "/vexed/edit", "/settings"):
        match = re.search(r'<meta name="description" content="([^"]{40,})">', client.get(path).text)
        assert match, f"{path} has no description"
    level = client.get("/sokoban/microban/12").text
    assert re.search(r'<meta name="description" content="[^"]*Microban[^"]*">', level)


def _import_map(page_html: str) -> str:
    match = re.search(r'<script type="importmap">(.*?)</script>', page_html, re.S)
    assert match, "the page has no import map"
    return match.group(1)


def test_the_import_map_gives_every_module_its_versioned_address(client):
    page = client.get("/sokoban/microban/1")
    imports = json.loads(_import_map(page.text))["imports"]
    modules = sorted((STATIC / "js").rglob("*.js"))
    assert len(modules) > 10  # the front end in modules
    for module in modules:
        plain = "/static/" + module.relative_to(STATIC).as_posix()
        version = hashlib.sha256(module.read_bytes()).hexdigest()[:12]
        assert imports[plain] == f"{plain}?v={version}"
        assert client.get(imports[plain]).headers["Cache-Control"] == FOREVER
    # The map comes before the first module, which would otherwise be fetched without it.
    assert page.text.index('type="importmap"') < page.text.index('type="module"')


def test_the_policy_allows_the_import_map_by_its_hash_and_no_other_inline_script(client):
    page = client.get("/sokoban/microban/1")
    text = _import_map(page.text)
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    policy = page.headers["Content-Security-Policy"]
    scripts = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
    assert scripts.split() == ["script-src", "'self'", f"'sha256-{digest}'"]
    # The same map and hash on every page and answer of this process.
    home = client.get("/")
    assert _import_map(home.text) == text
    assert home.headers["Content-Security-Policy"] == policy


def test_the_front_end_has_one_swap_listener_one_token_reader_and_a_small_entry():
    scripts = [*(STATIC / "js").rglob("*.js"), *(STATIC / "games").rglob("*.js")]
    texts = {path.relative_to(STATIC).as_posix(): path.read_text() for path in scripts}
    listening = [
        name for name, text in texts.items() if 'addEventListener("htmx:afterSwap"' in text
    ]
    assert listening == ["js/swap.js"] and texts["js/swap.js"].count("htmx:afterSwap") == 1
    readers = [name for name, text in texts.items() if "csrf-token" in text]
    assert readers == ["js/csrf.js"], readers
    assert len(texts["js/app.js"].splitlines()) <= 250
    assert texts["js/app.js"].count("import ") >= 10
    # The keyboard cursors of the games and of the editor are the one cursor module's.
    for script in ("games/vexed/game.js", "games/blocks/game.js", "js/editor.js"):
        assert "new GridCursor(" in texts[script]


def test_the_page_preloads_the_modules_the_entry_needs_by_their_versions(client):
    page = client.get("/sokoban/microban/1").text
    versioned = set(json.loads(_import_map(page))["imports"].values())
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', page)
    names = {address.split("?")[0].removeprefix("/static/js/") for address in preloaded}
    # What app.js imports, and what those import (the token reader, through the requests).
    assert {"pipeline.js", "cursor.js", "motion.js", "csrf.js"} <= names
    assert "app.js" not in names and "editor.js" not in names
    assert len(preloaded) == len(names) and set(preloaded) <= versioned
