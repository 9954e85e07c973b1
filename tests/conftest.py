"""Fixtures: the app on a temporary instance folder, its test client, a real server process,
and a real browser (the system Chromium, driven by Playwright)."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from webapp import create_app

ROOT = Path(__file__).resolve().parents[1]
LEVELS = ROOT / "levels"
#: Data the tests read beside the shipped levels (tests/data/SOURCES.md says where it is from).
DATA = ROOT / "tests" / "data"
CHROMIUM = "/usr/bin/chromium"
#: The files that take longest (about a minute each), run first: `make test` hands whole files
#: to its two processes as they come free, and the others then fill in around these.
SLOW_FIRST = (
    "test_generate.py",
    "test_sokoban_compiled.py",
    "test_browser_solver.py",
    "test_sokoban_plan.py",
    "test_scaled.py",
    "test_socket.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get("MUTANT_UNDER_TEST"):
        return  # `make mutate` gives the tests fastest first: the quickest one kills a mutant

    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return SLOW_FIRST.index(name) if name in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)  # stable: a file's tests stay together and in order


@pytest.fixture
def app(tmp_path):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})


@pytest.fixture
def client(app):
    return app.test_client()


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "the page carries no CSRF token"
    return match.group(1)


class Player:
    """A test client that behaves like a browser on a level page (sends the CSRF header)."""

    def __init__(self, client, path: str):
        self.client = client
        self.path = path
        page = client.get(path)
        assert page.status_code == 200, page.text
        self.token = csrf_of(page.text)
        # Reading makes no player; the first action does, as a player's first move would.
        assert self.act("refresh").status_code == 200

    def act(self, action: str, **fields: str):
        return self.client.post(
            f"{self.path}/play",
            data={"action": action, **fields},
            headers={"X-CSRF-Token": self.token, "HX-Request": "true"},
        )


@pytest.fixture
def whole_solutions(monkeypatch):
    """For tests that post a whole solution in one request, where a page sends one key's move
    at a time: the pace that keeps such a win unranked (tests/test_records.py proves it) is
    lifted, so the win is ranked as a person's would be."""
    from webapp.core import records

    monkeypatch.setattr(records, "BURST_MOVES", 1e9)
    monkeypatch.setattr(records, "MOST_CREDIT", 1e9)


@pytest.fixture
def player(client):
    return lambda path: Player(client, path)


def recorded_searches(monkeypatch) -> tuple[list, dict[int, object]]:
    """The Sokoban compiled searches run_fast makes from here on, and each link between them
    (``partner``) as it is made, by search id."""
    from webapp.games.sokoban import solver
    from webapp.games.sokoban.compiled import CompiledSearch

    made: list[CompiledSearch] = []
    partners: dict[int, CompiledSearch] = {}

    class Recorded(CompiledSearch):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        @property
        def partner(self) -> CompiledSearch | None:
            return self.__dict__.get("linked")

        @partner.setter
        def partner(self, other: CompiledSearch | None) -> None:
            self.__dict__["linked"] = other
            if other is not None:
                partners[id(self)] = other

    monkeypatch.setattr(solver, "CompiledSearch", Recorded)
    return made, partners


def process_gone(pid: int) -> bool:
    """True when the process no longer runs (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


def wait_until(predicate, timeout: float = 10.0, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def upload_picture(client, token: str, data: bytes, back: str = "/sliding/p/3x3-123456708"):
    """Upload ``data`` as a picture from the puzzle page at ``back``."""
    return client.post(
        "/sliding/picture",
        content_type="multipart/form-data",
        data={"csrf_token": token, "back": back, "picture": (io.BytesIO(data), "me.png")},
    )


def wait_in_page(page, expression: str, timeout: float = 10.0) -> None:
    """Wait until a script expression holds in the page. Playwright's wait_for_function
    polls with eval, which the pages' content security policy (rightly) refuses."""
    script = expression if expression.lstrip().startswith("()") else f"() => ({expression})"
    assert wait_until(lambda: page.evaluate(script), timeout, 0.05), expression


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """The app served by gunicorn in its own process, as `make run` serves it."""

    def __init__(self, instance: Path, **settings: str):
        self.instance = instance
        self.settings = settings
        self.log = instance.parent / "server.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "PUZZLE_LAB_INSTANCE": str(self.instance)}
        # No minute-long table builds behind every test server.
        env["PUZZLE_LAB_PREBUILD_TABLES"] = "false"
        env["PUZZLE_LAB_WARM_PAGES"] = "false"
        # No level made ahead taking a solver behind a test's back (tests/test_making.py).
        env["PUZZLE_LAB_MAKE_AHEAD"] = "false"
        # Every test player is this machine, at machine speed, from one address: the cost
        # budgets and load shedding that keep a public site fair would refuse them. Tests of
        # those set them (tests/test_budgets.py).
        env["PUZZLE_LAB_BUDGET_CPU_MS"] = "10000000 per minute"
        env["PUZZLE_LAB_LOAD_SHEDDING"] = "false"
        env.update({f"PUZZLE_LAB_{name}": value for name, value in self.settings.items()})
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "python:webapp.ops.serving",
                "--threads",
                "16",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--graceful-timeout",
                "2",
                "wsgi:app",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            # A file, not a pipe: nobody reads a pipe while tests run, and a full one would
            # block the server on its next log line.
            stderr=self.log.open("ab"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/", timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(self.log.read_text()) from None
                time.sleep(0.1)
        raise RuntimeError("the server did not start within 20 s")

    def kill(self) -> None:
        """Kill the whole server (SIGKILL: no chance to tidy up)."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        if "Traceback" in log:  # shown with the test's output: the server's side of a failure
            print("server log:\n" + log[log.index("Traceback") - 2000 :])


def recorder(setup: str) -> str:
    """A script for ``page.evaluate``: ``setup`` sets up what is kept and defines ``note()``,
    which then runs at once, at every change of the level page and on every frame."""
    return (
        "() => {\n"
        + setup
        + """
    note();
    new MutationObserver(note).observe(document.querySelector('.level-page'),
        {childList: true, subtree: true, attributes: true});
    const sample = () => { note(); requestAnimationFrame(sample); };
    requestAnimationFrame(sample);
}"""
    )


def pinch(context, page, x: float, y: float, spreads: tuple[int, ...]) -> None:
    """Two fingers on the screen at (``x``, ``y``), moved apart through ``spreads`` (the
    half-distance between them, in pixels), then lifted: a pinch that zooms in."""
    cdp = context.new_cdp_session(page)

    def touch(kind: str, spread: int) -> None:
        points = [{"x": x - spread, "y": y, "id": 1}, {"x": x + spread, "y": y, "id": 2}]
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": points if kind != "touchEnd" else []},
        )

    touch("touchStart", spreads[0])
    for spread in spreads[1:]:
        touch("touchMove", spread)
    touch("touchEnd", spreads[-1])


@contextmanager
def serving(folder: Path, **settings: str) -> Iterator[Server]:
    """The app served from an instance folder in ``folder``, with these settings, stopped on
    the way out whatever happened."""
    running = Server(folder / "instance", **settings)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    with serving(tmp_path) as running:
        yield running


@pytest.fixture(scope="module")
def live_server(tmp_path_factory) -> Iterator[Server]:
    """One server shared by a module's browser tests (each test uses its own browser context,
    so its own player)."""
    with serving(tmp_path_factory.mktemp("live")) as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


#: The two screens every browser feature is tried on: a desktop, and a phone with touch.
SCREENS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


def watched_page(browser, timeout: float = 10_000, **context_options):
    """A page in its own browser context (a new player), with the problems it shows: a
    script error, or anything its content security policy refused."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(timeout)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on(
        "console",
        lambda message: problems.append(message.text)
        if message.type == "error" and "Content Security Policy" in message.text
        else None,
    )
    return context, page, problems


@pytest.fixture
def page(browser):
    """A page in its own browser context (a new player); fails the test if the page breaks
    its content security policy or throws a script error."""
    context, page, problems = watched_page(browser)
    yield page
    context.close()
    assert not problems, problems


@pytest.fixture(params=list(SCREENS))
def screen(request, browser):
    """``page`` on each of the two screens (the test runs once on each)."""
    context, page, problems = watched_page(browser, 20_000, **SCREENS[request.param])
    yield page
    context.close()
    assert not problems, problems
