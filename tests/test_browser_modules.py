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
    # XSokoban 5 takes the default solver long enough to report progress; then it is cancelled.
    page.goto(live_server.url + "/sokoban/xsokoban/5")
    page.evaluate(
        """() => {
        window.told = [];
        document.addEventListener("solver:progress", (event) => window.told.push(event.detail));
        }"""
    )
    page.locator("#solve-button").click()
    wait_in_page(page, "window.told.some((message) => message.state === 'running')", 30)
    page.locator("#solve-status button.cancel").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "cancelled")
    wait_in_page(page, "window.told.some((message) => message.type === 'end')")
    told = page.evaluate("window.told")
    # Each a parsed message: progress while it waits or runs, then the end with its outcome
    # (told again if the panel is drawn again).
    first_end = next(index for index, message in enumerate(told) if message["type"] == "end")
    assert first_end > 0, told
    assert all(
        message["type"] == "progress" and message["state"] in ("queued", "running")
        for message in told[:first_end]
    ), told
    assert all(
        message["type"] == "end" and message["state"] == "done" and message["status"] == "cancelled"
        for message in told[first_end:]
    ), told
