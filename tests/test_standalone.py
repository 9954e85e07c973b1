"""A clone stands alone: no file of the project reaches for a path outside the repository."""

import re

from tests.conftest import ROOT

#: A relative path that climbs (a ".." hop), and the repository root's own parent.
CLIMBS = re.compile(r"\.\./\w|\b(?:ROOT|REPO)\.parent\b")
#: ``Path(__file__).parents[n]``: outside the repository when n is past the file's depth.
PARENTS = re.compile(r"\bparents\[(\d+)\]")
CHECKED = ("webapp", "tests", "bench", "templates", "static/js", "static/css", "static/games")


def project_files():
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".js", ".css", ".html"}:
                yield path
    for name in ("Makefile", "wsgi.py", ".ci/run"):
        yield ROOT / name


def reaches_outside(path, line: str) -> bool:
    if CLIMBS.search(line):
        return True
    depth = len(path.relative_to(ROOT).parts) - 1  # parents[depth] is the repository itself
    return any(int(n) > depth for n in PARENTS.findall(line))


def test_no_file_reads_outside_the_repository():
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in project_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if reaches_outside(path, line)
    ]
    assert offenders == []


def test_the_check_sees_a_path_beside_the_repository():
    # The lines are built here, so this file does not show them to the check above.
    here = ROOT / "tests" / "test_x.py"
    up = "Path(__file__).resolve().parents[%d]"
    assert reaches_outside(here, up % 2 + ' / "data"')
    assert reaches_outside(here, "REPO" + '.parent / "data"')
    assert reaches_outside(here, "open('." + "./data/x')")
    assert not reaches_outside(here, up % 1 + ' / "data"')
    assert not reaches_outside(ROOT / "webapp" / "games" / "x" / "y.py", up % 3)
