"""The score of the last `make mutate`, per module, and its surviving mutants by name.

Reads what mutmut keeps in mutants/ (one .meta file per mutated module). A mutant that made
the tests fail is killed; one that made them run past mutmut's time limit counts as killed
too (the tests noticed: they hung); one with no test calling its function is "no tests",
counted against the score like a survivor.

    .venv/bin/python bench/mutants.py ['webapp.games.solving.*' ...]   # MUTANTS's patterns
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped"}
STATUS |= dict.fromkeys((36, -24, 24, 152, 255), "timeout")


def main(patterns: list[str]) -> int:
    metas = sorted((ROOT / "mutants").rglob("*.py.meta"))
    if not metas:
        print("no mutants/: run `make mutate` first", file=sys.stderr)
        return 2
    survivors: list[str] = []
    print(f"{'module':40} {'mutants':>7} {'killed':>6} {'timeout':>7} {'alive':>5} {'score':>6}")
    for meta in metas:
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        chosen = {
            name: code
            for name, code in codes.items()
            if not patterns or any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
        }
        counted = Counter(
            STATUS.get(code, "not checked" if code is None else "suspicious")
            for code in chosen.values()
        )
        checked = sum(counted.values()) - counted["not checked"] - counted["skipped"]
        if not checked:
            continue
        caught = counted["killed"] + counted["timeout"]
        alive = checked - caught
        module = str(meta.relative_to(ROOT / "mutants")).removesuffix(".meta")
        print(
            f"{module:40} {checked:7} {counted['killed']:6} {counted['timeout']:7} "
            f"{alive:5} {caught / checked:6.1%}"
        )
        survivors += [
            f"{name} ({STATUS.get(code, 'suspicious')})"
            for name, code in chosen.items()
            if code is not None and STATUS.get(code) not in ("killed", "timeout", "skipped")
        ]
    print(f"\n{len(survivors)} not killed:")
    for name in survivors:
        print("  " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
