"""The store on both engines, SQLite and a real PostgreSQL server: games, results, expiry,
pasted levels, several writers, durability, and the app when the database is down."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

import pytest

from tests.conftest import ROOT, Player, Server, csrf_of, free_port, wait_until
from tests.postgres import PostgresServer
from webapp import create_app
from webapp.storage.store import (
    PostgresConnections,
    PostgresStore,
    Recent,
    SavedGame,
    StaleGame,
    Store,
    StoreUnavailable,
    connect,
)
from webapp.web.database import start_expiry
from webapp.web.errors import UNREACHABLE

KEY = ("sokoban", "microban/1")
LATER = time.time() + 200 * 86400


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = PostgresServer()
    server.start()
    yield server
    server.stop()
    server.remove()


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> str:
    """The server's URL, on empty tables."""
    store = PostgresStore(PostgresConnections(postgres.url, size=1))
    store.query("SELECT 1")  # the first connection creates the schema
    store.run("TRUNCATE games, results, assisted, levels, titles, authored")
    store.connections.close()
    return postgres.url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path) -> str:
    """Where the store lives: a SQLite file, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "db.sqlite3")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def open_store(database: str) -> Iterator[Callable[[], Store]]:
    """Opens another store on the same database, as another server process would."""
    opened: list[Store] = []

    def open_one() -> Store:
        if database.startswith("postgresql://"):
            store: Store = PostgresStore(PostgresConnections(database))
        else:
            store = Store(connect(database))
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        if isinstance(store, PostgresStore):
            store.connections.close()
        else:
            store.conn.close()


@pytest.fixture
def store(open_store: Callable[[], Store]) -> Store:
    return open_store()


def test_a_saved_game_loads_back_for_its_player_and_level_only(store, open_store):
    assert store.load_game("p", *KEY) is None
    store.save_game("p", *KEY, SavedGame(["r", "R", "!"], 3))
    other = open_store()
    loaded = other.load_game("p", *KEY)
    assert (loaded.history, loaded.cursor) == (["r", "R", "!"], 3)
    assert other.load_game("q", *KEY) is None
    assert other.load_game("p", "sokoban", "microban/2") is None
    assert other.load_game("p", "vexed", "microban/1") is None
    store.save_game("p", *KEY, SavedGame(["d"], 1))  # a new history replaces the old one
    assert other.load_game("p", *KEY) == SavedGame(["d"], 1)


def test_a_save_checked_against_a_game_that_changed_meanwhile_is_refused(store, open_store):
    # Two tabs (or two web processes) load the same game; the first saves a move; the second's
    # save, checked against what it loaded, is refused and overwrites nothing.
    store.save_game("p", *KEY, SavedGame(["r"], 1))
    tab_a, tab_b = store.load_game("p", *KEY), open_store().load_game("p", *KEY)
    store.save_game("p", *KEY, SavedGame(["r", "d"], 2), expected=tab_a)
    with pytest.raises(StaleGame):
        store.save_game("p", *KEY, SavedGame(["r", "u"], 2), expected=tab_b)
    assert store.load_game("p", *KEY) == SavedGame(["r", "d"], 2)
    # A first save checked against "nothing stored" is refused once a game is there, even
    # with its win: neither the game nor the result is written.
    with pytest.raises(StaleGame):
        store.save_game("q", *KEY, SavedGame(["l"], 1))
        open_store().save_game("q", *KEY, SavedGame(["R"], 1), {"moves": 1}, expected=None)
    assert store.load_game("q", *KEY) == SavedGame(["l"], 1)
    assert store.best("q", *KEY) is None


def test_two_apps_on_one_database_never_overwrite_each_others_moves(
    tmp_path, database, monkeypatch
):
    """Two web processes (here two apps, each with its own caches) serve one player's two
    tabs: a move saved through one while the other works on its own is never lost, and the
    other's save is refused (409, the page reloads), on SQLite and PostgreSQL alike."""
    settings = {"DATABASE_URL": database} if database.startswith("postgresql") else {}
    apps = [
        create_app(
            {
                "TESTING": True,
                "INSTANCE_PATH": str(tmp_path / name),
                "DATABASE": database if not settings else str(tmp_path / "unused.sqlite3"),
                "SECRET_KEY": "one key for both",
                **settings,
            }
        )
        for name in ("one", "two")
    ]
    first, second = (app.test_client() for app in apps)
    Player(first, "/sokoban/first-steps/2")  # tab A: its move comes from another process below
    second.set_cookie("puzzlelab", first.get_cookie("puzzlelab").value)
    tab_b = Player(second, "/sokoban/first-steps/2")
    with first.session_transaction() as session:
        player = session["player"]
    if settings:
        elsewhere: Store = PostgresStore(PostgresConnections(database, size=1))
    else:
        elsewhere = Store(connect(database))  # no cache: what the database holds
    save = Store.save_game

    def meanwhile(store: Store, *args, **kwargs) -> None:
        # Tab A's move lands through the other process while tab B's is being worked on.
        monkeypatch.setattr(Store, "save_game", save)
        elsewhere.save_game(player, "sokoban", "first-steps/2", SavedGame(["d"], 1))
        save(store, *args, **kwargs)

    monkeypatch.setattr(Store, "save_game", meanwhile)
    answer = tab_b.act("move", moves="r")
    assert answer.status_code == 409 and answer.headers["HX-Refresh"] == "true"
    assert '<b id="count-moves">1</b>' in second.get("/sokoban/first-steps/2").text
    answer = tab_b.act("move", moves="r")  # played again from tab A's position
    assert answer.status_code == 200 and '<b id="count-moves">2</b>' in answer.text
    assert elsewhere.load_game(player, "sokoban", "first-steps/2").history == ["d", "R"]


def test_the_undo_cursor_is_kept_and_started_counts_only_games_with_moves(store, open_store):
    store.save_game("p", *KEY, SavedGame(["r", "d", "l"], 1))  # two moves undone
    store.save_game("p", "sokoban", "microban/2", SavedGame(["u"], 0))  # all undone
    store.save_game("p", "sokoban", "microban/3", SavedGame(["u"], 1))
    store.save_game("q", "sokoban", "microban/4", SavedGame(["u"], 1))
    store.save_game("p", "vexed", "classic-levels/1", SavedGame(["3l"], 1))
    assert open_store().load_game("p", *KEY) == SavedGame(["r", "d", "l"], 1)
    assert open_store().started("p", "sokoban") == {"microban/1", "microban/3"}
    assert store.started("nobody", "sokoban") == set()


def test_a_win_keeps_the_smallest_value_of_each_counter(store, open_store):
    assert store.best("p", *KEY) is None
    store.record_win("p", *KEY, {"moves": 7, "pushes": 1})
    store.record_win("p", *KEY, {"moves": 5, "pushes": 2})
    store.record_win("p", *KEY, {"moves": 6, "pushes": 3})
    assert open_store().best("p", *KEY) == {"moves": 5, "pushes": 1}
    assert open_store().best("q", *KEY) is None


def test_a_game_saved_with_its_win_keeps_both_or_neither(store, open_store, monkeypatch):
    store.save_game("p", *KEY, SavedGame(["r"], 1), win={"moves": 1, "pushes": 1})
    other = open_store()
    assert other.load_game("p", *KEY) == SavedGame(["r"], 1)
    assert other.best("p", *KEY) == {"moves": 1, "pushes": 1}

    def failing(*args: object) -> None:
        raise RuntimeError("the win could not be written")

    monkeypatch.setattr(store, "_merge_win", failing)
    with pytest.raises(RuntimeError):
        store.save_game("q", *KEY, SavedGame(["r", "l", "r"], 3), win={"moves": 3})
    assert other.load_game("q", *KEY) is None  # the game went with its win
    store.save_game("q", *KEY, SavedGame(["r", "l"], 2))  # and the store carries on
    assert other.load_game("q", *KEY) == SavedGame(["r", "l"], 2)


def test_an_assisted_win_marks_the_level_solved_with_help_and_never_sets_a_best(store, open_store):
    store.save_game(
        "p1", "sokoban", "a/1", SavedGame(["*", "r"], 2), win={"moves": 1}, assisted=True
    )
    again = open_store()
    assert again.best("p1", "sokoban", "a/1") is None
    assert again.assisted("p1", "sokoban") == {"a/1"} and again.solved("p1", "sokoban") == set()
    # The player's own win afterwards is their best, and the level no longer counts as helped.
    store.save_game("p1", "sokoban", "a/1", SavedGame(["r", "l", "r"], 3), win={"moves": 3})
    again = open_store()
    assert again.best("p1", "sokoban", "a/1") == {"moves": 3}
    assert again.assisted("p1", "sokoban") == set() and again.solved("p1", "sokoban") == {"a/1"}
    assert again.assisted("p2", "sokoban") == set()


def test_recent_keeps_the_win_saved_with_a_game(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    store = Store(connect(path), Recent())
    assert store.best("p", *KEY) is None  # now kept as "not solved"
    store.save_game("p", *KEY, SavedGame(["r"], 1), win={"moves": 1})
    assert store.best("p", *KEY) == {"moves": 1} == Store(connect(path)).best("p", *KEY)


def test_recent_keeps_a_players_settings_so_a_page_asks_the_database_nothing(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    conn = connect(path)
    store = Store(conn, Recent())
    asked: list[str] = []
    conn.set_trace_callback(asked.append)
    assert store.preferences("p") == {}
    store.set_preferences("p", {"theme": "dark"})
    asked.clear()
    for _ in range(3):
        assert store.preferences("p") == {"theme": "dark"}
    assert asked == []
    store.preferences("p")["theme"] = "light"  # a caller's change is its own
    assert store.preferences("p") == {"theme": "dark"} == Store(connect(path)).preferences("p")


def test_results_cover_every_level_asked_for_in_chunks(store):
    for number in range(1, 1200, 2):  # more levels than one query's chunk of 500
        store.record_win("p", "sokoban", f"microban/{number}", {"moves": number})
    store.record_win("q", "sokoban", "microban/2", {"moves": 1})
    found = store.results("p", "sokoban", (f"microban/{n}" for n in range(1, 1201)))
    assert len(found) == 600
    assert found["microban/1199"] == {"moves": 1199} and "microban/2" not in found


def test_old_games_and_unused_pasted_levels_expire_and_the_rest_stays(store, open_store):
    store.save_game("old", "sokoban", "custom/aaaaaaaaaaaa", SavedGame(["r"], 1))
    store.save_level("sokoban", "aaaaaaaaaaaa", "#####\n#@$.#\n#####")
    store.save_level("sokoban", "bbbbbbbbbbbb", "#####\n#.$@#\n#####")
    store.save_level("sokoban", "cccccccccccc", "#####\n#@$ .#\n#####")
    store.clock = lambda: LATER
    store.save_game("current", *KEY, SavedGame(["d"], 1))
    # A pasted level a current game uses is kept however old it is.
    store.save_game("current", "sokoban", "custom/cccccccccccc", SavedGame([], 0))
    assert store.expire(180, now=LATER) == (1, 2)
    other = open_store()
    assert other.load_game("old", "sokoban", "custom/aaaaaaaaaaaa") is None
    assert other.load_game("current", *KEY) == SavedGame(["d"], 1)
    assert other.load_level("sokoban", "aaaaaaaaaaaa") is None
    assert other.load_level("sokoban", "bbbbbbbbbbbb") is None
    assert other.load_level("sokoban", "cccccccccccc") is not None
    assert store.expire(180, now=LATER) == (0, 0)


def test_the_sweep_expires_old_games_on_its_own_thread(database, store, open_store):
    store.clock = lambda: time.time() - 200 * 86400
    store.save_game("old", *KEY, SavedGame(["r"], 1))
    store.clock = time.time
    store.save_game("current", *KEY, SavedGame(["d"], 1))
    start_expiry(open_store, 180, shared=database.startswith("postgresql://"))
    assert wait_until(lambda: store.load_game("old", *KEY) is None)
    assert store.load_game("current", *KEY) == SavedGame(["d"], 1)


def test_saving_a_pasted_level_again_keeps_the_first(store, open_store):
    assert store.load_level("sokoban", "aaaaaaaaaaaa") is None
    store.save_level("sokoban", "aaaaaaaaaaaa", "#####\n#@$.#\n#####")
    store.save_level("sokoban", "aaaaaaaaaaaa", "#####\n#@$.#\n#####")
    store.save_level("sokoban", "aaaaaaaaaaaa", "another text")  # an id names one content
    assert open_store().load_level("sokoban", "aaaaaaaaaaaa") == "#####\n#@$.#\n#####"
    assert open_store().load_level("vexed", "aaaaaaaaaaaa") is None


def test_a_players_own_title_for_a_pasted_level_is_theirs_and_swept_with_it(store, open_store):
    store.save_level("sokoban", "aaaaaaaaaaaa", "Title: First\n#####\n#@$.#\n#####")
    store.save_title("p", "sokoban", "aaaaaaaaaaaa", "Mine")
    store.save_title("p", "sokoban", "aaaaaaaaaaaa", "Mine again")
    other = open_store()
    assert other.title("p", "sokoban", "aaaaaaaaaaaa") == "Mine again"
    assert other.title("q", "sokoban", "aaaaaaaaaaaa") is None
    store.expire(0, now=store.clock() + 10)  # the level goes, and its titles with it
    assert other.title("p", "sokoban", "aaaaaaaaaaaa") is None


def test_a_players_own_levels_come_in_one_query_newest_first_with_their_titles(
    store, open_store, monkeypatch
):
    clock = iter(range(100, 200))
    monkeypatch.setattr(store, "clock", lambda: float(next(clock)))
    for level_id, text in (("aaaaaaaaaaaa", "Title: A\n#####"), ("bbbbbbbbbbbb", "#####")):
        store.save_level("sokoban", level_id, text)
        store.save_authored("p", "sokoban", level_id, f"Ann {level_id[0]}")
    store.save_title("p", "sokoban", "bbbbbbbbbbbb", "Mine")
    store.save_title("q", "sokoban", "aaaaaaaaaaaa", "Theirs")  # another player's title
    store.save_authored("p", "sokoban", "cccccccccccc", "Ann c")  # its level is gone
    store.save_authored("q", "sokoban", "aaaaaaaaaaaa", "Bob")
    store.save_authored("p", "vexed", "aaaaaaaaaaaa", "Ann v")
    reader = open_store()
    asked = []
    query = reader.query
    monkeypatch.setattr(reader, "query", lambda *args: asked.append(args) or query(*args))
    assert reader.authored_levels("p", "sokoban", 50) == [
        ("bbbbbbbbbbbb", "Ann b", "#####", "Mine"),
        ("aaaaaaaaaaaa", "Ann a", "Title: A\n#####", None),
    ]
    assert len(asked) == 1
    assert reader.authored_levels("p", "sokoban", 1) == [("bbbbbbbbbbbb", "Ann b", "#####", "Mine")]
    assert reader.authored_levels("r", "sokoban", 50) == []


def test_threads_saving_games_and_wins_together_lose_none(open_store):
    """Two threads, each with its own store as two server processes would have, write
    distinct games and wins on the same level at once."""
    stores = [open_store(), open_store()]
    failures: list[BaseException] = []

    def play(index: int) -> None:
        try:
            for move in range(60):
                level = f"microban/{move % 6 + 1}"
                stores[index].save_game(
                    f"p{index}", "sokoban", level, SavedGame(["r"] * move, move)
                )
                stores[index].record_win("both", *KEY, {"moves": 100 * index + move + 1})
        except BaseException as error:  # reported by the test, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=play, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures
    reader = open_store()
    for index in (0, 1):
        for number in range(1, 7):
            last = max(move for move in range(60) if move % 6 + 1 == number)
            loaded = reader.load_game(f"p{index}", "sokoban", f"microban/{number}")
            assert loaded == SavedGame(["r"] * last, last)
    assert reader.best("both", *KEY) == {"moves": 1}


WRITER = """
import sys, time
from webapp.storage.store import PostgresConnections, PostgresStore, SavedGame, Store, connect
where = sys.argv[1]
store = PostgresStore(PostgresConnections(where)) if "://" in where else Store(connect(where))
store.save_game("p", "sokoban", "microban/1", SavedGame(["d", "l", "u"], 2))
store.record_win("p", "sokoban", "first-steps/1", {"moves": 1, "pushes": 1})
print("saved", flush=True)
time.sleep(60)
"""


def test_a_write_acknowledged_survives_its_process_killed(database, open_store):
    """The writer says "saved" once the store returns, and is killed at once (SIGKILL)."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, database], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout.readline().strip() == "saved"
    finally:
        writer.kill()
        writer.wait(10)
    store = open_store()
    assert store.load_game("p", *KEY) == SavedGame(["d", "l", "u"], 2)
    assert store.best("p", "sokoban", "first-steps/1") == {"moves": 1, "pushes": 1}


def test_postgres_keeps_acknowledged_writes_through_a_crash_and_reconnects(postgres, postgres_url):
    """An immediate stop is a crash (no checkpoint): what was committed comes back from the
    WAL, and a store whose connections the crash broke carries on with new ones."""
    store = PostgresStore(PostgresConnections(postgres_url))
    store.save_game("p", *KEY, SavedGame(["r", "d"], 2))
    postgres.stop("immediate")
    postgres.start()
    assert store.load_game("p", *KEY) == SavedGame(["r", "d"], 2)  # on a new connection
    postgres.stop("immediate")
    try:
        with pytest.raises(StoreUnavailable):
            store.save_game("p", *KEY, SavedGame(["r", "d", "l"], 3))
    finally:
        postgres.start()
    assert store.load_game("p", *KEY) == SavedGame(["r", "d"], 2)
    store.save_game("p", *KEY, SavedGame(["r", "d", "l"], 3))
    assert store.load_game("p", *KEY) == SavedGame(["r", "d", "l"], 3)
    store.connections.close()


def test_no_free_connection_in_time_is_store_unavailable(postgres_url):
    connections = PostgresConnections(postgres_url, size=1, wait=0.2)
    store = PostgresStore(connections)
    with connections.connection():
        with pytest.raises(StoreUnavailable):
            store.load_game("p", *KEY)
    assert store.load_game("p", *KEY) is None
    connections.close()


# -- the app on PostgreSQL ----------------------------------------------------------------------
def postgres_app(tmp_path, url: str, name: str = "instance"):
    return create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path / name),
            "SECRET_KEY": "the same key in every process",
            "DATABASE_URL": url,
        }
    )


def test_an_unreachable_database_is_a_503_page_without_a_stack_trace(tmp_path, caplog):
    app = postgres_app(tmp_path, f"postgresql://puzzlelab@127.0.0.1:{free_port()}/postgres")
    client = app.test_client()
    token = csrf_of(client.get("/").text)  # the home page needs no store
    page = client.get("/sokoban/microban/1")
    assert page.status_code == 503 and page.headers["Retry-After"]
    assert UNREACHABLE in page.text and "<html" in page.text
    move = client.post(
        "/sokoban/microban/1/play",
        data={"action": "move", "moves": "d"},
        headers={"X-CSRF-Token": token, "HX-Request": "true"},
    )
    assert move.status_code == 503 and move.text == UNREACHABLE
    assert move.mimetype == "text/plain"
    assert client.get("/sokoban/microban/").status_code == 503
    assert "Traceback" not in caplog.text and "Traceback" not in page.text


def test_the_app_plays_a_game_to_its_end_on_postgres(tmp_path, postgres_url):
    app = postgres_app(tmp_path, postgres_url)
    me = Player(app.test_client(), "/sokoban/first-steps/2")
    for moves, count in (("d", 1), ("r", 2), ("d", 3)):
        response = me.act("move", moves=moves)
        assert f'<b id="count-moves">{count}</b>' in response.text
    assert '<b id="count-moves">2</b>' in me.act("undo").text
    assert '<b id="count-moves">3</b>' in me.act("redo").text
    assert '<b id="count-moves">3</b>' in me.client.get(me.path).text
    solved = Player(me.client, "/sokoban/first-steps/1").act("move", moves="r")
    assert "your best" in solved.text
    collection = me.client.get("/sokoban/first-steps/").text
    assert "1 of 5 solved" in collection
    assert 'class="started">' in collection  # first-steps/2, begun and not solved


def test_every_process_sees_the_last_move_whichever_served_it(tmp_path, postgres_url):
    """Two apps on one database, as two web processes behind one address: a player's moves
    alternate between them, and each sees the other's last move at once."""
    first = postgres_app(tmp_path, postgres_url, "first").test_client()
    second = postgres_app(tmp_path, postgres_url, "second").test_client()
    me = Player(first, "/sokoban/first-steps/2")
    second.set_cookie("puzzlelab", first.get_cookie("puzzlelab").value)
    servers = [first, second]
    for count, moves in enumerate("drdu", start=1):
        me.client = servers[count % 2]
        me.client.get(me.path)  # a page read by each process before the other's move
        response = me.act("move", moves=moves)
        assert f'<b id="count-moves">{count}</b>' in response.text
    me.client = first
    assert '<b id="count-moves">3</b>' in me.act("undo").text
    assert '<b id="count-moves">3</b>' in second.get(me.path).text


def test_a_move_while_postgres_is_down_is_a_503_and_the_game_is_intact(
    tmp_path, postgres, postgres_url
):
    app = postgres_app(tmp_path, postgres_url)
    me = Player(app.test_client(), "/sokoban/first-steps/2")
    me.act("move", moves="d")
    postgres.stop("immediate")
    try:
        response = me.act("move", moves="r")
        assert response.status_code == 503 and response.text == UNREACHABLE
    finally:
        postgres.start()
    assert '<b id="count-moves">1</b>' in me.client.get(me.path).text
    assert '<b id="count-moves">2</b>' in me.act("move", moves="r").text


def test_a_move_the_server_answered_survives_the_server_killed_on_postgres(tmp_path, postgres_url):
    """gunicorn on PostgreSQL, killed (SIGKILL) right after answering a move, and started again."""
    server = Server(tmp_path / "instance", DATABASE_URL=postgres_url)
    server.start()
    try:
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        level = server.url + "/sokoban/first-steps/2"
        token = csrf_of(browser.open(level).read().decode())
        move = urllib.request.Request(
            level + "/play",
            data=urlencode({"action": "move", "moves": "dr"}).encode(),
            headers={"X-CSRF-Token": token, "HX-Request": "true"},
        )
        assert '<b id="count-moves">2</b>' in browser.open(move).read().decode()
        server.kill()
        server.start()
        assert '<b id="count-moves">2</b>' in browser.open(level).read().decode()
    finally:
        server.stop()


def test_the_database_file_is_its_owners_alone_and_says_what_it_keeps_through_a_crash(tmp_path):
    """Every player's games are in it: owner-only. WAL with synchronous=NORMAL keeps each
    committed move through a killed process (tests/test_socket.py kills one), not through a
    power cut, as docs/SECURITY.md promises."""
    import stat

    from webapp.storage.store import connect

    path = tmp_path / "games.sqlite3"
    conn = connect(str(path))
    conn.execute("INSERT INTO levels (game, id, text, created) VALUES ('x', 'y', 'z', 0)")
    for name in (path, tmp_path / "games.sqlite3-wal", tmp_path / "games.sqlite3-shm"):
        assert stat.S_IMODE(name.stat().st_mode) == 0o600, name
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    conn.close()
