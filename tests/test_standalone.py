"""A clone stands alone: nothing in the project reads files from beside the repository."""

import re

from tests.conftest import ROOT

#: Ways a path reaches beside the repository: "../x", a folder named "shared" ("x" / "shared",
#: "shared/benchmarks"), or the repository's parent ("ROOT.parent", "REPO.parent").
OUTSIDE = re.compile(r"\.\./\w|[\"'/]shared[\"'/]|\b(?:ROOT|REPO)\.parent\b")
CHECKED = ("webapp", "tests", "bench", "templates", "static/js", "static/css", ".ci")


def project_files():
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".js", ".css", ".html", ""}:
                yield path
    yield ROOT / "Makefile"
    yield ROOT / "wsgi.py"


def test_no_file_reads_outside_the_repository():
    offenders = []
    for path in project_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line) and path.name != "test_standalone.py":
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
