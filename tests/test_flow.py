"""Players first: a link never touches a player's game, help never counts as the player's own
best, and every level page says where it stands and where to go next."""

from __future__ import annotations

import re

from tests.conftest import ROOT, Player
from webapp.core.play import ASSIST, Turns
from webapp.search import Limits, Result
from webapp.web.database import get_store

LEVEL = "/sokoban/microban/1"
#: A solution of Microban 1 (33 moves, 8 pushes).
SOLUTION = "dlUrrrdLullddrUluRuulDrddrruLdlUU"


def player_of(client) -> str:
    with client.session_transaction() as session:
        return session["player"]


def moves_shown(html: str) -> int:
    return int(re.search(r'<b id="count-moves">(\d+)</b>', html).group(1))


def five_moves(client) -> Player:
    me = Player(client, LEVEL)
    for move in "rlrlr":
        assert 'class="notice"' not in me.act("move", moves=move).text
    assert moves_shown(client.get(LEVEL).text) == 5
    return me


def test_a_replay_link_is_a_view_that_leaves_the_players_game_as_it_was(client):
    five_moves(client)
    view = client.get(LEVEL + "?moves=dlU")
    assert view.status_code == 200
    assert 'id="replay"' in view.text and "Your own game (5 moves) is kept" in view.text
    # It opens at its start, with Play (issue #33); each position has its address.
    assert moves_shown(view.text) == 0 and 'id="replay-position">0 of 3<' in view.text
    assert 'id="replay-play"' in view.text and 'id="replay-speed"' in view.text
    end = client.get(LEVEL + "?moves=dlU&at=3")
    assert moves_shown(end.text) == 3 and 'id="replay-position">3 of 3<' in end.text
    # Stepping through it is a link per position; the game is still the player's five moves.
    back = client.get(LEVEL + "?moves=dlU&at=1")
    assert moves_shown(back.text) == 1 and 'aria-current="step">1. d<' in back.text
    assert moves_shown(client.get(LEVEL).text) == 5


def test_play_from_here_copies_the_moves_and_undo_brings_the_five_back(client):
    me = five_moves(client)
    adopted = client.post(
        LEVEL + "/play",
        data={"action": "adopt", "moves": "dlU", "at": "2", "csrf_token": me.token},
    )
    assert adopted.status_code == 303 and adopted.headers["Location"] == LEVEL
    assert moves_shown(client.get(LEVEL).text) == 2
    shown = [moves_shown(me.act("undo").text) for _ in range(3)]
    assert shown == [1, 0, 5]  # the copied moves, then the restart before them: the old game


def test_a_full_solution_link_does_not_record_the_level_as_solved(app, client):
    Player(client, LEVEL)
    view = client.get(LEVEL + f"?moves={SOLUTION}&at={len(SOLUTION)}")
    assert view.status_code == 200 and 'id="replay-solved"' in view.text
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "microban/1") is None
    assert "0 of 155 solved." in client.get("/sokoban/microban/").text


def test_a_win_from_a_replay_is_assisted_never_the_players_best(app, client, whole_solutions):
    me = Player(client, LEVEL)
    client.post(
        LEVEL + "/play", data={"action": "adopt", "moves": SOLUTION, "csrf_token": me.token}
    )
    page = client.get(LEVEL).text
    assert 'id="solved"' in page and 'id="assisted"' in page and "counter best" not in page
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.assisted(player_of(client), "sokoban") == {"microban/1"}
    listing = client.get("/sokoban/microban/").text
    assert "0 of 155 solved (and 1 with help)." in listing and 'class="assisted"' in listing
    # Undone past the copied moves and typed again by hand, it is still not the player's own:
    # they were handed the solution (issue #42).
    for _ in range(len(SOLUTION)):
        me.act("undo")
    won = me.act("move", moves=SOLUTION)
    assert 'id="solved"' in won.text and 'id="assisted"' in won.text
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "microban/1") is None


def finished_solve(app, client, moves: list[str], job_id: str = "done1"):
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.web.solvers import get_runner

    request = Request(
        "sokoban", "", Solve("bfs"), Limits(), player_of(client), "sokoban/microban/1"
    )
    job = Job(id=job_id, request=request, state="done")
    job.result = Result(status="solved", moves=moves)
    with app.app_context():
        get_runner().jobs[job.id] = job
    return job


def test_use_this_solution_records_an_assisted_win_that_is_not_the_players_best(app, client):
    me = Player(client, LEVEL)
    job = finished_solve(app, client, list(SOLUTION))
    used = client.post(
        LEVEL + "/solve/use", data={"job": job.id}, headers={"X-CSRF-Token": me.token}
    )
    assert used.status_code == 200 and 'id="solved"' in used.text and 'id="assisted"' in used.text
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.assisted(player_of(client), "sokoban") == {"microban/1"}
        assert store.solved(player_of(client), "sokoban") == set()


def test_every_level_page_links_its_neighbours_and_says_n_of_n(client):
    page = client.get("/sokoban/microban/2").text
    assert '<span id="level-number">2 of 155</span>' in page
    assert 'id="previous-level" rel="prev" href="/sokoban/microban/1"' in page
    assert 'id="next-level" rel="next" href="/sokoban/microban/3"' in page
    first, last = client.get("/sokoban/microban/1").text, client.get("/sokoban/microban/155").text
    assert 'id="previous-level"' not in first and 'id="next-level"' in first
    assert 'id="next-level"' not in last and "155 of 155" in last


def test_after_a_win_the_next_unsolved_level_is_offered(app, client):
    # First steps 1 is one push to the right; 2 is solved already, so next unsolved is 3.
    second = Player(client, "/sokoban/first-steps/2")
    with app.test_request_context():
        get_store().record_win(player_of(client), "sokoban", "first-steps/2", {"moves": 1})
    first = Player(client, "/sokoban/first-steps/1")
    won = first.act("move", moves="r").text
    assert 'id="solved"' in won
    assert 'id="next-unsolved" href="/sokoban/first-steps/3"' in won
    assert second.path != first.path


def test_progress_shows_on_the_home_game_and_collection_pages(client):
    me = Player(client, "/sokoban/first-steps/1")
    me.act("move", moves="r")
    home = client.get("/").text
    assert re.search(r'id="progress-sokoban">1 of \d+ solved', home)
    assert "1 of 5 levels solved" in home  # First steps on the game's card
    assert re.search(r'id="progress">1 of \d+ levels solved', client.get("/sokoban/").text)
    assert "1 of 5 solved." in client.get("/sokoban/first-steps/").text


def test_a_pages_requests_are_taken_in_the_order_it_numbered_them():
    import threading

    turns = Turns(wait=30)
    order: list[tuple[int, bool]] = []
    started = []
    for number in (3, 2):  # sent later, arriving first: they wait for the ones before them
        thread = threading.Thread(target=take, args=(turns, number, order))
        thread.start()
        started.append(thread)
    take(turns, 1, order)
    for thread in started:
        thread.join(30)
    assert order == [(1, True), (2, True), (3, True)]
    take(turns, 2, order)  # a copy arriving after its successors is stale: not played
    assert order[-1] == (2, False)
    lost = Turns(wait=0.05)
    take(lost, 2, order)  # number 1 never came: after the wait, 2 is taken anyway
    assert order[-1] == (2, True)


def take(turns: Turns, number: int, order: list[tuple[int, bool]]) -> None:
    with turns.turn("game", "page", number) as taken:
        order.append((number, taken))


def test_an_answer_names_its_request_and_an_overtaken_one_is_not_played(client, monkeypatch):
    from webapp.web import pages as web

    monkeypatch.setattr(web.TURNS, "wait", 0.05)  # number 2 is held back below
    me = Player(client, "/sokoban/first-steps/3")
    first = me.act("move", moves="d", page="abcd1234", seq="1")
    assert first.headers["X-Play-Seq"] == "1" and moves_shown(first.text) == 1
    both = me.act("move", moves=["u", "d"], page="abcd1234", seq="3")  # two keys in one
    assert both.headers["X-Play-Seq"] == "3" and moves_shown(both.text) == 3
    late = me.act("move", moves="u", page="abcd1234", seq="2")
    assert late.headers["X-Play-Seq"] == "2" and late.headers["X-Play-Dropped"] == "1"
    assert "was not played" in late.text  # the page tells the player, not a silent 204
    assert moves_shown(client.get("/sokoban/first-steps/3").text) == 3
    # Keys sent together: a refused one is skipped quietly, the rest played; too many is a 400.
    wall = me.act("move", moves=["l", "u", "l"], quiet="1")  # walls on the left
    assert 'class="notice"' not in wall.text and moves_shown(wall.text) == 4
    assert me.act("move", moves=["u", "d"] * 501).status_code == 400
    assert moves_shown(client.get("/sokoban/first-steps/3").text) == 4


def test_playback_counts_in_the_figure_the_solver_optimised(app, client):
    from webapp.games.blocks import GAME
    from webapp.games.solving import solve
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.web.solvers import get_runner
    from webapp.web.watch import playback_of

    level = GAME.parse((ROOT / "levels" / "blocks" / "classics.txt").read_text())[0]
    result = solve(GAME, level, "path", limits=Limits(seconds=60))
    assert result.metric == "path_moves" and len(result.moves) == 118  # steps played back
    path = "/blocks/classics/1"
    Player(client, path)
    request = Request("blocks", "", Solve("path"), Limits(), player_of(client), "blocks/classics/1")
    job = Job(id="paths", request=request, state="done", result=result)
    with app.app_context():
        get_runner().jobs[job.id] = job
    page = client.get(path).text
    assert "move 0 of 118" in page and "· 0 of 81 path moves" in page
    # The move list names the piece as the board letters it, with an arrow (issue #33).
    first = GAME.move_label(level, GAME.start(level), result.moves[0])
    assert re.fullmatch(r"[A-Za-z][↑↓←→]", first)
    assert f'title="{result.moves[0]}">1. {first}</button>' in page
    playback_of(job, GAME, level).seek(40)  # the page's playback, as the socket moves it
    reached = GAME.count(level, result.moves[:40])["path_moves"]
    assert f"· {reached} of 81 path moves" in client.get(path).text and 0 < reached < 40


def test_a_solve_too_quick_to_chart_draws_no_lines_and_a_longer_one_has_axes():
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.web.watch import chart

    job = Job(id="c", request=Request("sokoban", "", Solve("bfs"), Limits(), "p", "b"))
    job.history.extend([(0.0, 0, 1), (0.01, 500, 0)])  # the "X": up, and down to nothing
    assert chart(job) == {}
    job.history.clear()
    job.history.extend((t / 10, 1000 * t, 300 * t) for t in range(1, 21))
    drawn = chart(job)
    assert drawn["seconds"] == 2.0 and drawn["states"] == 20_000
    assert drawn["expanded"].endswith("300.0,0.0") and drawn["frontier"].endswith("300.0,56.0")
    assert drawn["start"] == 0.0  # every sample kept: the axis starts at 0 s


def test_a_20_second_searchs_chart_runs_from_0_to_its_end(app):
    """The chart draws the whole search, thinned, never a window of its last seconds: a
    20-second search fed to a job as the solver reports it (every 0.15 s) charts from 0 s
    to 20 s, with points all along."""
    from webapp.jobs.base import HISTORY_POINTS, Job, Request
    from webapp.jobs.work import Solve
    from webapp.search import Progress
    from webapp.web.levels import find_level
    from webapp.web.watch import chart, render_stream

    job = Job(id="c", request=Request("sokoban", "", Solve("bfs"), Limits(), "p", "b"))
    job.state = "running"
    ticks = [round(0.15 * n, 2) for n in range(1, 134)] + [20.0]
    for t in ticks:
        job.feed(Progress(int(1000 * t), int(1500 * t), int(300 * t), 9, t, 1000.0))
    kept = [point[0] for point in job.history]
    assert len(kept) <= HISTORY_POINTS + 1
    assert kept[0] == 0.15 and kept[-1] == 20.0 and kept == sorted(kept)
    # Spread over the whole run: no gap wider than a few report intervals.
    assert max(b - a for a, b in zip(kept, kept[1:], strict=False)) <= 0.15 * 4 + 1e-9
    drawn = chart(job)
    assert drawn["start"] == 0.0 and drawn["seconds"] == 20.0
    xs = [float(point.split(",")[0]) for point in drawn["expanded"].split()]
    assert xs[0] < 3 and xs[-1] == 300.0  # from near the left edge (0.15 s of 20) to the right
    with app.test_request_context("/sokoban/first-steps/1"):
        html = render_stream(find_level("sokoban", "first-steps", "1"), job)
    assert 'id="chart-start">0 s</text>' in html and ">20.0 s</text>" in html


def test_a_thinned_history_keeps_its_first_and_last_points_at_any_length():
    from webapp.jobs.base import Thinned

    for length in (1, 7, 120, 121, 1000, 12345):
        series = Thinned(120)
        series.extend((n,) for n in range(length))
        kept = [point[0] for point in series]
        assert kept[0] == 0 and kept[-1] == length - 1 and len(kept) <= 121
        steps = {b - a for a, b in zip(kept[:-1], kept[1:-1], strict=False)}
        assert len(steps) <= 1  # evenly spaced, but for the last point


def test_a_bad_picture_upload_returns_to_the_puzzle_with_the_message(client):
    import io

    path = "/sliding/p/3x4-12345678a0b9"
    me = Player(client, path)
    assert moves_shown(me.act("move", moves="D").text) == 1
    response = client.post(
        "/sliding/picture",
        content_type="multipart/form-data",
        data={
            "csrf_token": me.token,
            "back": path,
            "picture": (io.BytesIO(b"just some text"), "notes.png"),
        },
    )
    assert response.status_code == 400
    assert "That picture cannot be used: " in response.text and "not a picture" in response.text
    assert 'id="play"' in response.text and moves_shown(response.text) == 1  # the game, as it was
    assert 'name="picture"' in response.text  # the upload form, to try another


def test_klotski_levels_say_their_other_name_and_goal_and_vexed_lessons_teach(client):
    classic = client.get("/blocks/classics/1").text
    assert "<i>Heng Dao Li Ma</i>" in classic
    assert re.search(
        r"<b>Goal:</b> bring piece <b>A</b> \(2×2\) to\s+rows 4–5,\s+columns 2–3", classic
    )
    assert "(the exit at the bottom)" in classic
    lesson = client.get("/vexed/tutorial/1").text
    assert '<p class="intro lesson" id="level-intro"><b>Lesson 1:</b> Slide a block' in lesson
    assert 'id="level-intro"' not in client.get("/vexed/childrens-pack/1").text


def test_a_won_game_stays_won_until_the_player_undoes(client):
    """Moves after a win neither count nor ride in the replay link (issue #33)."""
    me = Player(client, "/sokoban/first-steps/1")
    won = me.act("move", moves="r").text
    assert 'data-moves="1"' in won and 'id="solved"' in won
    after = me.act("move", moves="l").text
    assert 'data-moves="1"' in after and "Undo or restart to play on" in after
    assert 'href="/sokoban/first-steps/1?moves=R"' in after  # the link carries the win only
    undone = me.act("undo").text
    assert 'data-moves="0"' in undone
    assert 'data-moves="1"' in me.act("move", moves="r").text  # playing on after an undo


def test_a_broken_replay_link_names_the_move_and_shows_the_level(client):
    """Not a dead end (issue #33): the level page, saying which move of the link failed."""
    page = client.get("/sokoban/first-steps/3?moves=duduL")
    assert page.status_code == 400
    assert "stops working at move 5 of 5 (L)" in page.text
    assert 'id="play"' in page.text and 'data-moves="0"' in page.text  # the player's game


def stopped_search(app, client, game, path: str, level, algorithm: str, nodes: int):
    """A real search stopped by its node limit, as the page's job: its last progress holds
    the closest position it met (where it keeps one) and the moves there (where it keeps
    them)."""
    from webapp.games.solving import solve
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.web.levels import find_level
    from webapp.web.solvers import get_runner

    reports = []
    result = solve(game, level, algorithm, limits=Limits(nodes=nodes), on_progress=reports.append)
    assert result.status == "node-limit" and reports
    with app.test_request_context(path):
        _, collection, ident = path.strip("/").split("/")
        board = find_level(game.name, collection, ident).board_key
    request = Request(game.name, "", Solve(algorithm), Limits(), player_of(client), board)
    job = Job(id=f"stopped-{game.name}", request=request, state="done", result=result)
    job.progress = reports[-1]
    with app.app_context():
        get_runner().jobs[job.id] = job
    return job


def test_play_from_the_closest_position_keeps_the_level_and_its_records(app, client):
    """A stopped search's closest position becomes the player's game on the same level, as
    assisted moves (a replay link's "Play from here"), never a new shared level."""
    from webapp.games.sokoban import GAME

    path = "/sokoban/xsokoban/1"
    level = GAME.parse((ROOT / "levels" / "sokoban" / "xsokoban.xsb").read_text())[0]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, "astar", 3000)
    assert job.progress.closest is not None
    kept = job.progress.closest_moves
    assert kept and GAME.replay(level, kept) == job.progress.closest
    panel = client.get(path).text
    assert 'id="play-stopped" title="Your game on this level' in panel
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(path)
    page = client.get(path).text
    assert moves_shown(page) == len(kept)
    # The same level's page: its breadcrumb and number, its records; the moves are help.
    assert 'id="records"' in page and 'id="level-number">1 of' in page
    assert '› <a href="/sokoban/xsokoban/">XSokoban</a>' in page
    with app.test_request_context():
        saved = get_store().load_game(player_of(client), "sokoban", "xsokoban/1")
    assert saved is not None and saved.history[0] == ASSIST and saved.history[1:] == kept


def test_vexed_default_search_keeps_the_moves_to_where_it_stopped(app, client):
    """Vexed's compiled search keeps no closest position: the board it was looking at when
    its limit stopped it is shown, and the moves there (rebuilt from its parents as it
    stops) move the player's own game on the same level, as help."""
    from webapp.games.vexed import GAME

    path = "/vexed/impossible-pack/1"
    level = GAME.parse((ROOT / "levels" / "vexed" / "07_impossible_pack.txt").read_text())[0]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, "fast", 3000)
    progress = job.progress
    assert progress.closest is None
    kept = progress.sample_moves
    assert kept and GAME.render_text(level, GAME.replay(level, kept)) == GAME.render_text(
        level, progress.sample
    )
    assert 'id="play-stopped" title="Your game on this level' in client.get(path).text
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(path)
    assert moves_shown(client.get(path).text) == len(kept)
    with app.test_request_context():
        saved = get_store().load_game(player_of(client), "vexed", "impossible-pack/1")
    assert saved is not None and saved.history[0] == ASSIST and saved.history[1:] == kept


def test_sokoban_default_search_keeps_the_moves_to_its_closest_position(app, client):
    """The compiled portfolio keeps the pushes to its closest position (from its parents,
    as the estimate falls) and walks to them as it stops: the player's game on the same
    level moves there, as help."""
    from webapp.games.sokoban import GAME

    path = "/sokoban/xsokoban/29"
    level = GAME.parse((ROOT / "levels" / "sokoban" / "xsokoban.xsb").read_text())[28]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, GAME.default_for(level), 200_000)
    progress = job.progress
    kept = progress.closest_moves
    assert progress.closest is not None and kept
    assert GAME.replay(level, kept).boxes == progress.closest.boxes
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(path)
    assert moves_shown(client.get(path).text) == len(kept)
    with app.test_request_context():
        saved = get_store().load_game(player_of(client), "sokoban", "xsokoban/29")
    assert saved is not None and saved.history[0] == ASSIST and saved.history[1:] == kept


def test_blocks_default_search_keeps_the_moves_to_where_it_stopped(app, client):
    """The breadth-first search of Quo Vadis, stopped by its limit, shows the position it was
    looking at as the moves there leave it, and the player's game on the level moves there."""
    from webapp.games.blocks import GAME

    path = "/blocks/classics/1"
    level = GAME.parse((ROOT / "levels" / "blocks" / "classics.txt").read_text())[0]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, GAME.default_algorithm, 2000)
    progress = job.progress
    kept = progress.sample_moves
    assert kept and GAME.render_text(level, GAME.replay(level, kept)) == GAME.render_text(
        level, progress.sample
    )
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(path)
    with app.test_request_context():
        saved = get_store().load_game(player_of(client), "blocks", "classics/1")
    assert saved is not None and saved.history[0] == ASSIST and saved.history[1:] == kept


def test_a_stopped_search_without_the_moves_says_why_and_makes_no_level(app, client):
    """Where a search kept no moves to its position, the panel says it cannot be played
    from, and the route refuses (400) without making a level or touching the game."""
    from dataclasses import replace

    from webapp.games.sokoban import GAME

    path = "/sokoban/xsokoban/1"
    level = GAME.parse((ROOT / "levels" / "sokoban" / "xsokoban.xsb").read_text())[0]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, "astar", 3000)
    job.progress = replace(job.progress, closest_moves=None)
    panel = client.get(path).text
    assert 'id="play-stopped"' not in panel
    assert 'id="stopped-no-play"' in panel and "did not keep the moves" in panel
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 400 and "did not keep the moves" in answer.text
    assert "Location" not in answer.headers
    assert moves_shown(client.get(path).text) == 0


def test_moves_that_do_not_reach_the_closest_position_are_never_played(app, client):
    """The moves a search hands on with its closest position are replayed by the rules
    first: moves that end elsewhere leave the player's game alone (and make no level)."""
    from dataclasses import replace

    from webapp.games.sokoban import GAME

    path = "/sokoban/xsokoban/1"
    level = GAME.parse((ROOT / "levels" / "sokoban" / "xsokoban.xsb").read_text())[0]
    me = Player(client, path)
    job = stopped_search(app, client, GAME, path, level, "astar", 3000)
    job.progress = replace(job.progress, closest_moves=job.progress.closest_moves[:-1])
    answer = client.post(path + "/solve/stopped", data={"job": job.id, "csrf_token": me.token})
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert moves_shown(client.get(path).text) == 0
