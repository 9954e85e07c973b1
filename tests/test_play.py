"""Undo, redo, restart and replay links, written once for every game (webapp.core.play)."""

from __future__ import annotations

import re

import pytest

from webapp.core.play import ASSIST, RESTART, Play
from webapp.games import get
from webapp.games.base import IllegalMove, MoveError

GAME = get("sokoban")
LEVEL = GAME.parse("#######\n#@ $ .#\n#######")[0]


def test_undo_after_a_move_gives_back_the_same_state_and_redo_replays_it():
    play = Play(GAME, LEVEL)
    start = play.state
    play.play(["r", "r"])
    after = play.state
    assert play.undo() and play.undo()
    assert play.state == start
    assert not play.undo()
    assert play.redo() and play.redo()
    assert play.state == after and not play.redo()


def test_a_new_move_after_undo_drops_the_redo_tail():
    play = Play(GAME, LEVEL)
    play.play(["r", "R"])
    play.undo()
    play.play(["l"])
    assert play.history == ["r", "l"] and not play.can_redo


def test_moves_are_spelled_canonically_and_counted():
    play = Play(GAME, LEVEL)
    play.play(["r", "r", "r"])
    assert play.moves == ["r", "R", "R"]
    assert play.figures == {"moves": 3, "pushes": 2}
    assert play.solved


def test_an_illegal_move_leaves_the_game_unchanged():
    play = Play(GAME, LEVEL)
    play.play(["r"])
    with pytest.raises(IllegalMove):
        play.play(["r", "u"])
    assert play.moves == ["r"]
    with pytest.raises(MoveError):
        play.play([RESTART])


def test_restart_is_undoable():
    play = Play(GAME, LEVEL)
    play.play(["r", "R"])
    assert play.restart()
    assert play.moves == [] and play.state == GAME.start(LEVEL)
    assert not play.restart()  # nothing to restart at the start
    play.undo()
    assert play.moves == ["r", "R"]


def test_replace_shows_exactly_the_replay_and_keeps_the_old_game_undoable():
    play = Play(GAME, LEVEL)
    play.play(["r"])
    play.replace(["r", "r"])
    assert play.moves == ["r", "R"]
    history = list(play.history)
    play.replace(["r", "r"])  # the same link again changes nothing
    assert play.history == history
    play.undo(), play.undo(), play.undo()
    assert play.moves == ["r"]


def test_moves_not_the_players_own_are_marked_and_undo_over_them_unmarks_the_game():
    play = Play(GAME, LEVEL)
    play.play(["r"])
    play.play(["r"], assisted=True)  # a solver's move after the player's own
    assert play.moves == ["r", "R"] and play.assisted
    assert play.history == ["r", ASSIST, "R"]
    assert play.undo() and play.moves == ["r"] and not play.assisted  # the mark goes too
    assert play.redo() and play.moves == ["r", "R"] and play.assisted
    play.replace(["r", "r"], assisted=True)  # the same moves: nothing changes
    assert play.history == ["r", ASSIST, "R"]
    play.restart()
    assert not play.assisted and play.moves == []
    with pytest.raises(MoveError):
        play.play([ASSIST])


def test_old_untouched_games_expire_and_current_ones_stay(tmp_path):
    import time

    from webapp.storage.store import SavedGame, Store, connect

    store = Store(connect(str(tmp_path / "db.sqlite3")))
    store.save_game("old", "sokoban", "custom/aaaaaaaaaaaa", SavedGame(["r"], 1))
    store.save_level("sokoban", "aaaaaaaaaaaa", "#####\n#@$.#\n#####")
    store.save_level("sokoban", "bbbbbbbbbbbb", "#####\n#.$@#\n#####")
    later = time.time() + 200 * 86400
    store.save_game("current", "sokoban", "microban/1", SavedGame(["d"], 1))
    store.conn.execute("UPDATE games SET updated = ? WHERE player = 'current'", (later,))
    assert store.expire(180, now=later) == (1, 2)
    assert store.load_game("old", "sokoban", "custom/aaaaaaaaaaaa") is None
    assert store.load_game("current", "sokoban", "microban/1") is not None
    # A pasted level someone still plays is kept however old it is.
    store.save_level("sokoban", "cccccccccccc", "#####\n#@$.#\n#####")
    store.save_game("current", "sokoban", "custom/cccccccccccc", SavedGame([], 0))
    store.conn.execute("UPDATE games SET updated = ? WHERE level = 'custom/cccccccccccc'", (later,))
    assert store.expire(180, now=later) == (0, 0)
    assert store.load_level("sokoban", "cccccccccccc") is not None


def test_the_state_cache_always_agrees_with_a_plain_replay():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from webapp.core.play import StateCache

    level = GAME.parse("#########\n#@  $  .#\n#   $  .#\n#########")[0]

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.sampled_from(["l", "r", "u", "d", "undo", "redo", "restart"]), max_size=200))
    def check(actions):
        cache = StateCache(every=4)
        cached = Play(GAME, level, cache=cache, cache_key="k")
        for action in actions:
            if action in ("undo", "redo", "restart"):
                getattr(cached, action)()
            else:
                try:
                    cached.play([action])
                except ValueError:
                    pass
            fresh = Play(
                GAME, level, list(cached.history), cached.cursor, cache=cache, cache_key="k"
            )
            assert fresh.state == GAME.replay(level, fresh.moves)
            assert fresh.previous_state() == GAME.replay(level, fresh.moves[:-1])
            assert fresh.state == GAME.replay(level, fresh.moves)  # the cache still agrees

    check()


def test_recent_games_and_results_agree_with_the_database_and_are_copies(tmp_path):
    from webapp.storage.store import Recent, SavedGame, Store, connect

    path = str(tmp_path / "db.sqlite3")
    recent = Recent()
    store = Store(connect(path), recent)
    plain = Store(connect(path))  # the database alone
    key = ("sokoban", "microban/1")
    assert store.load_game("p", *key) is None and store.best("p", *key) is None
    store.save_game("p", *key, SavedGame(["r"], 1))
    loaded = store.load_game("p", *key)
    loaded.history.append("l")  # a caller plays on its own copy
    assert store.load_game("p", *key).history == ["r"] == plain.load_game("p", *key).history
    store.record_win("p", *key, {"moves": 5, "pushes": 2})
    store.record_win("p", *key, {"moves": 7, "pushes": 1})
    assert store.best("p", *key) == {"moves": 5, "pushes": 1} == plain.best("p", *key)
    # A read that began before a write never replaces what the write kept.
    before = recent.writes("game")
    store.save_game("p", *key, SavedGame(["r", "l"], 2))
    recent.put(("game", "p", *key), SavedGame(["r"], 1), read_after=before)
    assert store.load_game("p", *key).history == ["r", "l"]
    # The sweep of old games forgets what it kept, so a removed game is not served from memory.
    store.conn.execute("UPDATE games SET updated = 0")
    store.expire(180)
    assert store.load_game("p", *key) is None


def test_the_caches_of_positions_and_games_are_bounded_by_bytes_not_entries(tmp_path):
    """Long games take more memory than short ones: the caches count what they keep in
    bytes, so a few long games cannot grow the process without bound."""
    from webapp.core.play import StateCache
    from webapp.storage.store import Recent, SavedGame

    level = GAME.parse("#########\n#@  $  .#\n#   $  .#\n#########")[0]
    long_game = ["d", "u"] * 5000
    cache = StateCache(max_bytes=2 * 2**20)
    for key in range(20):
        cache.state(key, GAME, level, long_game)
        assert cache.bytes <= cache.max_bytes
    assert 1 <= len(cache._entries) < 20  # the oldest went
    assert cache.state(19, GAME, level, long_game) == GAME.replay(level, long_game)
    recent = Recent(max_bytes=2 * 2**20)
    for key in range(20):
        recent.put(("game", str(key), "sokoban", "x"), SavedGame(long_game, len(long_game)))
        assert recent.bytes <= recent.max_bytes
    assert len(recent._entries) < 20
    recent.forget(("game", "19", "sokoban", "x"))
    assert recent.bytes == sum(recent._sizes.values())


def test_a_long_game_costs_a_bounded_answer_and_stops_at_its_cap_with_a_message(client):
    """A move's answer does not carry the whole history: past what an address can hold the
    replay link is replaced by a note; and a game stops at its cap, saying so."""
    from tests.conftest import Player
    from webapp.core.play import MAX_HISTORY
    from webapp.web.levels import MAX_LINK_MOVES

    me = Player(client, "/sokoban/first-steps/3")
    short = me.act("move", moves="du" * 10)
    assert 'id="replay-link"' in short.text
    long = me.act("move", moves="du" * (MAX_LINK_MOVES // 2 + 1))
    assert long.status_code == 200 and 'id="replay-link"' not in long.text
    assert "Too many moves for a replay link" in long.text and len(long.data) < 8_000
    left = MAX_HISTORY - 20 - 2 * (MAX_LINK_MOVES // 2 + 1)
    assert me.act("move", moves=["du" * 500] * (left // 1000)).status_code == 200
    capped = me.act("move", moves="du" * 600)
    assert f"already has {MAX_HISTORY:,} moves; restart it to go on" in capped.text
    full = me.act("move", moves=["du"] * ((MAX_HISTORY - moves_of(capped.text)) // 2))
    assert moves_of(full.text) == MAX_HISTORY
    restarted = me.act("restart")  # a restart is still possible at the cap
    assert restarted.status_code == 200 and moves_of(restarted.text) == 0
    assert moves_of(me.act("move", moves="d").text) == 1


def moves_of(page: str) -> int:
    return int(re.search(r'<b id="count-moves">(\d+)</b>', page).group(1))
