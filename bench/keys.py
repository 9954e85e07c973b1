"""How soon keys pressed at once land in a real browser over a slow network.

    .venv/bin/python bench/keys.py [--latency 0,100] [--bursts 10] [--keys 10]

Starts its own gunicorn as bench/web.py does, and Chromium (/usr/bin/chromium, through
Playwright) on First steps 3. For each added round trip (Chromium's own network emulation),
presses one key and waits for it to land, then presses ``--keys`` keys without waiting
(down and up alternately, both always legal) and waits for them all; times are taken in the
page, from the last key's keydown to the move counter showing every key played. Prints a
markdown table: medians and the slowest over ``--bursts`` bursts. The page sends a burst
pipelined (numbered, four on their way at once, the rest together), so with 100 ms added
ten keys should land in about two round trips, not ten.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from web import LEVEL, serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

#: Installed in the page: the time of every keydown, and a wait for the move counter to show
#: a number, timed by the page's own clock (no polling from outside).
WATCH = """() => {
  window.benchKeys = [];
  document.addEventListener("keydown", () => window.benchKeys.push(performance.now()), true);
}"""
LANDED = """(target) => new Promise((resolve) => {
  const shown = () => {
    const counter = document.getElementById("count-moves");
    return counter && counter.textContent.trim() === String(target);
  };
  if (shown()) { resolve(performance.now()); return; }
  const watcher = new MutationObserver(() => {
    if (shown()) { watcher.disconnect(); resolve(performance.now()); }
  });
  watcher.observe(document.body, {subtree: true, childList: true, characterData: true});
})"""


def emulate(page, latency_ms: int) -> None:
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def landing(page, moves: int, keys: int) -> tuple[int, float]:
    """Press ``keys`` keys at once from ``moves`` moves played: the moves now, and the
    milliseconds from the last keydown to the counter showing them all."""
    page.evaluate("window.benchKeys = []")
    for index in range(keys):
        page.keyboard.press("ArrowDown" if (moves + index) % 2 == 0 else "ArrowUp")
    landed = page.evaluate(LANDED, moves + keys)
    last = page.evaluate("window.benchKeys[window.benchKeys.length - 1]")
    return moves + keys, landed - last


def row(browser, url: str, latency_ms: int, bursts: int, keys: int) -> tuple:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(url + LEVEL)
        page.wait_for_load_state("networkidle")
        page.evaluate(WATCH)
        emulate(page, latency_ms)
        moves, _ = landing(page, 0, 2)  # the first action makes the player; connections open
        one, burst = [], []
        for _ in range(bursts):
            moves, took = landing(page, moves, 1)
            one.append(took)
            moves, took = landing(page, moves, keys)
            burst.append(took)
        return latency_ms, statistics.median(one), statistics.median(burst), max(burst)
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", default="0,100", help="added round trips in ms")
    parser.add_argument("--bursts", type=int, default=10)
    parser.add_argument("--keys", type=int, default=10, help="keys pressed at once")
    args = parser.parse_args()
    if args.keys % 2:
        parser.error("--keys must be even: down and up alternate from the start square")
    from playwright.sync_api import sync_playwright

    rows = []
    with serve() as port, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            for latency in (int(ms) for ms in args.latency.split(",")):
                rows.append(
                    row(browser, f"http://127.0.0.1:{port}", latency, args.bursts, args.keys)
                )
        finally:
            browser.close()
    print(
        f"| added round trip | one key, p50 ms | {args.keys} keys at once, p50 ms "
        f"| {args.keys} keys at once, slowest ms |"
    )
    print("|---:|---:|---:|---:|")
    for latency, one, burst, slowest in rows:
        print(f"| {latency} ms | {one:.0f} | {burst:.0f} | {slowest:.0f} |")


if __name__ == "__main__":
    main()
