"""One policy for what a result is measured against and where an unrated level starts
(webapp/core/results.py), without a request."""

from __future__ import annotations

import csv
import re

from tests.conftest import DATA, Player, csrf_of
from webapp.core import catalog, ratings, results
from webapp.core.records import Row
from webapp.games import get
from webapp.games.solving import solve
from webapp.search import Limits

SOKOBAN, SLIDING, VEXED, BLOCKS = (get(name) for name in ("sokoban", "sliding", "vexed", "blocks"))


def test_what_a_result_is_measured_against_best_first():
    fifteen = catalog.collection("sliding", "fifteen").levels[0]
    made = {"optimum": 9, "metric": "moves", "proved": True, "solution": "LLU"}
    # A made level's own optimum first.
    mark = results.benchmark(SLIDING, fifteen, made)
    assert (mark.value, mark.metric, mark.proved, mark.replay) == (9, "moves", True, "LLU")
    # The optimum the level's text gives, proved, where it has one.
    known = SLIDING.parse("size: 3x3\noptimal: 1\n1 2 3\n4 5 6\n7 0 8")[0]
    assert results.benchmark(SLIDING, known) == results.Benchmark(1, "moves", True)
    # A published par, not proved.
    vexed = catalog.collection("vexed", "childrens-pack").levels[0]
    assert results.benchmark(VEXED, vexed) == results.Benchmark(vexed.par, "moves", False)
    # Else the best another player has done; never the player's own.
    microban = catalog.collection("sokoban", "microban").levels[0]
    mine = Row(place=1, name="me", figures={"moves": 30, "pushes": 8}, mine=True)
    theirs = Row(place=2, name="them", figures={"moves": 33, "pushes": 8}, mine=False)
    assert results.benchmark(SOKOBAN, microban, None, [mine]) is None
    assert results.benchmark(SOKOBAN, microban, None, [mine, theirs]) == results.Benchmark(
        33, "moves", False
    )


def test_the_sokoban_estimate_is_a_lower_bound_on_every_measured_solution():
    levels = catalog.collection("sokoban", "microban").levels
    with (DATA / "microban_bfs_moves_measured.csv").open() as rows:
        for row in csv.DictReader(rows):
            level = levels[int(row["level"]) - 1]
            assert 0 < SOKOBAN.estimate(level) <= int(row["pushes_of_this_solution"]), row


def test_unrated_levels_are_placed_by_what_is_known_of_them():
    for game, slug in ((SOKOBAN, "microban"), (SLIDING, "fifteen"), (BLOCKS, "classics")):
        levels = catalog.collection(game.name, slug).levels
        placed = [results.predicted_rating(game, level) for level in levels[:12]]
        assert len(set(placed)) > 3, (game.name, placed)  # not all "about 1500"
    # A longer known solution places a level higher.
    easy = SLIDING.parse("size: 3x3\noptimal: 2\n1 2 3\n4 5 6\n0 7 8")[0]
    hard = SLIDING.parse("size: 3x3\noptimal: 20\n1 2 3\n4 5 6\n0 7 8")[0]
    assert results.predicted_rating(SLIDING, easy) < results.predicted_rating(SLIDING, hard)


def test_a_win_says_each_count_once_and_compares_it_with_the_best(client):
    """Vexed said "14 moves" twice; the sliding puzzle never compared with its optimum."""
    level = catalog.collection("vexed", "childrens-pack").levels[0]
    found = solve(VEXED, level, VEXED.default_for(level), limits=Limits(seconds=20))
    assert found.solved
    won = Player(client, "/vexed/childrens-pack/1").act("move", moves=VEXED.join_moves(found.moves))
    banner = re.search(r'id="solved">(.*?)</div>', won.text, re.S).group(1)
    said = re.sub(r"<[^>]+>", " ", banner)
    assert f"{len(found.moves)} moves" in said or f"{len(found.moves)} move," in said
    assert said.count(" moves") + said.count(" move,") + said.count(" move.") == 1, said
    assert f"{level.par} moves, equal to the best known." in said  # the pack's par

    pasted = client.post(
        "/sliding/new",
        data={
            "csrf_token": csrf_of(client.get("/sliding/").text),
            "text": "size: 3x3\noptimal: 1\n1 2 3\n4 5 6\n7 0 8",
        },
    )
    assert pasted.status_code == 303, pasted.text
    one = Player(client, pasted.headers["Location"]).act("move", moves="L").text
    assert "1 move, the best possible." in one


def test_a_fresh_sites_collection_sorts_by_what_is_known_of_its_levels(client):
    """Nobody has rated anything: sorting still puts the short levels first."""
    page = client.get("/sokoban/microban/?sort=easiest").text
    about = [int(r) for r in re.findall(r'class="rating predicted"[^>]*>about (\d+)<', page)]
    assert len(about) == 155 and about == sorted(about) and about[0] < about[-1]


def test_a_klotski_classic_is_measured_against_its_record_before_anyone_plays():
    """Its record's path moves, proved: not only once another player has solved it."""
    classic = catalog.collection("blocks", "classics").levels[0]
    assert results.benchmark(BLOCKS, classic) == results.Benchmark(81, "path_moves", True)
    assert results.predicted_rating(BLOCKS, classic) == ratings.predicted(BLOCKS, 81)
    # The command line's solve still echoes no known_optimal for it (its output is fixed).
    assert BLOCKS.known_optimum(classic) is None
