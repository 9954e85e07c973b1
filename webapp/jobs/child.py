"""The solve body, written once for every transport: what runs in a solver process (the
embedded runner's fork-server child, or an RQ worker's work horse).

The process caps its own address space and lowers its priority, rebuilds the level from its
text and does the work the request carries, by its type (``webapp.jobs.work``): a search
from the position a solve's moves reach, the editor's check, a solution shortened, or a
search traced; within the request's limits, reporting progress through ``report`` and
stopping when ``cancelled`` says so.
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

from webapp.games.base import Game
from webapp.jobs.base import Request
from webapp.jobs.work import Check, Checked, Improve, Solve, Trace, Traced, Work
from webapp.search import Limits, Progress, Result, Stop

#: Room for the interpreter and its libraries on top of the search's own memory limit.
MEMORY_HEADROOM_MB = 768
#: How much lower than the web server solver processes run.
SOLVER_NICENESS = 10


#: The most expansions a step-through records: the reader steps through these, then goes on
#: at full speed with an ordinary solve.
STEP_THROUGH = 5_000
#: The most text a trace keeps (positions and moves, as ``trace`` prints them): the result is
#: held in the web process while its page may ask for it, and a large board's expansions run
#: to kilobytes each.
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
    """Do the work ``request`` carries; every failure becomes a result the player can read."""
    from webapp import games

    try:
        if request.game_module:
            games.register(request.game_module)
        game = games.get(request.game)
        if request.tables_dir and os.path.isdir(request.tables_dir):
            game.use_disk_tables(Path(request.tables_dir))
        level = game.parse(request.level_text)[0]
        return run_work(game, level, request.work, request.limits, report, cancelled)
    except MemoryError:
        return Result(status="memory-limit")
    except Exception as exc:  # noqa: BLE001 - told to the player, never raised into the runner
        return Result(status="error", error=f"{type(exc).__name__}: {exc}")


def run_work(
    game: Game,
    level: Any,
    work: Work,
    limits: Limits,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Result:
    """One piece of work on a level, by its type."""
    from webapp.games.solving import solve

    match work:
        case Solve(algorithm=algorithm, moves=moves):
            state = game.replay(level, list(moves))
            return solve(game, level, algorithm, state, limits, report, cancelled)
        case Check():
            return _check(game, level, limits, report, cancelled)
        case Improve():
            return _improve(game, level, work, limits, report)
        case Trace():
            return _trace(game, level, work, limits, report, cancelled)
    raise TypeError(f"no such work: {work!r}")


def _check(
    game: Game,
    level: Any,
    limits: Limits,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Checked:
    """The editor's verdict on a level, as a result: solved when solvable, unsolvable when
    proved so, timeout when undecided; the verdict itself beside the figures."""
    from webapp.checking import Status, check

    verdict = check(
        game,
        level,
        limits.seconds or 5.0,
        node_limit=limits.nodes,
        report=report,
        cancelled=cancelled,
    )
    status = {Status.SOLVABLE: "solved", Status.UNSOLVABLE: "unsolvable"}.get(
        verdict.status, "timeout"
    )
    if verdict.status is Status.UNKNOWN and cancelled():
        status = "cancelled"
    return Checked(
        status=status,
        expanded=verdict.expanded,
        seconds=verdict.seconds,
        optimal=verdict.optimal,
        metric=verdict.metric,
        verdict=verdict,
    )


def _improve(
    game: Game, level: Any, work: Improve, limits: Limits, report: Callable[[Progress], None]
) -> Result:
    """A solution made shorter by the game's optimizer, as a solve's result: its moves, and
    the solution it started from in ``extra``; progress is the length so far."""
    started = time.monotonic()
    metric = work.metric
    solution = list(work.solution)
    given = game.count(level, solution)
    report(Progress(0, 0, 0, 0, 0.0, 0.0, note=f"{given.get(metric, 0)} {metric} to start from"))
    seconds = limits.seconds or 10.0

    gains = [0]  # the optimizer reports each gain

    def gained(length: int, expanded: int) -> None:
        # The panel speaks of the optimizer's work in its own terms: the shorter solutions
        # found ride in ``generated``, the length so far in ``depth``.
        gains[0] += 1
        elapsed = time.monotonic() - started
        rate = expanded / elapsed if elapsed > 0 else 0.0
        note = f"{length} {metric} so far"
        report(Progress(expanded, gains[0], 0, length, elapsed, rate, note=note))

    better = game.improve(level, solution, metric, seconds, gained)
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


def _trace(
    game: Game,
    level: Any,
    work: Trace,
    limits: Limits,
    report: Callable[[Progress], None],
    cancelled: Callable[[], bool],
) -> Traced:
    """A textbook search written out one expansion at a time, at most ``work.steps``: the
    search ``solve`` runs with that algorithm, told to a ``StepWriter``."""
    from webapp.games.solving import StepWriter, solve, traceable

    if work.algorithm not in traceable(game):
        known = ", ".join(traceable(game)) or "none"
        return Traced(
            status="error", error=f"{work.algorithm!r} cannot be traced; traceable: {known}"
        )
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

    writer = StepWriter(game, level, keep, work.steps)
    result = solve(game, level, work.algorithm, None, limits, report, cancelled, tracer=writer)
    try:
        writer.close()
    except Stop:
        pass  # the last expansion is kept: only the search after it is stopped
    fields = {name: getattr(result, name) for name in Result.__dataclass_fields__}
    fields["expanded"] = writer.taken  # exact, where a stopped search's is its last tick's
    return Traced(**fields, steps=steps)
