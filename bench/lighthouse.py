"""Lighthouse's four scores (mobile) on every kind of page, as a markdown table.

    .venv/bin/python bench/lighthouse.py [--lighthouse PATH] [--pages home,daily,...]

Starts its own gunicorn (as `make run` does) on a free loopback port with a temporary
instance folder, visits /daily once so that its levels are made, then runs Lighthouse on each
page with the system Chromium (/usr/bin/chromium). Lighthouse is a Node program, no dependency
of the app: install it once beside this file with

    npm install --prefix bench/.tools lighthouse@13.5.0

or name another with --lighthouse. Each page's audits under 0.9 are listed under the table.
Lighthouse audits no page answered 404, so the error page goes through a loopback proxy that
changes only its status.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import serving  # noqa: E402 - the same server the tests start
from tests.test_browser_axe import PAGES  # noqa: E402 - the pages axe checks in the suite

HERE = Path(__file__).resolve().parent
TOOL = HERE / ".tools" / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


#: Lighthouse audits no page answered with an error status: the error page is audited through
#: a loopback proxy that passes every answer on as it is, but for its status, 200.
AS_200 = {"error page"}


def proxy_as_200(origin: str, paths: set[str]) -> http.server.ThreadingHTTPServer:
    """A loopback proxy to ``origin`` that passes every answer on as it is, but for the
    status of ``paths``' answers, 200; it serves in a thread of its own until shut down."""

    class Relay(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            try:
                answer = urllib.request.urlopen(origin + self.path, timeout=30)
            except urllib.error.HTTPError as error:
                answer = error
            body = answer.read()
            self.send_response(200 if self.path in paths else answer.status)
            for name, value in answer.headers.items():
                if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def audit(tool: Path, url: str, out: Path) -> dict:
    subprocess.run(
        [
            str(tool),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            "--chrome-flags=--headless=new --no-sandbox",
        ],
        env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"},
        check=False,  # a page it cannot audit (an error page's 404) is said in the report
        timeout=240,
        stdout=subprocess.DEVNULL,
    )
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lighthouse", type=Path, default=TOOL)
    parser.add_argument("--pages", default=",".join(PAGES), help="which of: " + ", ".join(PAGES))
    args = parser.parse_args()
    if not args.lighthouse.exists():
        sys.exit(f"No Lighthouse at {args.lighthouse}: see this script's docstring.")
    chosen = [name.strip() for name in args.pages.split(",")]
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as folder, serving(Path(folder)) as server:
        urllib.request.urlopen(server.url + "/daily", timeout=120).close()
        relay = proxy_as_200(server.url, {PAGES[name] for name in AS_200})
        relayed = f"http://127.0.0.1:{relay.server_address[1]}"
        for name in chosen:
            origin = relayed if name in AS_200 else server.url
            report = audit(args.lighthouse, origin + PAGES[name], Path(folder) / "lh.json")
            if report.get("runtimeError"):
                rows.append(f"| {name} | " + " | ".join("–" * len(CATEGORIES)) + " |")
                notes.append(f"- {name}: not audited: {report['runtimeError']['message'][:160]}")
                continue
            scores = [round(100 * report["categories"][c]["score"]) for c in CATEGORIES]
            rows.append(f"| {name} | " + " | ".join(map(str, scores)) + " |")
            for audit_id, found in report["audits"].items():
                if found.get("score") is not None and found["score"] < 0.9:
                    shown = found.get("displayValue", "")
                    notes.append(f"- {name}: {audit_id} {found['score']} {shown}")
        relay.shutdown()
    print("| page | " + " | ".join(CATEGORIES) + " |")
    print("|---|" + "---:|" * len(CATEGORIES))
    print("\n".join(rows))
    if notes:
        print("\nAudits under 0.9:\n" + "\n".join(notes))


if __name__ == "__main__":
    main()
