"""The front end as ES modules in a real browser: each module fetched by its version (the
page's import map), and the live panel telling the page of the search's progress."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.conftest import wait_in_page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


def _file_of(path: str) -> Path:
    if path.startswith("/static/"):
        return ROOT / "static" / path.removeprefix("/static/")
    game, name = path.removeprefix("/games/").split("/", 1)
    return ROOT / "static" / "games" / game / name


def test_every_module_is_fetched_by_its_version(page, live_server):
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    for path in ("/vexed/childrens-pack/1", "/blocks/workshop/1", "/sokoban/edit"):
        page.goto(live_server.url + path)
        wait_in_page(page, "Boolean(window.PuzzleLab)")
    scripts = [urlsplit(url) for url in fetched if urlsplit(url).path.endswith(".js")]
    names = {address.path for address in scripts}
    # Modules only ever imported by other modules are among them: they too carry a version.
    for imported in ("pipeline.js", "cursor.js", "lab.js", "motion.js", "csrf.js", "swap.js"):
        assert f"/static/js/{imported}" in names, sorted(names)
    assert {"/games/vexed/game.js", "/static/js/editor.js"} <= names
    for address in scripts:
        body = _file_of(address.path).read_bytes()
        version = parse_qs(address.query).get("v")
        assert version == [hashlib.sha256(body).hexdigest()[:12]], address.geturl()


def test_the_live_panel_tells_the_page_each_progress_and_its_end(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    page.evaluate(
        """() => {
        window.told = [];
        document.addEventListener("solver:progress", (event) => window.told.push(event.detail));
        }"""
    )
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=30_000)
    wait_in_page(page, "window.told.some((message) => message.type === 'end')")
    told = page.evaluate("window.told")
    # Each a parsed message: progress while it waits or runs, and the end with its outcome.
    assert all(message["type"] in ("progress", "end") for message in told), told
    assert all(
        message["state"] in ("queued", "running")
        for message in told
        if message["type"] == "progress"
    )
    end = next(message for message in told if message["type"] == "end")
    assert end["state"] == "done" and end["status"] == "solved"
