"""Records worth something (issue #42), and the record guards mutation found untested (issue
#47): the daily seed only the instance's secret gives, a board whose solution a player was
shown stays assisted, a win faster than a person plays is kept but not ranked, and ratings
moved by first attempts only, by players with a history, and by no address without bound."""

from __future__ import annotations

import datetime
import re

import pytest

from tests.conftest import Player
from webapp.checking import Status, Verdict
from webapp.core import daily, ratings
from webapp.core.records import BURST_MOVES, MOST_CREDIT, MOVE_FLOOR_SECONDS, Pace, paced
from webapp.jobs.work import Checked
from webapp.search import Limits, Result
from webapp.web.database import get_store

LEVEL = "/sokoban/microban/1"
#: A solution of Microban 1 (33 moves, 8 pushes), and a shorter one (the level's optimum is
#: 33 moves too: the detour makes a longer one).
SOLUTION = "dlUrrrdLullddrUluRuulDrddrruLdlUU"
DAY = datetime.date(2026, 11, 26)


def player_of(client) -> str:
    with client.session_transaction() as session:
        return session["player"]


# -- the daily seed ---------------------------------------------------------------------------
def test_the_daily_seed_comes_from_the_secret_not_the_date():
    first = daily.seed("secret one", DAY)
    assert first == daily.seed("secret one", DAY)  # the same all day, for everyone
    assert DAY.isoformat() not in first and not first.startswith("2026")
    assert first != daily.seed("secret two", DAY)  # another instance: another level
    assert first != daily.seed("secret one", DAY + datetime.timedelta(days=1))
    assert first != daily.seed("secret one", DAY, 2)
    assert re.fullmatch(r"[0-9a-f]{20}", first)


def test_the_daily_page_makes_its_level_from_the_secret_seed(app, monkeypatch):
    from webapp.core.catalog import CUSTOM, POSITION, LevelRef
    from webapp.web import making

    seeds: list[str] = []

    def made_ref(game, difficulty, seed, size=""):
        seeds.append(seed)
        kind = POSITION if game.has_position_codes else CUSTOM
        return LevelRef(game.name, kind, custom_id=f"{seed[:12]}")

    monkeypatch.setattr(making, "made_ref", made_ref)
    monkeypatch.setattr(making, "today", lambda: DAY)
    assert app.test_client().get("/daily").status_code == 200
    assert seeds and set(seeds) == {daily.seed(app.config["SECRET_KEY"], DAY)}
    assert DAY.isoformat() not in seeds


# -- the daily level and streak (issue #47) ---------------------------------------------------
def test_a_day_never_gets_a_level_another_day_had_over_many_days():
    known: dict[str, str] = {}
    # A maker that gives the same few levels again: the second attempt of every day repeats
    # the day before's level too.
    levels = iter(["a", "a", "b", "a", "b", "c", "c", "b", "a", "d"])

    def make(_seed: str) -> str:
        return next(levels)

    picked = []
    for offset in range(4):
        day = DAY + datetime.timedelta(days=offset)
        level = daily.pick("s", day, known, make)
        assert level is not None
        known[day.isoformat()] = level
        picked.append(level)
    assert picked == ["a", "b", "c", "d"]
    # A stored day keeps its level, asked again (the address stays the same all day).
    assert daily.pick("s", DAY + datetime.timedelta(days=2), known, make) == "c"
    # A day whose every seed repeats an earlier level gets none.
    assert daily.pick("s", DAY + datetime.timedelta(days=9), known, lambda _s: "a") is None


def test_a_streak_counts_consecutive_days_and_a_gap_ends_it():
    days = {DAY - datetime.timedelta(days=n): f"level-{n}" for n in range(8)}
    del days[DAY - datetime.timedelta(days=5)]  # nobody opened the daily that day
    everything = set(days.values())
    assert daily.streak(DAY, days, everything) == 5  # today back to the gap
    assert daily.streak(DAY, days, everything - {"level-0"}) == 4  # today not solved yet
    assert daily.streak(DAY, days, everything - {"level-0", "level-1"}) == 0
    assert daily.streak(DAY, days, everything - {"level-2"}) == 2
    later = DAY + datetime.timedelta(days=2)  # two days with no puzzle solved since
    assert daily.streak(later, days, everything) == 0
    assert daily.streak(DAY - datetime.timedelta(days=6), days, everything) == 2


def test_the_daily_page_shows_a_streak_of_several_days(app, client, monkeypatch):
    from webapp.web import making

    monkeypatch.setattr(making, "today", lambda: DAY)
    Player(client, "/sokoban/first-steps/1").act("move", moves="l")  # a player now
    me = player_of(client)
    with app.app_context():
        store = get_store()
        for game in ("sokoban", "sliding", "vexed", "blocks"):
            kind = "p" if game == "sliding" else "custom"
            for offset in range(6):
                store.save_daily(game, (DAY - datetime.timedelta(days=offset)).isoformat(),
                                 f"{game[:3]}{offset:09d}")  # fmt: skip
            # Vexed: the last four days solved, then a day not; Sokoban: a gap of a day.
            if game == "vexed":
                for offset in (0, 1, 2, 3, 5):
                    store.record_win(me, game, f"{kind}/vex{offset:09d}", {"moves": 9})
            if game == "sokoban":
                store.query("DELETE FROM daily WHERE game='sokoban' AND day=?",
                            ((DAY - datetime.timedelta(days=2)).isoformat(),))  # fmt: skip
                for offset in (1, 3, 4):
                    store.record_win(me, game, f"{kind}/sok{offset:09d}", {"moves": 9})
    page = client.get("/daily").text
    assert 'id="streak-vexed">Streak: 4 days<' in page
    assert 'id="streak-sokoban">Streak: 1 day<' in page  # yesterday's; the gap ends it


# -- the pace of play -------------------------------------------------------------------------
def test_a_solution_posted_whole_is_faster_than_a_person_plays():
    assert paced(None, 0.0, 30, fresh=True).hasty
    assert not paced(None, 0.0, int(BURST_MOVES), fresh=True).hasty
    # Later in an attempt, the room earned back is bounded: a long wait, then a solution's
    # worth at once, is still a machine's.
    waited = paced(paced(None, 0.0, 1, fresh=True), 3600.0, int(MOST_CREDIT) + 1, fresh=False)
    assert waited.hasty


def test_a_fast_players_keys_never_reach_the_floor():
    # A key held down repeats at most 30 times a second: 200 moves of it.
    pace, now = None, 100.0
    for _ in range(200):
        pace = paced(pace, now, 1, fresh=pace is None)
        now += 1 / 30
    assert not pace.hasty
    # Keys that queued behind a slow answer arrive together after it: twenty at once, after
    # two seconds of nothing (typed through the stall at ten a second).
    assert not paced(pace, now + 2.0, 20, fresh=False).hasty


def test_a_burst_beyond_a_person_marks_the_attempt_until_it_starts_again():
    pace = paced(None, 0.0, 1, fresh=True)
    pace = paced(pace, 0.5, 40, fresh=False)
    assert pace.hasty
    assert paced(pace, 3600.0, 1, fresh=False).hasty  # waiting after it changes nothing
    assert not paced(pace, 3600.0, 1, fresh=True).hasty  # a new attempt starts clean
    # Moves at the floor itself, for long, are a machine's pace.
    pace = Pace(0.0, 0.0)
    for step in range(1, 100):
        pace = paced(pace, step * MOVE_FLOOR_SECONDS / 2, 1, fresh=False)
    assert pace.hasty


def test_a_win_posted_in_one_request_is_kept_but_not_ranked(app, client):
    me = Player(client, LEVEL)
    won = me.act("move", moves=SOLUTION).text
    assert 'id="solved"' in won and 'id="unranked"' in won
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.unranked_best(player_of(client), "sokoban", "microban/1") == {
            "moves": 33,
            "pushes": 8,
        }
        assert store.level_results("sokoban", "microban/1") == []
        assert store.player_rating(player_of(client)) is None  # nor rated
    # The pace is in the database with the game, not only in this process: a restarted
    # server knows the attempt was hasty.
    from webapp.storage.store import Store, connect

    after_restart = Store(connect(app.config["DATABASE"]))
    assert after_restart.pace(player_of(client), "sokoban", "microban/1")[2] is True
    # Undone and redone an hour later, the attempt is still the hasty one.
    with app.test_request_context():
        get_store().set_pace(player_of(client), "sokoban", "microban/1", (0.0, 0.0, True))
    me.act("undo")
    assert 'id="unranked"' in me.act("redo").text
    # A short level played at once is within a person's burst: ranked.
    quick = Player(client, "/sokoban/first-steps/1")
    assert 'id="unranked"' not in quick.act("move", moves="r").text
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "first-steps/1") == {
            "moves": 1,
            "pushes": 1,
        }


# -- a board whose solution the player was shown ----------------------------------------------
def test_a_shorter_solution_watched_then_retyped_is_never_the_players_best(
    app, client, whole_solutions
):
    from webapp.games import get
    from webapp.generating import generate

    made = client.get("/sliding/random?difficulty=easy&seed=4").headers["Location"]
    game = get("sliding")
    level = game.from_code(made.rsplit("/", 1)[1])
    solution = generate(game, "easy", "4").solution
    state = game.start(level)
    first = game.legal_moves(level, state)[0]
    after = game.apply(level, state, first)
    back = next(m for m in game.legal_moves(level, after) if game.apply(level, after, m) == state)
    me = Player(client, made)
    won = me.act("move", moves=first + back + "".join(solution)).text
    better = re.search(r'id="better-solution" href="([^"]+)"', won).group(1)
    assert client.get(better.replace("&amp;", "&")).status_code == 200  # watched
    me.act("restart")
    again = me.act("move", moves="".join(solution)).text  # typed again by hand
    assert 'id="assisted"' in again
    key = made.split("/sliding/", 1)[1]
    with app.test_request_context():
        assert get_store().best(player_of(client), "sliding", key)["moves"] == 14


def test_the_players_own_replay_link_marks_nothing(app, client, whole_solutions):
    me = Player(client, LEVEL)
    me.act("move", moves=SOLUTION)
    assert client.get(f"{LEVEL}?moves={SOLUTION}").status_code == 200  # their own, as good
    me.act("restart")
    assert 'id="assisted"' not in me.act("move", moves=SOLUTION).text


def finished_solve(app, client, moves: list[str], start: list[str] | None = None):
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.web.solvers import get_runner

    board = "sokoban/microban/1"
    request = Request(
        "sokoban", "", Solve("bfs", tuple(start or ())), Limits(), player_of(client), board
    )
    job = Job(id="done1", request=request, state="done")
    job.result = Result(status="solved", moves=moves)
    with app.app_context():
        get_runner().jobs[job.id] = job
    return job


def test_the_solvers_playback_watched_then_retyped_is_assisted(app, client, whole_solutions):
    me = Player(client, LEVEL)
    me.act("move", moves="d")
    finished_solve(app, client, list(SOLUTION))
    assert 'id="playback-moves"' in client.get(LEVEL).text  # the solution on the screen
    me.act("restart")
    won = me.act("move", moves=SOLUTION).text
    assert 'id="solved"' in won and 'id="assisted"' in won
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "microban/1") is None


class AnsweredHints:
    """A job runner whose hints answer at once with a solution (the solver child's part is
    proved in test_runner.py; here, what the page does with the move)."""

    def __init__(self, moves: list[str]):
        self.moves = moves

    def submit(self, request):
        runner = self

        class Handle:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def wait(self, _timeout):
                return Result(status="solved", moves=runner.moves)

        return Handle()

    def forget(self, _handle):
        pass


@pytest.mark.parametrize("source", ["tables", "search"])
def test_a_hints_move_makes_the_board_assisted(app, client, monkeypatch, whole_solutions, source):
    from webapp.games import get
    from webapp.web import live

    game = get("sokoban")
    solution = list("urDldRuRurD")  # First steps 3
    if source == "tables":  # a game that reads its next move from tables, at once
        monkeypatch.setattr(type(game), "quick_hint", lambda self, level, state, t: solution)
    else:  # else a search in a solver child
        monkeypatch.setattr(live, "get_runner", lambda: AnsweredHints(solution))
    me = Player(client, "/sokoban/first-steps/3")
    hint = client.post("/sokoban/first-steps/3/hint", headers={"X-CSRF-Token": me.token})
    assert "Next move" in hint.text, hint.text
    won = me.act("move", moves="".join(solution)).text
    assert 'id="solved"' in won and 'id="assisted"' in won


class AnsweredChecks(AnsweredHints):
    """A job runner whose editor checks answer at once: solvable, with this solution."""

    def latest(self, _owner, _board):
        return None

    def submit(self, request):
        runner = self
        verdict = Verdict(Status.SOLVABLE, optimal=True, length=len(self.moves),
                          expanded=9, seconds=0.01, solution="".join(self.moves))  # fmt: skip

        class Handle:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def wait(self, _timeout):
                return Checked(status="solved", moves=runner.moves, verdict=verdict)

        return Handle()


def test_the_editors_verdict_on_a_copy_makes_the_board_assisted(
    app, client, monkeypatch, whole_solutions
):
    """A level copied into the editor and checked there: its solution was shown, and the
    collection's level is the same board."""
    import json

    from tests.conftest import csrf_of
    from webapp.web import editing

    solution = list("urDldRuRurD")  # First steps 3
    monkeypatch.setattr(editing, "get_runner", lambda: AnsweredChecks(solution))
    me = Player(client, "/sokoban/first-steps/3")
    page = client.get("/sokoban/edit?from=/sokoban/first-steps/3").text
    from webapp.core.levels import find_level
    from webapp.core.players import Asker

    with app.test_request_context():
        found = find_level("sokoban", "first-steps", "3", Asker(get_store(), player_of(client)))
        draft = found.game.editor().draft_of(found.level)
    copy = json.dumps({"rows": draft.rows, "fields": draft.fields})
    headers = {"X-CSRF-Token": csrf_of(page), "HX-Request": "true"}
    checked = client.post("/sokoban/edit/verdict", data={"draft": copy}, headers=headers)
    assert checked.get_json()["solution"] == "".join(solution)
    won = me.act("move", moves="".join(solution)).text
    assert 'id="solved"' in won and 'id="assisted"' in won


def test_use_this_solution_after_moving_is_assisted(app, client, whole_solutions):
    """Issue #47: only the branch where the player had not moved was tested."""
    me = Player(client, LEVEL)
    me.act("move", moves=SOLUTION[0])
    job = finished_solve(app, client, list(SOLUTION[1:]), start=[SOLUTION[0]])
    used = client.post(
        LEVEL + "/solve/use", data={"job": job.id}, headers={"X-CSRF-Token": me.token}
    )
    assert used.status_code == 200 and 'id="solved"' in used.text and 'id="assisted"' in used.text
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.assisted(player_of(client), "sokoban") == {"microban/1"}


# -- ratings ----------------------------------------------------------------------------------
def test_a_level_moves_only_for_a_trusted_player_and_within_the_clients_allowance():
    me, level = ratings.new(), ratings.new()
    mine, its, points = ratings.first_attempt(me, level, True, trusted=False)
    assert mine[0] > me[0] and its is None and points == 0  # their own rating moves alone
    mine, its, points = ratings.first_attempt(me, level, True, trusted=True)
    assert its[0] == level[0] - ratings.CLIENT_LEVEL_POINTS == level[0] - points
    _, its, points = ratings.first_attempt(me, level, True, True, moved_here=80.0)
    assert points == pytest.approx(20.0) and its[0] == pytest.approx(level[0] - 20.0)
    spent = ratings.CLIENT_DAY_POINTS
    assert ratings.first_attempt(me, level, True, True, moved_today=spent)[1] is None
    day = ratings.TRUSTED_SECONDS
    assert ratings.trusted(3, 0.0, day) and not ratings.trusted(2, 0.0, day)
    assert not ratings.trusted(3, 1.0, day) and not ratings.trusted(3, None, day)


def make_trusted(app, client, path: str = "/sokoban/first-steps/5") -> str:
    """A player with a history: three levels solved on their own, two days ago."""
    Player(client, path).act("move", moves="l")
    me = player_of(client)
    with app.app_context():
        store = get_store()
        store.clock = lambda: datetime.datetime.now(datetime.UTC).timestamp() - 2 * 86400
        for number in (2, 3, 4):
            store.record_win(me, "sokoban", f"microban/{number}", {"moves": 99})
    return me


def level_start(app, path: str) -> float:
    """Where a level nobody rated starts (webapp/core/results.py places it)."""
    from webapp.core import results
    from webapp.web.levels import find_level

    with app.test_request_context():
        found = find_level(*path.strip("/").split("/"))
        return results.predicted_rating(found.game, found.level)


@pytest.fixture
def roomy(tmp_path):
    """The app with room for forty players' moves a second from one address."""
    from webapp import create_app

    config = {
        "TESTING": True,
        "INSTANCE_PATH": str(tmp_path / "roomy"),
        "BUDGET_MOVES": "1000 per second",
    }
    return create_app(config)


def test_twenty_fresh_cookies_from_one_address_do_not_move_a_levels_rating(roomy):
    app = roomy
    for _ in range(20):
        fresh = app.test_client()
        assert 'id="solved"' in Player(fresh, "/sokoban/first-steps/1").act("move", moves="r").text
    with app.app_context():
        assert get_store().level_rating("sokoban", "first-steps/1") is None
    # Twenty players with a history behind the same address move it, by the bound at most.
    for _ in range(20):
        trusted = app.test_client()
        make_trusted(app, trusted)
        Player(trusted, "/sokoban/first-steps/4").act("move", moves="u")
    with app.app_context():
        rated = get_store().level_rating("sokoban", "first-steps/4")
    start = level_start(app, "/sokoban/first-steps/4")
    assert rated is not None and start - rated[0] == pytest.approx(ratings.CLIENT_LEVEL_POINTS)


def rating_of(app, player: str, level: str) -> tuple[float | None, float | None, int]:
    with app.app_context():
        store = get_store()
        mine = store.player_rating(player)
        its = store.level_rating("sokoban", level)
    return (mine[0] if mine else None, its[0] if its else None, its[3] if its else 0)


def test_an_assisted_first_attempt_is_a_loss_through_the_web(app, client):
    """Issue #47: counted as a win, no test failed."""
    me = make_trusted(app, client)
    player = Player(client, LEVEL)
    client.post(LEVEL + "/play", data={"action": "adopt", "moves": SOLUTION,
                                       "csrf_token": player.token})  # fmt: skip
    mine, its, plays = rating_of(app, me, "microban/1")
    assert mine is not None and mine < ratings.CENTRE  # a loss for the player
    assert its is not None and plays == 1
    assert its > level_start(app, LEVEL)  # and a win for the level


def test_only_the_first_attempt_moves_the_ratings_through_the_web(app, client):
    """Issue #47: every attempt moving a rating went unnoticed."""
    me = make_trusted(app, client)
    player = Player(client, "/sokoban/first-steps/1")
    assert 'id="solved"' in player.act("move", moves="r").text
    first = rating_of(app, me, "first-steps/1")
    assert first[0] > ratings.CENTRE and first[2] == 1
    player.act("restart")
    assert 'id="solved"' in player.act("move", moves="r").text
    assert rating_of(app, me, "first-steps/1") == first


# -- the store's part, on both engines --------------------------------------------------------
def fairness_on(store) -> None:
    from webapp.storage.store import SavedGame

    store.mark_shown("p1", "sokoban", "board1")
    store.mark_shown("p1", "sokoban", "board1")  # once is enough
    assert store.was_shown("p1", "sokoban", "board1")
    assert not store.was_shown("p2", "sokoban", "board1")
    # A move's pace rides in its save; a hasty win is kept apart, unranked.
    store.save_game("p1", "sokoban", "a/1", SavedGame(["r"], 1), pace=(11.0, 5.0, False))
    assert store.pace("p1", "sokoban", "a/1") == (11.0, 5.0, False)
    store.save_game("p1", "sokoban", "a/1", SavedGame(["r", "l"], 2), win={"moves": 2},
                    hasty=True, pace=(0.0, 6.0, True))  # fmt: skip
    assert store.pace("p1", "sokoban", "a/1") == (0.0, 6.0, True)
    assert store.unranked_best("p1", "sokoban", "a/1") == {"moves": 2}
    assert (
        store.best("p1", "sokoban", "a/1") is None and store.level_results("sokoban", "a/1") == []
    )
    # Rating: what the client moved today is counted, per level and in all.
    seen = []

    def rate(me, it, here, today):
        seen.append((here, today))
        return me, (it[0] - 60.0, it[1], it[2]), 60.0

    start = ratings.new()
    for player, level in (("p1", "a/2"), ("p2", "a/2"), ("p3", "a/3")):
        assert store.rate_attempt(player, "sokoban", level, True, rate, start, start, client="c")
    assert not store.rate_attempt("p1", "sokoban", "a/2", True, rate, start, start, client="c")
    assert seen == [(0.0, 0.0), (60.0, 60.0), (0.0, 120.0)]
    assert store.level_rating("sokoban", "a/2")[0] == pytest.approx(1380.0)
    for number in (4, 5):
        store.record_win("p4", "sokoban", f"a/{number}", {"moves": 1})
    wins, first = store.standing("p4", "sokoban", "a/5")
    assert wins == 1 and first is not None
    # Names: one player a key.
    assert store.set_name("p1", "Ann", "ann") and store.name("p1") == "Ann"
    assert not store.set_name("p2", "ANN", "ann") and store.name("p2") == ""
    assert store.set_name("p1", "Bea", "bea") and store.set_name("p2", "Ann", "ann")


def test_the_records_guards_in_the_store_on_sqlite(tmp_path):
    from webapp.storage.store import Store, connect

    fairness_on(Store(connect(str(tmp_path / "db.sqlite3"))))


def test_the_records_guards_in_the_store_on_postgresql(postgres_url):
    from webapp.storage.store import PostgresConnections, PostgresStore

    fairness_on(PostgresStore(PostgresConnections(postgres_url, size=2)))


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
