"""The editor's server side: drafts read back by each game's own rules, errors named by
their square, bad drafts refused with a clear message, saving at a paste's address, and a
newer check cancelling the one still running."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests.conftest import csrf_of
from tests.tinygame import GAME as HOP
from webapp import create_app, games
from webapp.core import catalog
from webapp.games.base import Draft
from webapp.games.solving import check_solution, solve
from webapp.web.solvers import get_runner

GAMES = [games.get(name) for name in ("sokoban", "sliding", "vexed", "blocks")] + [HOP]


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_shipped_level_comes_back_unchanged_from_a_draft(game):
    collections = catalog.collections(game.name) if game is not HOP else ()
    levels = [level for found in collections for level in found.levels[:40]]
    levels = levels or HOP.parse("Trial|@..#.G\n.G..@")
    for level in levels:
        draft = game.editor().draft_of(level)
        back = game.parse(game.editor().text(draft).text)[0]
        assert game.board_text(back) == game.board_text(level)
        assert game.level_title(back) == game.level_title(level)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_game_offers_its_palette_and_a_blank_board_of_its_own(game):
    editor = game.editor()
    tools = editor.tools()
    assert tools and len({tool.key for tool in tools}) == len(tools)
    rows, cols = editor.size
    blank = editor.blank(rows, cols)
    assert len(blank.rows) == rows and {len(row) for row in blank.rows} == {cols}
    looks = editor.looks(blank)
    painted = {value for tool in tools for value in tool.paints.values()}
    assert {cell for row in blank.rows for cell in row} | painted <= set(looks)


def editor(client, game: str = "sokoban") -> dict[str, str]:
    token = csrf_of(client.get(f"/{game}/edit").text)
    return {"X-CSRF-Token": token, "HX-Request": "true"}  # as the page's script sends them


def look(client, headers, rows: list[str], game: str = "sokoban", **fields: str):
    draft = {"rows": [list(row) for row in rows], "fields": fields}
    return client.post(f"/{game}/edit/look", data={"draft": json.dumps(draft)}, headers=headers)


def test_errors_name_their_square(client):
    headers = editor(client)
    two = look(client, headers, ["#######", "#@ $.@#", "#######"]).get_json()
    assert two["errors"] == [
        {"message": "a second player: a level has exactly one player", "square": [1, 5]}
    ]
    open_side = look(client, headers, ["#######", "#@ $.  ", "#######"]).get_json()
    assert "walk off" in open_side["errors"][0]["message"]
    assert open_side["errors"][0]["square"] == [1, 6]
    # What concerns the whole level names no square.
    none = look(client, headers, ["#####", "#   #", "#####"]).get_json()
    assert none["errors"][0]["square"] is None and "no player" in none["errors"][0]["message"]
    good = look(client, headers, ["#######", "#@ $ .#", "#######"]).get_json()
    assert good["ok"] and good["errors"] == []
    assert [1, 1] in good["dead"] and [1, 3] not in good["dead"]

    blocks = editor(client, "blocks")
    shape = look(client, blocks, ["AB.", "BB.", "..."], "blocks", goal_piece="A", goal_row="3",
                 goal_col="3").get_json()  # fmt: skip
    assert "not a filled rectangle" in shape["errors"][0]["message"]
    assert shape["errors"][0]["square"] == [0, 0]  # inside B's rectangle, not B


def test_a_rule_that_proves_a_level_impossible_gives_the_verdict_at_once(client):
    headers = editor(client, "vexed")
    lone = look(client, headers, ["######", "#____#", "#a_ab#", "######"], "vexed").get_json()
    assert lone["errors"] == [] and lone["squares"] == [[2, 4]]
    assert "Unsolvable" in lone["verdict"] and "only one block" in lone["verdict"]


def test_the_verdict_on_a_level_its_rules_prove_impossible_says_unsolvable(client):
    """The verdict route reads such a draft as the look does: unsolvable, with its square,
    not "not a level yet" (it once answered "invalid" for every LevelError)."""
    headers = editor(client, "vexed")
    lone = verdict_of(client, headers, ["######", "#____#", "#a_ab#", "######"], "vexed")
    assert lone["status"] == "unsolvable" and lone["squares"] == [[2, 4]]
    assert "Unsolvable</strong>: colour &#39;b&#39; has only one block" in lone["html"]
    assert lone["solution"] == ""
    broken = verdict_of(client, headers, ["######", "#____#", "#____#", "######"], "vexed")
    assert broken["status"] == "invalid" and "no blocks" in broken["html"]


@pytest.mark.parametrize(
    ("draft", "message"),
    [
        ("not json", "not readable"),
        (json.dumps([1, 2]), "not readable"),
        (json.dumps({"rows": []}), "no board"),
        (json.dumps({"rows": [list("#" * 31)] * 3}), "3 to 30 columns"),
        (json.dumps({"rows": [list("####")] * 31}), "3 to 30 rows"),
        (json.dumps({"rows": [list("####"), list("###")] * 2}), "as long as the first"),
        (json.dumps({"rows": [list("#X##")] * 3}), "Row 1, column 2 holds 'X'"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"owner": "x"}}), "'owner'"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"title": "t" * 81}}), "too long"),
        ("x" * 50_000, "too large"),
    ],
)
def test_a_bad_draft_is_refused_naming_what_is_wrong(client, draft, message):
    headers = editor(client)
    for route in ("look", "verdict"):
        answer = client.post(f"/sokoban/edit/{route}", data={"draft": draft}, headers=headers)
        assert answer.status_code == 400
        assert message in answer.text


def test_a_board_size_out_of_range_is_refused(client):
    assert client.get("/sokoban/edit/blank?rows=8&cols=9").get_json()["rows"][0] == ["#"] * 9
    for query in ("rows=2&cols=9", "rows=8&cols=31", "rows=x&cols=5", "rows=8"):
        answer = client.get(f"/sokoban/edit/blank?{query}", headers={"HX-Request": "true"})
        assert answer.status_code == 400 and "from" in answer.text


def test_a_saved_level_has_the_address_a_paste_of_the_same_board_gets(app, client):
    headers = editor(client)
    rows = ["#######", "#@ $ .#", "#######"]
    draft = json.dumps({"rows": [list(row) for row in rows], "fields": {"title": "Mine"}})
    saved = client.post(
        "/sokoban/edit/save",
        data={"draft": draft, "intent": "save", "author": "  Ann   Designer "},
        headers=headers,
    )
    assert saved.status_code == 303
    other = app.test_client()
    token = csrf_of(other.get("/sokoban/").text)
    pasted = other.post(
        "/sokoban/new", data={"text": "\n".join(rows), "csrf_token": token}
    )  # the same board, pasted by another player
    assert pasted.headers["Location"] == saved.headers["Location"]
    page = client.get(saved.headers["Location"]).text
    assert "Mine" in page and "Made by Ann Designer" in page
    assert "Edit a copy" in page
    mine = client.get("/sokoban/").text
    assert 'id="your-levels"' in mine and "Mine" in mine
    assert 'id="your-levels"' not in other.get("/sokoban/").text


def test_edit_a_copy_opens_the_level_and_refuses_other_addresses(client):
    page = client.get("/sliding/edit?from=/sliding/p/3x3-123456708").text
    config = json.loads(page.split('id="editor-config">')[1].split("</script>")[0])
    assert config["copy"]["rows"] == [["1", "2", "3"], ["4", "5", "6"], ["7", "0", "8"]]
    assert client.get("/sokoban/edit?from=/vexed/classic/1").status_code == 400
    assert client.get("/sokoban/edit?from=/sokoban/microban/9999").status_code == 404


def verdict_of(client, headers, rows: list[str], game: str = "sokoban") -> dict:
    draft = json.dumps({"rows": [list(row) for row in rows], "fields": {}})
    answer = client.post(f"/{game}/edit/verdict", data={"draft": draft}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.get_json()


def test_the_verdict_is_the_searchs_own_solvable_only_with_a_solution_that_replays(tmp_path):
    # Ten minutes allowed: every draft here is decided at once, but on a cold start a solver
    # child may take many seconds to load the compiled kernels before it searches.
    app = create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "GAME_PACKAGES": "tests.tinygame",
            "EDIT_TIME_LIMIT": 600,
        }
    )
    client = app.test_client()
    try:
        hop = editor(client, "hop")
        walled = verdict_of(client, hop, ["@.#G"], "hop")
        assert walled["status"] == "unsolvable" and walled["solution"] == ""
        assert "Unsolvable</strong>: every position was searched" in walled["html"]
        solvable = verdict_of(client, hop, ["@..G"], "hop")
        assert solvable["status"] == "solvable" and solvable["solution"] == "rrr"
        assert "Solvable — optimal 3 moves" in solvable["html"]
        assert verdict_of(client, hop, [".@.#G"], "hop")["status"] == "unsolvable"

        sokoban = editor(client)
        rows = ["####", "# .#", "#  ###", "#*@  #", "#    #", "#$ ###", "####"]
        width = max(map(len, rows))
        cornered = verdict_of(client, sokoban, [row.ljust(width) for row in rows])
        assert cornered["status"] == "unsolvable" and cornered["squares"] == [[5, 1]]
        assert cornered["solution"] == ""
        game = games.get("sokoban")
        level = catalog.collection("sokoban", "microban").levels[0]
        draft = game.editor().draft_of(level).rows
        found = verdict_of(client, sokoban, ["".join(row) for row in draft])
        assert found["status"] == "solvable"
        moves = game.split_moves(found["solution"])
        assert check_solution(game, level, game.start(level), moves) is None
    finally:
        with app.app_context():
            get_runner().shutdown()


def test_a_newer_check_cancels_the_one_still_running(tmp_path):
    """No race to win: the older check is one that never ends by itself (XSokoban 50, with
    ten minutes allowed), and the newer one is sent only once the older is seen searching
    (its progress, as the runner keeps it), so a cold start that takes a child long to load
    its compiled kernels only delays the test, never changes its outcome."""
    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance"), "EDIT_TIME_LIMIT": 600}
    )
    client = app.test_client()
    quick = json.dumps({"rows": [list("#######"), list("#@ $ .#"), list("#######")]})
    look = client.post("/sokoban/edit/look", data={"draft": quick}, headers=editor(client))
    assert look.status_code == 200  # the player exists now: the second tab below is them too
    headers = editor(client)
    second_tab = app.test_client()
    name = app.config["SESSION_COOKIE_NAME"]
    second_tab.set_cookie(name, client.get_cookie(name).value)
    hard = catalog.collection("sokoban", "xsokoban").levels[49]  # far beyond a quick search
    slow = json.dumps({"rows": games.get("sokoban").editor().draft_of(hard).rows, "fields": {}})
    answers: list = []
    first = threading.Thread(
        target=lambda: answers.append(
            client.post("/sokoban/edit/verdict", data={"draft": slow}, headers=headers)
        )
    )
    first.start()
    try:
        with app.app_context():
            runner = get_runner()
            searching = lambda r: any(job.progress for job in r.jobs.values())  # noqa: E731
            assert wait_for_runner(runner, searching, 600), "the first check never searched"
            (older,) = runner.jobs.values()
        second = second_tab.post("/sokoban/edit/verdict", data={"draft": quick}, headers=headers)
        assert second.get_json()["status"] == "solvable"
        first.join(600)
        assert answers and answers[0].get_json()["status"] == "stale"
        # Stopped by the newer check, not by its time: the older search was cancelled.
        assert older.done and older.result.status == "cancelled"
    finally:
        with app.app_context():
            get_runner().shutdown()  # ends the older check too, when the test failed early
        first.join(600)


def wait_for_runner(runner, predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate(runner):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_sliding_board_shuffled_to_exactly_the_moves_asked(client):
    headers = editor(client, "sliding")
    draft = json.dumps({"rows": [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "0"]]})
    made = client.post(
        "/sliding/edit/shuffle", data={"draft": draft, "moves": "12"}, headers=headers
    ).get_json()
    game = games.get("sliding")
    level = game.parse(game.editor().text(Draft(made["rows"], {})).text)[0]
    result = solve(game, level, "idastar")
    assert result.solved and len(result.moves) == 12  # optimal: exactly 12 from solved
    too_far = client.post(
        "/sliding/edit/shuffle", data={"draft": draft, "moves": "32"}, headers=headers
    )
    assert too_far.status_code == 400 and "1 to 31" in too_far.text


def test_squares_beyond_the_walls_are_named_so_the_editor_draws_them_as_the_board_does(client):
    headers = editor(client)
    rows = ["   #####", "####   #", "#@ $ . #", "########"]
    shown = look(client, headers, rows).get_json()
    assert [0, 0] in shown["outside"] and [0, 2] in shown["outside"]
    assert [2, 2] not in shown["outside"] and [1, 5] not in shown["outside"]
