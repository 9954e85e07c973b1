"""A game's page for a player with levels of their own from the editor: the store's queries
and the server time per page, for a few counts of levels (the page lists the 50 newest).

    nice python bench/own_levels.py [--pages 30] [--counts 0,10,50,100]

Each count runs in an app of its own on SQLite in a temporary folder, through Flask's test
client (no network, no door): the time is the view's, its queries and its template's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp import create_app  # noqa: E402
from webapp.storage import store as storage  # noqa: E402
from webapp.web.database import get_store  # noqa: E402

PLAYER = "b" * 32


def measure(count: int, pages: int) -> tuple[int, float, float]:
    """Queries per page, and the median and lowest milliseconds per page, for a player with
    ``count`` levels of their own."""
    folder = tempfile.mkdtemp(prefix="own-levels-")
    app = create_app({"TESTING": True, "INSTANCE_PATH": f"{folder}/instance", "BUDGETS": False})
    client = app.test_client()
    with client.session_transaction() as session:
        session["player"] = PLAYER
    with app.app_context():
        store = get_store()
        for n in range(count):
            wall, gap = "#" * (9 + n % 40), " " * (4 + n % 40)
            level_id = f"{n:012x}"
            store.save_level("sokoban", level_id, f"Title: Level {n}\n{wall}\n#@$.{gap}#\n{wall}")
            store.save_authored(PLAYER, "sokoban", level_id, f"Author {n}")
    asked = [0]
    query = storage.Store.query

    def counted(self: storage.Store, *args: object) -> list:
        asked[0] += 1
        return query(self, *args)

    storage.Store.query = counted  # type: ignore[method-assign]
    try:
        client.get("/sokoban/")  # templates compiled, collections read
        times = []
        for _ in range(pages):
            asked[0] = 0
            start = time.perf_counter()
            page = client.get("/sokoban/")
            times.append((time.perf_counter() - start) * 1000)
            assert page.status_code == 200 and page.text.count("by Author") == min(count, 50)
    finally:
        storage.Store.query = query  # type: ignore[method-assign]
    return asked[0], statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--counts", default="0,10,50,100")
    args = parser.parse_args()
    print("| own levels | queries per page | median ms | lowest ms |")
    print("|---:|---:|---:|---:|")
    for count in (int(n) for n in args.counts.split(",")):
        queries, median, lowest = measure(count, args.pages)
        print(f"| {count} | {queries} | {median:.1f} | {lowest:.1f} |")


if __name__ == "__main__":
    main()
