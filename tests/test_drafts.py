"""Drafts from the editor read, judged and kept, and a player's own levels listed
(webapp/core/drafts.py), without a request."""

from __future__ import annotations

import json

import pytest

from webapp import games
from webapp.core import catalog, drafts, sharing
from webapp.core.catalog import CUSTOM
from webapp.core.errors import NotFound, Refused
from webapp.core.players import Asker
from webapp.games import get
from webapp.storage.store import Store, connect

SOKOBAN = get("sokoban")
EDITOR = SOKOBAN.editor()
ROWS = ["#######", "#@ $ .#", "#######"]


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def shelf(store: Store, player: str = "p") -> sharing.Shelf:
    return sharing.Shelf(Asker(store, player), 2**20, lambda _bytes: True, "spent")


def draft_of(rows: list[str], **fields: str) -> str:
    return json.dumps({"rows": [list(row) for row in rows], "fields": fields})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("not json", "not readable"),
        (json.dumps([1, 2]), "not readable"),
        (json.dumps({"rows": []}), "no board"),
        (json.dumps({"rows": [["#"] * 4, "####"]}), "no board"),
        (json.dumps({"rows": [list("#" * 31)] * 3}), "3 to 30 columns"),
        (json.dumps({"rows": [list("####")] * 31}), "3 to 30 rows"),
        (json.dumps({"rows": [list("####")] * 2}), "3 to 30 rows, not 2"),
        (json.dumps({"rows": [list("####"), list("###")] * 2}), "as long as the first"),
        (json.dumps({"rows": [list("#X##")] * 3}), "Row 1, column 2 holds 'X'"),
        (json.dumps({"rows": [list("####")] * 3, "fields": []}), "settings are not readable"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"owner": "x"}}), "'owner'"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"title": 3}}), "'title'"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"title": "t" * 81}}), "too long"),
        (json.dumps({"rows": [list("####")] * 3, "fields": {"title": "a\u202eb"}}), "title"),
        ("x" * 50_000, "too large"),
    ],
)
def test_a_bad_draft_is_refused_naming_what_is_wrong(raw, message):
    with pytest.raises(Refused) as refused:
        drafts.read_draft(SOKOBAN, EDITOR, raw)
    assert message in refused.value.message


def test_a_good_draft_reads_back_as_the_level_a_paste_of_its_board_gives():
    draft = drafts.read_draft(SOKOBAN, EDITOR, draft_of(ROWS, title="Mine"))
    assert draft.rows == [list(row) for row in ROWS] and draft.fields == {"title": "Mine"}
    level = drafts.level_of(SOKOBAN, EDITOR, draft)
    pasted = SOKOBAN.parse("\n".join(ROWS))[0]
    assert catalog.content_id(SOKOBAN, level) == catalog.content_id(SOKOBAN, pasted)
    assert SOKOBAN.level_title(level) == "Mine"


def test_a_draft_is_judged_by_the_rules_at_once():
    read = drafts.read_draft(SOKOBAN, EDITOR, draft_of(ROWS))
    judged = drafts.structure(SOKOBAN, EDITOR, read)
    assert judged["ok"] and judged["errors"] == [] and judged["dead"] == [[1, 1]]
    # A box without a goal: an error, and the draft cannot be played.
    broken = drafts.read_draft(SOKOBAN, EDITOR, draft_of(["#######", "#@ $  #", "#######"]))
    judged = drafts.structure(SOKOBAN, EDITOR, broken)
    assert not judged["ok"] and "0 goals" in judged["errors"][0]["message"]
    assert "verdict" not in judged
    with pytest.raises(Refused, match="cannot be played yet: 1 box but 0 goals"):
        drafts.playable(SOKOBAN, EDITOR, broken)
    # A lone block of its kind: the rules alone prove it unsolvable, at its square.
    vexed = get("vexed")
    lone = draft_of(["######", "#____#", "#a_ab#", "######"])
    judged = drafts.structure(vexed, vexed.editor(), drafts.read_draft(vexed, vexed.editor(), lone))
    assert judged["verdict"]["status"] == "unsolvable" and judged["squares"] == [[2, 4]]
    assert "only one block" in judged["verdict"]["reason"] and judged["errors"] == []


def test_an_authors_name_is_kept_with_single_spaces_and_checked():
    assert drafts.read_author("  Ann   Designer ") == "Ann Designer"
    with pytest.raises(Refused, match="too long"):
        drafts.read_author("a" * 81)
    with pytest.raises(Refused, match="author's name"):
        drafts.read_author("Ann\x00")


def test_a_game_without_an_editor_has_none():
    assert drafts.editor_of(SOKOBAN) is EDITOR
    without = [game for game in games.all_games() if game.editor() is None]
    for game in without:
        with pytest.raises(NotFound, match="no editor"):
            drafts.editor_of(game)


def test_a_kept_draft_is_the_players_own_and_a_test_play_is_not(store):
    level = drafts.level_of(
        SOKOBAN, EDITOR, drafts.read_draft(SOKOBAN, EDITOR, draft_of(ROWS, title="Mine"))
    )
    played = drafts.keep(shelf(store), SOKOBAN, level)  # test-play: shared, not listed
    assert played.collection == CUSTOM and store.load_level("sokoban", played.custom_id)
    assert drafts.own_levels(Asker(store, "p"), SOKOBAN) == []
    kept = drafts.keep(shelf(store), SOKOBAN, level, "Ann")
    assert kept == played  # one board, one address
    assert drafts.own_levels(Asker(store, "p"), SOKOBAN) == [
        drafts.OwnLevel(kept.path, "Mine", "Ann")
    ]
    assert drafts.author_of(store, kept) == "Ann"
    assert drafts.own_levels(Asker(store, "q"), SOKOBAN) == []
    assert drafts.own_levels(Asker(store, ""), SOKOBAN) == []


def test_a_players_own_levels_are_listed_in_one_query(store, monkeypatch):
    clock = iter(range(1000, 2000))
    monkeypatch.setattr(store, "clock", lambda: float(next(clock)))
    for n in range(drafts.MOST_LISTED + 5):
        wall = "#" * (9 + n)
        text = f"Title: Level {n}\n{wall}\n#@$.{' ' * (4 + n)}#\n{wall}"
        ref = drafts.keep(shelf(store), SOKOBAN, SOKOBAN.parse(text)[0], f"Ann {n}")
    store.save_title("p", "sokoban", ref.custom_id, "My own name for it")
    asked = []
    query = store.query
    monkeypatch.setattr(store, "query", lambda *args: asked.append(args) or query(*args))
    listed = drafts.own_levels(Asker(store, "p"), SOKOBAN)
    assert len(asked) == 1
    assert len(listed) == drafts.MOST_LISTED
    assert listed[0] == drafts.OwnLevel(
        ref.path, "My own name for it", f"Ann {drafts.MOST_LISTED + 4}"
    )
    assert listed[1].title == f"Level {drafts.MOST_LISTED + 3}"
