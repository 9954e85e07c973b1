"""How well did I play (issue #36): the optimum beside a win, records and leaderboards on both
stores with assisted wins left out, display names, Glicko-2 ratings, and a level for me."""

from __future__ import annotations

import math
import random
import re

import pytest

from tests.conftest import Player
from tests.optima import proved_optimum
from webapp.core import ratings
from webapp.core.records import collection_board, level_records
from webapp.games import get
from webapp.storage.store import PostgresConnections, PostgresStore, Store, connect


def test_glicko2_matches_the_papers_worked_example():
    # Glickman, "Example of the Glicko-2 system": 1500/200/0.06 against three opponents.
    games = [((1400, 30, 0.06), 1.0), ((1550, 100, 0.06), 0.0), ((1700, 300, 0.06), 0.0)]
    rating, rd, volatility = ratings.update((1500, 200, 0.06), games)
    # The paper's figures: r' = 1464.06, RD' = 151.52, sigma' = 0.05999 (it rounds as it goes).
    assert abs(rating - 1464.06) < 0.02
    assert abs(rd - 151.52) < 0.01
    assert abs(volatility - 0.05999) < 1e-5


def test_simulated_players_and_levels_move_the_ratings_the_right_way():
    """Players of known strength take first attempts at levels of known difficulty, solving
    with the logistic chance of their difference; the ratings come to the same order."""
    rng = random.Random(7)
    strengths = {"weak": 1200, "middle": 1500, "strong": 1800}
    hardness = {f"level-{n}": 1000 + 40 * n for n in range(40)}
    players = {name: ratings.new() for name in strengths}
    levels = {name: ratings.new() for name in hardness}
    for level, difficulty in rng.sample(sorted(hardness.items()), len(hardness)):
        for player, strength in strengths.items():
            solved = rng.random() < 1 / (1 + 10 ** ((difficulty - strength) / 400))
            players[player], levels[level] = ratings.attempt(players[player], levels[level], solved)
    assert players["weak"][0] < players["middle"][0] < players["strong"][0]
    easy = [levels[f"level-{n}"][0] for n in range(10)]
    hard = [levels[f"level-{n}"][0] for n in range(30, 40)]
    assert sum(hard) / 10 > sum(easy) / 10 + 100
    before = ratings.new()
    after, _ = ratings.attempt(before, (3000.0, 50.0, 0.06), True)  # one upset: bounded
    assert after[0] - before[0] <= ratings.MOST_CHANGE


def records_on(store: Store) -> None:
    game = get("sokoban")
    store.set_name("p1", "Ann")
    store.record_win("p1", "sokoban", "microban/1", {"moves": 40, "pushes": 10})
    store.record_win("p2", "sokoban", "microban/1", {"moves": 33, "pushes": 12})
    store.record_win("p2", "sokoban", "microban/2", {"moves": 50, "pushes": 20})
    store.save_game(
        "p3", "sokoban", "microban/1", _saved(), win={"moves": 20, "pushes": 8}, assisted=True
    )
    found = level_records(store, game, "microban/1", "p1")
    assert found.solvers == 2  # the assisted win is not a record
    assert found.best == {"moves": 33, "pushes": 10} and found.median["moves"] == 36.5
    assert [(row.name, row.figures["moves"], row.mine) for row in found.board] == [
        ("anonymous", 33, False),
        ("Ann", 40, True),
    ]
    board = collection_board(store, game, "microban", "p2")
    assert [(row.name, row.figures["levels"], row.mine) for row in board] == [
        ("anonymous", 2, True),
        ("Ann", 1, False),
    ]


def _saved():
    from webapp.storage.store import SavedGame

    return SavedGame(["r"], 1)


def test_records_and_leaderboards_on_sqlite(tmp_path):
    records_on(Store(connect(str(tmp_path / "db.sqlite3"))))


def test_records_and_leaderboards_on_postgresql(postgres_url):
    records_on(PostgresStore(PostgresConnections(postgres_url, size=2)))


@pytest.fixture
def postgres_url():
    from tests.postgres import PostgresServer

    server = PostgresServer()
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
        server.remove()


def test_a_win_shows_the_optimum_and_the_difference(client):
    made = client.get("/sliding/random?difficulty=easy&seed=4")
    path = made.headers["Location"]
    game = get("sliding")
    level = game.from_code(path.rsplit("/", 1)[1])
    from webapp.generating import generate

    solution = generate(game, "easy", "4").solution
    # A detour of two moves that take each other back, then the shortest solution.
    state = game.start(level)
    first = game.legal_moves(level, state)[0]
    back = next(
        m
        for m in game.legal_moves(level, game.apply(level, state, first))
        if game.apply(level, game.apply(level, state, first), m) == state
    )
    player = Player(client, path)
    won = player.act("move", moves=first + back + "".join(solution)).text
    assert 'id="against">14 moves; the best possible is 12.<' in won
    assert proved_optimum(game, level, "moves") == 12  # the figure is the optimum, proved
    assert 'id="better-solution"' in won
    again = Player(client, path)
    again.act("restart")
    best = again.act("move", moves="".join(solution)).text
    assert 'id="against">12 moves, the best possible.<' in best


def test_names_are_checked_and_shown_on_the_leaderboard(client):
    player = Player(client, "/sokoban/first-steps/1")
    player.act("move", moves="r")
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/settings").text).group(1)
    for bad in ("<script>", "a", "x" * 25, "two  spaces"):
        refused = client.post("/settings", data={"name": bad, "csrf_token": token})
        assert refused.status_code == 400 and 'id="name-error"' in refused.text
    assert client.post("/settings", data={"name": "Zoë K.", "csrf_token": token}).status_code == 303
    page = client.get("/sokoban/first-steps/1").text
    assert "<td>Zoë K. (you)</td>" in page
    client.post("/settings", data={"name": "", "csrf_token": token})
    assert "<td>anonymous (you)</td>" in client.get("/sokoban/first-steps/1").text


def test_a_level_for_me_is_unsolved_and_near_my_rating(app, client):
    from webapp.core.catalog import LevelRef, collection
    from webapp.core.selector import BAND, level_rating
    from webapp.web.database import get_store

    game = get("vexed")
    Player(client, "/vexed/childrens-pack/1").act("move", moves="")  # a player now
    with app.app_context():
        store = get_store()
        (mine,) = {row["player"] for row in store.query("SELECT player FROM games", ())}

        def strong(me, level, *_moved):
            return (1800.0, 60.0, 0.06), None, 0.0

        store.rate_attempt(mine, "vexed", "x/1", True, strong, ratings.new(), ratings.new())
        store.record_win(mine, "vexed", "childrens-pack/2", {"moves": 3})
        rated = store.level_ratings("vexed")
    for _ in range(5):
        picked = client.get("/vexed/for-me").headers["Location"]
        slug, number = picked.split("?")[0].split("/vexed/", 1)[1].split("/")
        assert f"{slug}/{number}" != "childrens-pack/2"  # solved: never picked
        level = collection("vexed", slug).levels[int(number) - 1]
        rating = level_rating(game, LevelRef("vexed", slug, int(number)), level, rated)
        assert math.fabs(rating - 1800.0) <= BAND
    easier = client.get("/vexed/for-me?shift=easier").headers["Location"]
    slug, number = easier.split("?")[0].split("/vexed/", 1)[1].split("/")
    level = collection("vexed", slug).levels[int(number) - 1]
    rating = level_rating(game, LevelRef("vexed", slug, int(number)), level, rated)
    assert math.fabs(rating - 1600.0) <= BAND


def test_page_settings_are_kept_per_player_and_checked(client):
    """The settings dialog's choices are the player's, in any browser (issue #33)."""
    from tests.conftest import csrf_of

    token = csrf_of(client.get("/sokoban/").text)
    headers = {"X-CSRF-Token": token}
    kept = client.post("/settings/page", json={"theme": "dark", "sound": True}, headers=headers)
    assert kept.status_code == 204
    assert 'data-kept-settings="{&#34;sound&#34;: true, &#34;theme&#34;: &#34;dark&#34;}"' in (
        client.get("/vexed/").text
    )
    for bad in ({"theme": "<script>"}, {"volume": 11}, {"sound": 1}, ["theme"]):
        refused = client.post("/settings/page", json=bad, headers=headers)
        assert refused.status_code == 400, bad


def test_a_collection_is_sorted_by_rating_and_filtered_by_solved(app, client):
    from webapp.core.catalog import LevelRef, collection
    from webapp.core.selector import level_rating
    from webapp.games.solving import solve
    from webapp.web.database import get_store

    pack = collection("vexed", "childrens-pack")
    everything = list(range(1, len(pack.levels) + 1))

    def listed(query: str) -> list[int]:
        page = client.get(f"/vexed/childrens-pack/?{query}")
        assert page.status_code == 200
        return [int(n) for n in re.findall(r'<li data-level="(\d+)"', page.text)]

    assert listed("") == everything
    game = get("vexed")
    with app.app_context():
        rated = get_store().level_ratings("vexed")
    rating = {
        n: level_rating(game, LevelRef("vexed", pack.slug, n), pack.levels[n - 1], rated)
        for n in everything
    }
    easiest = listed("sort=easiest")
    assert sorted(easiest) == everything and easiest != everything
    assert [rating[n] for n in easiest] == sorted(rating.values())
    hardest = listed("sort=hardest")
    assert [rating[n] for n in hardest] == sorted(rating.values(), reverse=True)
    assert "about " in client.get("/vexed/childrens-pack/").text  # predicted: nobody rated them

    solution = solve(game, pack.levels[0], game.default_for(pack.levels[0])).moves
    Player(client, "/vexed/childrens-pack/1").act("move", moves=game.join_moves(solution))
    assert listed("show=solved") == [1]
    assert listed("show=unsolved") == everything[1:]
    refused = client.get("/vexed/childrens-pack/?sort=sideways")
    assert refused.status_code == 400 and "sort" in refused.text
