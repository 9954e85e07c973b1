"""A level page's first load over a slow link: its requests, its script bytes, and when its
DOM is ready (DOMContentLoaded waits for every deferred script and module), as a table.

    .venv/bin/python bench/first_load.py [--root PATH] [--rtt 150] [--loads 6]

Starts the app as the tests do (from --root: this checkout, or another one to compare, such as
an older commit unpacked with ``git archive``), then loads each page in Chromium with the
browser's cache off and the link slowed through the DevTools protocol (--rtt ms round trip,
1.6 Mbit/s down, 750 kbit/s up: a slow 4G). The first load warms the server and is dropped;
the table gives the median of the rest.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

PAGES = {"sokoban level": "/sokoban/microban/1", "vexed level": "/vexed/childrens-pack/1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--rtt", type=float, default=150.0)
    parser.add_argument("--loads", type=int, default=6)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, serving

    print(
        f"| page | requests | scripts | script KiB | DOM ready, ms (median of {args.loads - 1}) |"
    )
    print("|---|---:|---:|---:|---:|")
    with (
        tempfile.TemporaryDirectory() as folder,
        serving(Path(folder)) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.send(
                "Network.emulateNetworkConditions",
                {
                    "offline": False,
                    "latency": args.rtt,
                    "downloadThroughput": 1_600_000 / 8,
                    "uploadThroughput": 750_000 / 8,
                },
            )
            for name, path in PAGES.items():
                ready: list[float] = []
                for _ in range(args.loads):
                    page.goto(server.url + path)
                    page.wait_for_load_state("load")
                    ready.append(
                        page.evaluate(
                            "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                        )
                    )
                entries = page.evaluate(
                    "performance.getEntriesByType('resource').map("
                    "(e) => [e.initiatorType, e.name, e.encodedBodySize])"
                )
                scripts = [e for e in entries if e[1].split("?")[0].endswith(".js")]
                size = sum(e[2] for e in scripts) / 1024
                print(
                    f"| {name} | {len(entries) + 1} | {len(scripts)} | {size:.1f} "
                    f"| {statistics.median(ready[1:]):.0f} |"
                )
        finally:
            browser.close()


if __name__ == "__main__":
    main()
