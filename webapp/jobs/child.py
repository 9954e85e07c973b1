"""The solve body, written once for every transport: what runs in a solver process (the
embedded runner's fork-server child, or an RQ worker's work horse).

The process caps its own address space and lowers its priority, rebuilds the level from its
text, replays the moves to the start position and searches within the request's limits,
reporting progress through ``report`` and stopping when ``cancelled`` says so.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webapp.jobs.base import Request
from webapp.search import Progress, Result, Stop

#: Room for the interpreter and its libraries on top of the search's own memory limit.
MEMORY_HEADROOM_MB = 768
#: How much lower than the web server solver processes run.
SOLVER_NICENESS = 10
#: The most expansions a step-through ("trace") request records: the reader steps through
#: these, then goes on at full speed with an ordinary solve.
STEP_THROUGH = 5_000
#: The most text a step-through keeps (positions and moves, as ``trace`` prints them): the
#: result is held in the web process while its page may ask for it, and a large board's
#: expansions run to kilobytes each.
STEP_THROUGH_CHARS = 2_000_000


def cap_memory(megabytes: int) -> None:
    """Cap this (child) process's address space: the search's share plus the interpreter's."""
    cap = (megabytes + MEMORY_HEADROOM_MB) * 2**20
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        pass  # no such limit here: the Monitor's memory check still stops the search


def lower_priority() -> None:
    """Make this (child) process give the CPU to the web server at once.

    A niced search may still finish its time slice before a woken server thread gets the
    core; with as many solves as cores, a request can meet that wait at every step. A
    SCHED_IDLE process is preempted as soon as anything else wants to run: the solve takes
    what the server leaves."""
    os.nice(SOLVER_NICENESS)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass  # not Linux: the nice level still lowers it


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to kill this process when its parent dies (a killed worker leaves no solve).
    With ``parent``, the pid it was started by: if that one died before the request was
    made (this process already has another parent), it dies now."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def confine(memory_mb: int) -> None:
    """What every solver process does first: low priority, capped memory."""
    lower_priority()
    cap_memory(memory_mb)


def run_request(
    request: Request,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Result:
    """Solve what ``request`` asks; every failure becomes a result the player can read."""
    from webapp import games
    from webapp.solving import solve

    try:
        if request.game_module:
            games.register(request.game_module)
        game = games.get(request.game)
        if request.tables_dir and os.path.isdir(request.tables_dir):
            game.use_disk_tables(Path(request.tables_dir))
        level = game.parse(request.level_text)[0]
        if request.task == "check":
            return _check(game, level, request, report, cancelled)
        if request.task == "improve":
            return _improve(game, level, request, report)
        state = game.replay(level, request.moves)
        if request.task == "trace":
            return _trace(game, level, state, request, report, cancelled)
        return solve(game, level, request.algorithm, state, request.limits, report, cancelled)
    except MemoryError:
        return Result(status="memory-limit")
    except Exception as exc:  # noqa: BLE001 - told to the player, never raised into the runner
        return Result(status="error", error=f"{type(exc).__name__}: {exc}")


def _trace(
    game: Any,
    level: Any,
    state: Any,
    request: Request,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Result:
    """The search ``solve`` runs with the request's algorithm, with ``trace``'s tracer on it
    (one code path: the command line's): its first ``STEP_THROUGH`` expansions, each as
    ``trace`` prints it, in the result's ``extra["steps"]``; a search stopped by that bound
    ends as ``node-limit``."""
    from webapp.solving import StepWriter, solve, traceable

    if request.algorithm not in traceable(game):
        return Result(status="error", error=f"{request.algorithm!r} cannot be stepped through")
    steps: list[dict[str, Any]] = []
    kept = [0]

    def keep(expansion: dict[str, Any]) -> None:
        steps.append(expansion)
        kept[0] += len(expansion["position"]) + sum(
            len(child["position"]) + len(child["move"]) + len(child.get("rule", ""))
            for child in expansion["children"]
        )
        if kept[0] > STEP_THROUGH_CHARS:
            raise Stop("node-limit")  # in the search (its next expansion): it ends there

    writer = StepWriter(game, level, keep, STEP_THROUGH)
    result = solve(
        game, level, request.algorithm, state, request.limits, report, cancelled, tracer=writer
    )
    try:
        writer.close()
    except Stop:
        pass  # the last expansion is kept: only the search after it is stopped
    result.extra = {**result.extra, "steps": steps}
    result.expanded = writer.taken  # exact, where a stopped search's count is its last tick's
    return result


def _check(
    game: object,
    level: object,
    request: Request,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Result:
    """The editor's verdict on a level, as a result: solved when solvable, unsolvable when
    proved so, timeout when undecided; the verdict itself in ``extra``."""
    from webapp.checking import check

    limits = request.limits
    verdict = check(
        game,
        level,
        limits.seconds or 5.0,
        node_limit=limits.nodes,
        report=report,
        cancelled=cancelled,
    )
    status = {"solvable": "solved", "unsolvable": "unsolvable"}.get(verdict.status, "timeout")
    if verdict.status == "unknown" and cancelled():
        status = "cancelled"
    return Result(
        status=status,
        expanded=verdict.expanded,
        seconds=verdict.seconds,
        optimal=verdict.optimal,
        metric=verdict.metric,
        extra={"verdict": verdict.to_dict()},
    )


def _improve(game: Any, level: Any, request: Request, report: Callable[[Progress], None]) -> Result:
    """A solution made shorter by the game's optimizer, as a solve's result: its moves, and
    the solution it started from in ``extra``; progress is the length so far."""
    started = time.monotonic()
    metric = request.improve
    given = game.count(level, request.solution)
    report(Progress(0, 0, 0, 0, 0.0, 0.0, note=f"{given.get(metric, 0)} {metric} to start from"))
    seconds = request.limits.seconds or 10.0

    gains = [0]  # the optimizer reports each gain

    def gained(length: int, expanded: int) -> None:
        # The panel speaks of the optimizer's work in its own terms: the shorter solutions
        # found ride in ``generated``, the length so far in ``depth``.
        gains[0] += 1
        elapsed = time.monotonic() - started
        rate = expanded / elapsed if elapsed > 0 else 0.0
        note = f"{length} {metric} so far"
        report(Progress(expanded, gains[0], 0, length, elapsed, rate, note=note))

    better = game.improve(level, list(request.solution), metric, seconds, gained)
    moves = list(better.moves)
    figures = game.count(level, moves)
    return Result(
        status="solved",
        moves=moves,
        expanded=better.expanded,
        generated=gains[0],
        seconds=time.monotonic() - started,
        metric=metric,
        cost=figures.get(metric, len(moves)),
        extra={"shortened_from": given},
    )
