"""Levels made to order (issue #35): the same seed gives the same level, every band's levels
are solved and show a true optimum, harder bands are harder, and the pages and the command
line that serve them."""

from __future__ import annotations

import datetime
import re
import statistics
import subprocess
import sys

import pytest

from tests.conftest import ROOT, Player
from tests.optima import proved_optimum
from webapp import games
from webapp.games.base import DIFFICULTIES
from webapp.games.solving import check_solution, solve
from webapp.generating import generate
from webapp.search import Limits

GAMES = ("sokoban", "sliding", "vexed", "blocks")
#: The fixed sample: two seeds a band, one for the hardest (seconds a level, and the
#: default solvers' own proofs there take seconds more).
SEEDS = ("1", "2")


def sample(game_name: str, difficulty: str) -> tuple[str, ...]:
    return SEEDS[:1] if difficulty == "expert" else SEEDS


@pytest.mark.parametrize("game_name", GAMES)
def test_the_same_seed_makes_the_same_level_and_another_seed_another(game_name):
    # The boards, not the level texts: a text carries its title, "Random easy <seed>", and
    # would differ between seeds even if the seed made no other difference.
    game = games.get(game_name)
    made = generate(game, "easy", "41")
    first = game.board_text(made.level)
    again = generate(game, "easy", "41")
    assert game.board_text(again.level) == first and again.solution == made.solution
    others = {game.board_text(generate(game, "easy", seed).level) for seed in ("42", "43")}
    assert first not in others and len(others) == 2


@pytest.mark.parametrize("game_name", GAMES)
def test_a_made_levels_title_gives_no_figure_away(game_name):
    """The title names the difficulty and the seed only: "16 fewest pushes" in it was the
    answer, shown before the first move."""
    game = games.get(game_name)
    made = generate(game, "medium", "7")
    assert game.level_title(made.level) == "Random medium 7"


@pytest.mark.parametrize("game_name", GAMES)
def test_every_band_is_solved_its_optimum_is_true_and_harder_bands_are_harder(game_name):
    game = games.get(game_name)
    medians = []
    for difficulty in DIFFICULTIES:
        optima = []
        for seed in sample(game_name, difficulty):
            made = generate(game, difficulty, seed)
            level = game.parse(game.level_text(made.level))[0]  # it parses from its own text
            assert check_solution(game, level, game.start(level), made.solution) is None
            counted = game.count(level, made.solution).get(made.metric, len(made.solution))
            assert counted == made.optimum  # the optimum shown is a replayed solution's length
            found = solve(game, level, limits=Limits(seconds=60, nodes=None))
            assert found.solved, (difficulty, seed, found)
            if made.proved:  # every "proved" optimum, proved again by another search
                assert proved_optimum(game, level, made.metric) == made.optimum
            optima.append(made.optimum)
        medians.append(statistics.median(optima))
    assert medians == sorted(medians) and len(set(medians)) == len(medians), medians


def test_a_random_link_gets_a_seed_and_its_level_a_content_address(client):
    asked = client.get("/blocks/random?difficulty=hard")
    assert asked.status_code == 302
    seeded = asked.headers["Location"]
    assert re.fullmatch(r"/blocks/random\?difficulty=hard&seed=\d+", seeded)
    made = client.get(seeded)
    assert made.status_code == 303 and re.fullmatch(
        r"/blocks/custom/[0-9a-f]{12}", made.headers["Location"]
    )
    assert client.get(seeded).headers["Location"] == made.headers["Location"]  # the same level
    page = client.get(made.headers["Location"]).text
    optimum = int(re.search(r'id="made-optimum">(\d+)<', page).group(1))
    seed = seeded.rsplit("=", 1)[1]
    made = generate(games.get("blocks"), "hard", seed)
    assert optimum == made.optimum == proved_optimum(games.get("blocks"), made.level, made.metric)
    assert 'id="another-one" href="/blocks/random?difficulty=hard"' in page
    assert 'id="harder-one" href="/blocks/random?difficulty=expert"' in page
    assert client.get("/blocks/random?difficulty=impossible&seed=1").status_code == 400
    assert client.get("/blocks/random?difficulty=easy&seed=no/slash").status_code == 400


def test_a_generated_sliding_puzzle_is_its_position_code_and_says_its_optimum(client):
    made = client.get("/sliding/random?difficulty=medium&seed=9")
    assert made.status_code == 303 and made.headers["Location"].startswith("/sliding/p/4x4-")
    page = client.get(made.headers["Location"]).text
    assert 'id="made-optimum">20<' in page and "the fewest possible" in page
    game = games.get("sliding")
    level = game.from_code(made.headers["Location"].rsplit("/", 1)[1])
    assert proved_optimum(game, level, "moves") == 20


def daily_links(page: str) -> list[str]:
    return re.findall(r'id="today-\w+" href="([^"]+)"', page)


def test_the_daily_puzzles_are_the_same_for_everyone_and_new_each_day(app, monkeypatch):
    from webapp.web import making

    monkeypatch.setattr(making, "today", lambda: datetime.date(2026, 11, 26))
    one, two = app.test_client(), app.test_client()
    first = daily_links(one.get("/daily").text)
    assert len(first) == len(GAMES) and daily_links(two.get("/daily").text) == first
    monkeypatch.setattr(making, "today", lambda: datetime.date(2026, 11, 27))
    page = one.get("/daily").text
    second = daily_links(page)
    assert len(second) == len(GAMES) and not set(first) & set(second)
    assert all(link in page for link in first)  # yesterday's are in the archive


def test_the_daily_result_to_share_gives_nothing_of_the_solution_away(
    app, client, monkeypatch, whole_solutions
):
    from webapp.web import making

    monkeypatch.setattr(making, "today", lambda: datetime.date(2026, 11, 26))
    path = next(link for link in daily_links(client.get("/daily").text) if "/vexed/" in link)
    game = games.get("vexed")
    level = game.parse(_level_text(app, path))[0]
    solution = solve(game, level, limits=Limits(seconds=30)).moves
    # The level's page says it is the day's puzzle, leads back to /daily, and keeps how short
    # it can be to itself until it is solved (on /daily too).
    before = client.get(path).text
    assert '<h1 class="level-title">Daily Vexed, 26 November 2026</h1>' in before
    assert 'id="back-to-daily" href="/daily"' in before and 'id="made-optimum"' not in before
    assert "The fewest possible" not in client.get("/daily").text
    won = Player(client, path).act("move", moves=game.join_moves(solution))
    assert 'id="solved"' in won.text or "Solved" in won.text
    page = client.get("/daily").text
    share = re.search(r'id="share-vexed">([^<]+)<', page).group(1)
    assert re.fullmatch(
        r"Puzzle Lab daily Vexed, 26 November 2026: \d+ moves \(the fewest possible \d+\)\. "
        r"Play it: http://localhost/daily",
        share,
    ), share
    assert not any(token in share for token in solution)
    assert 'id="copy-share-vexed"' in page and "The fewest possible" in page
    assert 'id="made-optimum"' in client.get(path).text
    assert 'id="streak-vexed">Streak: 1 day<' in page


def _level_text(app, path: str) -> str:
    from webapp.web.database import get_store

    with app.app_context():
        return get_store().load_level("vexed", path.rsplit("/", 1)[1])


def test_the_command_line_writes_levels_that_solve_reads():
    made = subprocess.run(
        [sys.executable, "-m", "webapp", "generate", "vexed", "--difficulty", "medium",
         "--seed", "5", "--count", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    levels = games.get("vexed").parse(made.stdout)
    assert [level.title for level in levels] == [
        "Random medium 5",
        "Random medium 5-2",
        "Random medium 5-3",
    ]
    assert all(level.par is not None and level.header("difficulty") == "medium" for level in levels)
    refused = subprocess.run(
        [sys.executable, "-m", "webapp", "generate", "vexed", "--difficulty", "impossible"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2 and "--difficulty is one of" in refused.stderr


def test_each_game_page_offers_a_level_of_every_difficulty(client):
    for game_name in GAMES:
        page = client.get(f"/{game_name}/").text
        for difficulty in DIFFICULTIES:
            assert f'href="/{game_name}/random?difficulty={difficulty}"' in page
    assert 'href="/daily"' in client.get("/").text


def test_a_board_size_where_the_game_has_one(client):
    """The sliding puzzle makes its bands on 3x3 and 5x5 boards too; the default size keeps
    the levels its seeds made before sizes were offered."""
    game = games.get("sliding")
    assert game.position_code(generate(game, "easy", "8", "4x4").level) == game.position_code(
        generate(game, "easy", "8").level
    )
    small = client.get("/sliding/random?difficulty=hard&seed=8&size=3x3")
    assert small.status_code == 303 and small.headers["Location"].startswith("/sliding/p/3x3-")
    page = client.get(small.headers["Location"]).text
    assert 'id="made-optimum">22<' in page and "3x3 board" in page
    level = game.from_code(small.headers["Location"].rsplit("/", 1)[1])
    assert proved_optimum(game, level, "moves") == 22
    assert 'href="/sliding/random?difficulty=expert&amp;size=3x3"' in page  # harder, same size
    assert client.get("/sliding/random?difficulty=hard&seed=8&size=9x9").status_code == 400
    assert client.get("/vexed/random?difficulty=hard&seed=8&size=3x3").status_code == 400
    assert 'href="/sliding/random?difficulty=easy&amp;size=5x5"' in client.get("/sliding/").text
