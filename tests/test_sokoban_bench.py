"""bench/sokoban.py's side-by-side mode, with a stand-in peer: the project never needs YASS."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path

from tests.conftest import ROOT
from webapp.games.sokoban import GAME
from webapp.search import Limits


def _bench(name: str):
    """A script of bench/ as a module."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


BENCH = _bench("sokoban")
RESTARTS = _bench("restarts")

LEVEL = GAME.parse("; tiny\n#####\n#@$.#\n#####\n")[0]

#: What YASS writes beside its input: a header, the board, then the solution over lines.
SOLUTIONS = """YASS 2.153 (64-bit) Solutions

tiny

#####
#@$.#
#####

Solution/Pushes: 1
{moves}

"""


def fake_peer(folder: Path, moves: str, seconds_ms: int = 7) -> Path:
    """A program that answers like YASS: the solutions file and the 'Solved:' line."""
    script = folder / "peer"
    text = SOLUTIONS.format(moves=moves).replace("\n", "\\n")
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "name = sys.argv[1].rsplit('.', 1)[0]\n"
        f"open(name + ', YASS 2.153 (64-bit) Solutions.sok', 'w').write('{text}')\n"
        f"print('Solved: 1  Levels: 1  Time: {seconds_ms} milli seconds')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_peer_solution_joins_the_wrapped_lines_up_to_the_blank_one():
    text = "header\n\nSolution\nulLL\nrrDD\n\nSolution\nxx\n"
    assert BENCH.peer_solution(text) == "ulLLrrDD"
    assert BENCH.peer_solution("no solution here\n") is None


def test_peer_seconds_reads_its_own_report():
    out = "...\nSolved: 1  Levels: 1  Time: 1234 milli seconds\n"
    assert BENCH.peer_seconds(out) == 1.234
    assert BENCH.peer_seconds("nothing") is None


def test_a_peer_solution_counts_only_when_it_replays(tmp_path):
    limits = Limits(seconds=5, nodes=None, memory_mb=256)
    good = BENCH.run_peer(fake_peer(tmp_path, "R"), LEVEL, limits)
    assert good.solved and good.pushes == 1 and good.seconds == 0.007
    bad = BENCH.run_peer(fake_peer(tmp_path, "L"), LEVEL, limits)
    assert bad.status == "error" and "does not replay" in bad.detail
    late = BENCH.run_peer(fake_peer(tmp_path, "R", seconds_ms=9000), LEVEL, limits)
    assert late.status == "timeout"


def test_side_by_side_table_counts_each_side(tmp_path, capsys):
    peer = fake_peer(tmp_path, "R")
    assert BENCH.main(["--set", "microban", "--levels", "1", "--peer", str(peer)]) == 0
    out = capsys.readouterr().out
    # Microban 1 is not the stand-in's level, so its answer does not replay: ours alone.
    assert "| microban | 10 s | 1 | 0 | 1 | 0 | 0 | 1 |" in out
    assert "peer solutions that did not replay: 1" in out


def test_a_schedule_costs_the_runs_before_the_one_that_solves() -> None:
    # XSokoban 62 as measured: only seed 2 solves, 80,109 expansions in; the short runs of
    # seeds 0, 1 and 3 stall where given.
    seed = RESTARTS.Seed
    found = [seed(None, 6_000), seed(None, 6_000), seed(80_109, 20_000), seed(None, 7_000)]
    named = RESTARTS.schedules()
    never = [seed(s.solved, None) for s in found]
    assert RESTARTS.cost(never, named["growing by half from 40 k"]) == "180 k"  # 40 + 60 + 80
    # Run_fast's: the first run goes on to its allowance, the second ends where it stalls,
    # and seed 2's run is a long one: 45 + 6 + 80.
    run_fast = named["Luby x 45 k, short runs after the first end stalled (run_fast)"]
    assert RESTARTS.cost(found, run_fast) == "131 k"
    assert RESTARTS.cost(found, named["Luby x 45 k, every short run ends stalled"]) == "92 k"
    assert RESTARTS.cost(found, named["Luby x 45 k"]) == "170 k"  # 45 + 45 + 80
    assert RESTARTS.cost(found, named["Luby x 45 k, every run ends stalled"]) == "> 39 k"
    # Runs of 20 k, 20 k, 40 k, 20 k: seed 2's run is too short.
    assert RESTARTS.cost(never, named["Luby x 20 k"]) == "> 100 k"
    assert RESTARTS.cost([seed(607, None)], named["Luby x 20 k"]) == "0.6 k"


#: What Festival writes to its -out_file: the level, then the solution on one line.
FESTIVAL_SOLUTION = """Festival 3.1 solution file
===========================
Collection: level.sok

Level 1

#####
#@$.#
#####

Solution
{moves}

Solver: Festival 3.1
Solver time: 00:00:00
"""


def fake_festival(folder: Path, moves: str) -> Path:
    """A program that answers like Festival: the level read from a .sok file given first,
    the solution written to the file named after -out_file (none when ``moves`` is empty)."""
    script = folder / "festival"
    text = FESTIVAL_SOLUTION.format(moves=moves).replace("\n", "\\n")
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv[1:]\n"
        "assert args[0].endswith('.sok') and open(args[0]).read().count('$') == 1\n"
        "assert args[args.index('-cores') + 1] == '1' and '-time' in args\n"
        f"if {moves!r}:\n"
        f"    open(args[args.index('-out_file') + 1], 'w').write('{text}')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_a_festival_peer_is_run_as_festival_and_its_solution_replayed(tmp_path):
    limits = Limits(seconds=5, nodes=None, memory_mb=256)
    good = BENCH.run_peer(fake_festival(tmp_path, "R"), LEVEL, limits, "festival")
    assert good.solved and good.pushes == 1 and good.seconds < 5
    bad = BENCH.run_peer(fake_festival(tmp_path, "L"), LEVEL, limits, "festival")
    assert bad.status == "error" and "does not replay" in bad.detail
    none = BENCH.run_peer(fake_festival(tmp_path, ""), LEVEL, limits, "festival")
    assert not none.solved and none.status == "unsolved"
