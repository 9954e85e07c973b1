"""The solver service, in the flaskr way: ``init_app(app)`` makes the app's Runner (solves and
hints in child processes; on RQ workers, ``webapp.jobs.scaled``, when ``REDIS_URL`` is set) and
its Tables; views reach them with ``get_runner()`` and ``get_tables()``, and ask for work with
``job_request``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from webapp import games
from webapp.games.base import Game
from webapp.jobs.base import JobRunner, Request
from webapp.jobs.child import die_with_parent
from webapp.jobs.embedded import Runner
from webapp.jobs.scaled import RedisRunner
from webapp.jobs.tables import Tables
from webapp.jobs.work import Work
from webapp.search import Limits
from webapp.web.budgets import client_key
from webapp.web.players import player_id


def init_app(app: Flask) -> None:
    config = app.config
    runner: JobRunner
    if config.get("REDIS_URL"):
        # The scaled mode: solves run on RQ workers, shared by every web process.
        runner = RedisRunner(
            config["REDIS_URL"],
            orphan_grace=float(config.get("SOLVE_ORPHAN_GRACE", 10)),
            max_queued=int(config.get("SOLVE_MAX_QUEUED", 32)),
            per_owner=int(config.get("SOLVE_PER_PLAYER", 3)),
            per_client_queued=int(config.get("SOLVE_PER_CLIENT_QUEUED", 8)),
        )
    else:
        runner = Runner(
            max_running=config.get("SOLVE_MAX_RUNNING"),
            orphan_grace=float(config.get("SOLVE_ORPHAN_GRACE", 10)),
            max_queued=int(config.get("SOLVE_MAX_QUEUED", 32)),
            per_owner=int(config.get("SOLVE_PER_PLAYER", 3)),
            per_client_queued=int(config.get("SOLVE_PER_CLIENT_QUEUED", 8)),
            max_hints=int(config.get("HINT_MAX_RUNNING", 1)),
        )
    app.extensions["puzzlelab.runner"] = runner
    app.extensions["puzzlelab.tables"] = Tables(runner.call)
    if not config.get("TESTING") and config.get("PREBUILD_TABLES", True):
        prebuild_disk_tables(Path(app.instance_path))


def get_runner() -> JobRunner:
    return current_app.extensions["puzzlelab.runner"]


def job_request(game: Game, level: Any, work: Work, limits: Limits, board: str) -> Request:
    """``work`` for the runner on behalf of this request's player: the level as its text,
    the board the work belongs to, who asks and from which client."""
    return Request(
        game=game.name,
        level_text=game.level_text(level),
        work=work,
        limits=limits,
        owner=player_id(),
        board=board,
        game_module=games.module_of(game.name),
        tables_dir=current_app.instance_path,
        client=client_key(),
    )


def get_tables() -> Tables:
    return current_app.extensions["puzzlelab.tables"]


def web_limits() -> Limits:
    """The solver's limits, unless the config sets others (docs/DEPLOY.md)."""
    config = current_app.config
    return Limits(
        seconds=float(config.get("SOLVE_TIME_LIMIT", Limits.seconds)),
        nodes=int(config.get("SOLVE_NODE_LIMIT", Limits.nodes)),
        memory_mb=int(config.get("SOLVE_MEMORY_MB", Limits.memory_mb)),
    )


def hint_limits() -> Limits:
    """A hint's search: a few seconds, a gigabyte."""
    seconds = float(current_app.config.get("HINT_TIME_LIMIT", 5))
    return Limits(seconds=seconds, nodes=None, memory_mb=1024)


def prebuild_disk_tables(folder: Path) -> None:
    """Build the tables solvers keep on disk (the 15-puzzle's pattern databases) once, in a
    low-priority child process, so the first player to ask for such a solve does not wait
    a minute for them. Every web process starts one, and one of them builds: the others
    find the folder's lock held and stop at once (``Game.build_disk_tables``). The builder
    dies with this process (PR_SET_PDEATHSIG, asked for before its program starts), so a
    killed web process leaves none behind. Linux sends that signal when the thread that
    started the child ends: this runs in ``create_app``, on the web process's main thread."""
    parent = os.getpid()

    def low_priority_dying_with_parent() -> None:
        os.nice(15)
        die_with_parent(parent)

    for game in games.all_games():
        if game.has_disk_tables and not game.disk_tables_ready(folder):
            subprocess.Popen(
                [sys.executable, "-m", "webapp", "tables", game.name, str(folder)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=low_priority_dying_with_parent,
            )
