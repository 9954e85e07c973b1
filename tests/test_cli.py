"""The command line contract of SPEC.md: JSON lines, fields, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import LEVELS, ROOT

FIELDS = {
    "game",
    "level",
    "title",
    "algorithm",
    "status",
    "solution",
    "length",
    "metric",
    "optimal",
    "expanded",
    "generated",
    "seconds",
}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "webapp", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_solve_prints_one_json_line_per_level_with_the_contract_fields():
    done = run(
        "solve",
        "sokoban",
        str(LEVELS / "sokoban" / "microban.xsb"),
        "--level",
        "2",
        "--algorithm",
        "bfs",
        "--time-limit",
        "20",
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.strip().split("\n")
    record = json.loads(line)
    assert FIELDS <= set(record) and "error" not in record
    assert record["game"] == "sokoban" and record["level"] == 2 and record["title"] == "Microban 2"
    assert record["status"] == "solved" and record["metric"] == "pushes" and record["optimal"]
    assert record["length"] == record["pushes"] == sum(c.isupper() for c in record["solution"])
    assert record["moves"] == len(record["solution"])


def test_without_level_every_level_of_the_file_is_solved(tmp_path):
    path = tmp_path / "two.xsb"
    path.write_text("; One\n#####\n#@$.#\n#####\n\n; Two\n######\n#@$ .#\n######\n")
    done = run("solve", "sokoban", str(path), "--algorithm", "moves")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.strip().split("\n")]
    assert [(r["level"], r["title"], r["solution"]) for r in records] == [
        (1, "One", "R"),
        (2, "Two", "RR"),
    ]
    assert all(r["metric"] == "moves" and r["optimal"] for r in records)


def test_an_unsolvable_level_and_a_node_limit_are_reported_not_crashed(tmp_path):
    path = tmp_path / "stuck.xsb"
    path.write_text("######\n#@ $.#\n######\n\n#####\n#$.@#\n#####\n")  # box on a wall
    done = run("solve", "sokoban", str(path), "--algorithm", "bfs")
    records = [json.loads(line) for line in done.stdout.strip().split("\n")]
    assert done.returncode == 0
    assert records[1]["status"] == "unsolvable" and records[1]["solution"] is None
    big = run(
        "solve",
        "sokoban",
        str(LEVELS / "sokoban" / "xsokoban.xsb"),
        "--level",
        "1",
        "--algorithm",
        "bfs",
        "--node-limit",
        "50",
    )
    assert json.loads(big.stdout)["status"] == "node-limit"


def test_unusable_arguments_and_unreadable_files_exit_2():
    assert run("solve", "chess", "x").returncode == 2
    missing = run("solve", "sokoban", "/no/such/file.xsb")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad_level = run("solve", "sokoban", str(LEVELS / "sokoban" / "microban.xsb"), "--level", "999")
    assert bad_level.returncode == 2 and "levels 1 to 155" in bad_level.stderr
    assert (
        run(
            "solve", "sokoban", str(LEVELS / "sokoban" / "microban.xsb"), "--algorithm", "magic"
        ).returncode
        == 2
    )
    assert run("solve", "sokoban").returncode == 2


def test_a_malformed_file_exits_2_with_the_line(tmp_path):
    path = tmp_path / "bad.xsb"
    path.write_text("#####\n#@$x#\n#####\n")
    done = run("solve", "sokoban", str(path))
    assert done.returncode == 2 and "line 2, column 4" in done.stderr


def test_algorithms_lists_each_with_one_line():
    done = run("algorithms", "sokoban")
    assert done.returncode == 0
    lines = done.stdout.strip().split("\n")
    assert [line.split(":")[0].split(" ")[0] for line in lines] == ["bfs", "astar", "fast", "moves"]
    assert "(default)" in done.stdout


def test_warm_readies_every_games_compiled_kernels():
    from webapp import games

    done = run("warm", timeout=600)
    assert done.returncode == 0, done.stderr
    # The games the command finds itself (a test elsewhere in this process may register more).
    built_in = [name for name in games.names() if games.module_of(name).startswith("webapp.games.")]
    assert [line.split(":")[0] for line in done.stderr.splitlines()] == built_in


def test_warm_up_compiles_the_kernels_of_the_games_that_have_them():
    # Each game's warm_up runs the compiled search it readies: the dispatchers are compiled
    # for their argument types afterwards (an empty list before).
    from webapp import games
    from webapp.games.sliding import kernels as sliding
    from webapp.games.sokoban import kernels as sokoban
    from webapp.games.vexed import kernels as vexed

    for name, kernel in (
        ("sokoban", sokoban.search),
        ("sliding", sliding.pdb_ida),
        ("vexed", vexed.astar),
    ):
        games.get(name).warm_up()
        assert kernel.signatures, name


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--time-limit", "nan"], "--time-limit must be a number of seconds"),
        (["--time-limit", "inf"], "--time-limit must be a number of seconds"),
        (["--time-limit", "-1"], "--time-limit must be a number of seconds"),
        (["--memory-limit", "0"], "--memory-limit must be between"),
        (["--node-limit", "0"], "--node-limit must be positive"),
        (["--level", "0"], "--level counts from 1"),
    ],
)
def test_nonsense_limits_are_refused_with_their_name(flags, said, capsys):
    from webapp.ops.cli import main

    assert main(["solve", "sokoban", str(LEVELS / "sokoban" / "microban.xsb"), *flags]) == 2
    assert said in capsys.readouterr().err


def test_an_endless_file_is_refused_without_being_read_whole(capsys, monkeypatch):
    from webapp.ops import cli

    monkeypatch.setattr(cli, "MAX_FILE_BYTES", 1_000_000)
    assert cli.main(["solve", "sokoban", "/dev/zero"]) == 2
    assert "larger than" in capsys.readouterr().err


def test_a_sliding_levels_own_optimum_is_echoed_as_known_optimal(tmp_path):
    """A row of a sliding puzzle file may end with the position's known optimal length."""
    text = tmp_path / "three.txt"
    text.write_text("1 2 3 4 5 6 7 0 8 1\n1 2 3 4 5 6 0 7 8\n")
    done = run("solve", "sliding", str(text), "--time-limit", "20")
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.strip().split("\n"))
    assert first["known_optimal"] == 1 == first["length"]
    assert "known_optimal" not in second and second["length"] == 2
