"""Where each game's templates and browser files live, so a game brings its own.

A game in ``webapp/games/<name>/`` keeps its templates in ``templates/<name>/`` and its script
and styles in ``static/games/<name>/`` (``game.js``, ``game.css``). A game registered from
elsewhere (the ``GAME_PACKAGES`` setting) keeps them beside its package, in ``templates/``
and ``static/``. Pages load a game's files only where the game is played.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import mimetypes
import posixpath
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, abort, current_app, request, url_for
from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader
from werkzeug.security import safe_join

from webapp import games
from webapp.games.base import Game

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = "webapp.games."

#: A file asked for by its version (the address every page gives) never changes: a year.
FOREVER = "public, max-age=31536000, immutable"
#: Asked for without its version, or by an older one (a page from before a deploy): an hour.
A_WHILE = "public, max-age=3600"
#: The kinds of file worth compressing (pictures and icons are compressed already).
TEXT = (
    "text/",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
)


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None  # None where compressing would not pay
    version: str  # the first hex digits of the bytes' SHA-256
    mimetype: str


class Assets:
    """The browser files, each read, hashed and compressed once per process and served from
    memory. Only these are compressed, never a page: a page carries the player's CSRF token
    beside text a request can choose, which compression would leak (BREACH)."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[float, Asset]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> Asset:
        stamp = path.stat().st_mtime  # a changed file (during development) is read again
        with self._lock:
            known = self._known.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        body = path.read_bytes()
        mimetype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if path.suffix == ".webmanifest":
            mimetype = "application/manifest+json"
        packed = gzip.compress(body, 9, mtime=0) if mimetype.startswith(TEXT) else None
        asset = Asset(
            body,
            packed if packed is not None and len(packed) < len(body) else None,
            hashlib.sha256(body).hexdigest()[:12],
            mimetype,
        )
        with self._lock:
            self._known[path] = (stamp, asset)
        return asset

    def serve(self, folder: Path, filename: str) -> Response:
        found = safe_join(str(folder), filename)
        if found is None or not Path(found).is_file():
            abort(404)
        asset = self.get(Path(found))
        zipped = asset.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", "")
        answer = Response(asset.gzipped if zipped else asset.body, mimetype=asset.mimetype)
        if zipped:
            answer.headers["Content-Encoding"] = "gzip"
        if asset.gzipped is not None:
            answer.headers["Vary"] = "Accept-Encoding"
        answer.set_etag(asset.version + ("-gz" if zipped else ""))
        answer.headers["Cache-Control"] = (
            FOREVER if request.args.get("v") == asset.version else A_WHILE
        )
        return answer.make_conditional(request)

    def version(self, folder: Path, filename: str) -> str | None:
        found = safe_join(str(folder), filename)
        if found is None or not Path(found).is_file():
            return None
        return self.get(Path(found)).version


ASSETS = Assets()


def _package_folder(game: Game) -> Path | None:
    """The folder of a game registered from outside webapp/games/, else None."""
    module = games.module_of(game.name)
    if module.startswith(BUILT_IN):
        return None
    return Path(sys.modules[module].__file__ or "").resolve().parent


def static_folder(game: Game) -> Path:
    own = _package_folder(game)
    return own / "static" if own is not None else ROOT / "static" / "games" / game.name


def asset_url(game: Game, filename: str) -> str | None:
    """The address of one of the game's browser files, or None when it has no such file."""
    if not (static_folder(game) / filename).is_file():
        return None
    return url_for("game_asset", game_name=game.name, filename=filename)


#: The folder of the browser's own modules (static/js): each may import the others.
MODULES = "js"


def _import_map() -> str:
    """The page's import map: each module's plain address (what ``import "./pipeline.js"``
    resolves to) mapped to its versioned one, so a module imported by another is fetched by its
    version too and a deploy never mixes an old module with new ones."""
    static = Path(current_app.static_folder or ROOT / "static")
    imports = {}
    for path in sorted((static / MODULES).rglob("*.js")):
        name = path.relative_to(static).as_posix()
        versioned = url_for("static", filename=name)
        imports[versioned.split("?", 1)[0]] = versioned
    # "<" escaped: the text sits inside a <script> element.
    return json.dumps({"imports": imports}, sort_keys=True).replace("<", "\\u003c")


def import_map() -> tuple[str, str]:
    """The import map's text and its CSP source ('sha256-...'), made once per process (and
    per script root); while debugging, again on each request, as the files change."""
    key = request.script_root
    made: dict[str, tuple[str, str]] = current_app.extensions.setdefault("import_map", {})
    if key not in made or current_app.debug:
        if len(made) >= 8:  # a deployment has one script root: never a growing table
            made.clear()
        text = _import_map()
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        made[key] = (text, f"'sha256-{digest}'")
    return made[key]


#: A module's static imports: ``import ... from "./x.js"``, ``import "./x.js"``.
IMPORT = re.compile(r"""^import\s+(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']""", re.M)


def _graph(static: Path, entry: str) -> list[str]:
    """Every module ``entry`` (a path under the static folder) imports, directly or not, in
    the order first met: what the browser would find one round trip after another."""
    found: list[str] = []
    waiting = [entry]
    while waiting:
        name = waiting.pop(0)
        path = static / name
        if not path.is_file():
            continue
        for specifier in IMPORT.findall(path.read_text(encoding="utf-8")):
            if specifier.startswith("/static/"):
                target = specifier.removeprefix("/static/")
            elif specifier.startswith("."):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier))
            else:
                continue  # a module from elsewhere is not ours to preload
            if target not in found and target != entry and not target.startswith(".."):
                found.append(target)
                waiting.append(target)
    return found


def preloads(entry: str) -> list[str]:
    """The versioned addresses of the modules ``entry`` needs, for <link rel="modulepreload">:
    fetched beside the entry rather than after it. Found once per process (again on each
    request while debugging)."""
    key = (request.script_root, entry)
    made: dict = current_app.extensions.setdefault("module_preloads", {})
    if key not in made or current_app.debug:
        if len(made) >= 32:
            made.clear()
        static = Path(current_app.static_folder or ROOT / "static")
        made[key] = [url_for("static", filename=name) for name in _graph(static, entry)]
    return made[key]


def init_app(app: Flask) -> None:
    """Register the extra games the settings name, find their templates, serve their files."""
    extra: dict[str, FileSystemLoader] = {}
    for module in app.config.get("GAME_PACKAGES") or ():
        game = games.register(module)
        extra[game.name] = FileSystemLoader(str(_package_folder(game) / "templates"))
    if extra:
        app.jinja_loader = ChoiceLoader([app.jinja_loader, PrefixLoader(extra)])

    @app.get("/games/<game_name>/<filename>")
    def game_asset(game_name: str, filename: str):  # noqa: ANN202 - a Flask response
        try:
            game = games.get(game_name)
        except KeyError:
            abort(404)
        return ASSETS.serve(static_folder(game), filename)

    static = Path(app.static_folder or ROOT / "static")
    app.view_functions["static"] = lambda filename: ASSETS.serve(static, filename)

    @app.url_defaults
    def fingerprint(endpoint: str, values: dict) -> None:
        """Every address of a browser file carries its version, so it is kept a year and a
        new version is fetched the moment it exists."""
        if endpoint == "static":
            folder = static
        elif endpoint == "game_asset" and values.get("game_name") in games.names():
            folder = static_folder(games.get(values["game_name"]))
        else:
            return
        version = ASSETS.version(folder, values.get("filename", ""))
        if version is not None:
            values.setdefault("v", version)

    app.jinja_env.globals["asset_url"] = asset_url
    app.jinja_env.globals["import_map"] = lambda: import_map()[0]
    app.jinja_env.globals["module_preloads"] = preloads
