"""A solver worker for the scaled mode: ``python -m webapp.jobs.worker [--url redis://...]
[--hints]``.

An RQ worker on the queues of ``webapp.jobs.scaled`` (hints first, then solves; with
``--hints``, hints only: the hint pool, so a hint never waits behind long solves), after
importing the solvers and readying their compiled kernels once, so each solve's work horse
(a fork) starts with them in memory. Run as many as the solver hosts have cores for, and one
with ``--hints``, on any host that reaches Redis. When Redis
goes away the worker waits for it and carries on.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

import redis
from rq import Worker

from webapp.jobs.scaled import HINT_QUEUE, QUEUE, connect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("PUZZLE_LAB_REDIS_URL"))
    parser.add_argument("--name", default=None, help="the worker's name in RQ")
    parser.add_argument("--hints", action="store_true", help="serve the hint pool only")
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url or set PUZZLE_LAB_REDIS_URL")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s worker %(message)s")
    import webapp.games  # noqa: F401 - imported once, before the horses fork
    import webapp.games.solving  # noqa: F401
    import webapp.jobs.warmed  # noqa: F401

    while True:
        try:
            queues = [HINT_QUEUE] if args.hints else [HINT_QUEUE, QUEUE]
            worker = Worker(queues, connection=connect(args.url), name=args.name)
            worker.work(logging_level="WARNING")
            return  # stopped by a signal
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            logging.warning("Redis unreachable (%s); trying again", exc)
            time.sleep(1.0)


if __name__ == "__main__":
    main()
