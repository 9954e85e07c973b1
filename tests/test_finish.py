"""A game finished and rated (webapp/core/results.py: finish, rate_first_attempt,
result_view), without a request: the win kept as the player's own, assisted or hasty, the
first attempt rated once, the result beside its benchmark."""

from __future__ import annotations

import pytest

from webapp.core import catalog, ratings, results
from webapp.core.levels import find_level, mark_shown, replay_seen, replay_view
from webapp.core.play import Play
from webapp.core.players import Asker
from webapp.core.sharing import Shelf, share_level
from webapp.games import get
from webapp.storage.store import Store, connect

SOKOBAN = get("sokoban")
BOARD = "######\n# @$.#\n######"  # one push right solves it


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def found_by(store: Store, player: str):
    level = SOKOBAN.parse(BOARD)[0]
    ref = share_level(Shelf(Asker(store, player), 2**20, lambda _n: True, ""), SOKOBAN, level)
    return find_level("sokoban", ref.collection, ref.custom_id, Asker(store, player))


def played(found, moves: str) -> Play:
    play = Play(found.game, found.level)
    play.play(found.game.split_moves(moves))
    return play


def test_a_game_not_won_is_kept_with_no_record_and_no_rating(store):
    found = found_by(store, "p")
    play = played(found, "L")
    results.finish(found, play, moves=1, fresh=True)
    assert store.load_game("p", "sokoban", found.ref.key).history == ["l"]
    assert store.best("p", "sokoban", found.ref.key) is None
    assert store.player_rating("p") is None
    assert play.version is not None  # the next save is checked against this one


def test_a_win_of_ones_own_is_the_best_and_rates_the_first_attempt_once(store):
    found = found_by(store, "p")
    play = played(found, "R")
    results.finish(found, play, moves=1, fresh=True, rater="client")
    assert store.best("p", "sokoban", found.ref.key) == {"moves": 1, "pushes": 1}
    after_win = store.player_rating("p")
    assert after_win is not None and after_win[0] > ratings.CENTRE
    # Restarted and won again: the first attempt was counted already.
    again = played(found, "R")
    again.version = play.version
    results.finish(found, again, moves=1, fresh=True, rater="client")
    assert store.player_rating("p") == after_win


def test_a_win_on_a_board_whose_solution_was_shown_is_assisted_and_a_loss(store):
    found = found_by(store, "p")
    mark_shown(found)
    play = played(found, "R")
    results.finish(found, play, moves=1, fresh=True)
    assert play.assisted
    assert store.best("p", "sokoban", found.ref.key) is None  # never the player's best
    assert found.ref.key in store.assisted("p", "sokoban")
    assert store.player_rating("p")[0] < ratings.CENTRE  # rated as a loss


def test_a_win_faster_than_a_person_plays_is_kept_unranked_and_moves_no_rating(store):
    found = found_by(store, "p")
    play = played(found, "LR" * 20 + "R")  # back and forth, then the push
    results.finish(found, play, moves=41, fresh=True)  # 41 moves at once: past the burst
    assert play.unranked == "hasty"
    assert store.best("p", "sokoban", found.ref.key) is None
    assert store.unranked_best("p", "sokoban", found.ref.key) == {"moves": 41, "pushes": 1}
    assert store.player_rating("p") is None or store.player_rating("p")[0] == ratings.CENTRE


def test_an_unrated_level_starts_where_its_known_optimum_places_it(store, monkeypatch):
    found = found_by(store, "p")
    figures = {"optimum": 60, "metric": "moves", "proved": True, "solution": ""}
    store.save_made("sokoban", found.ref.custom_id, "hard", "7", figures)  # made to order
    started = []
    rate_attempt = store.rate_attempt
    monkeypatch.setattr(
        store,
        "rate_attempt",
        lambda *args, **kw: started.append(args[5]) or rate_attempt(*args, **kw),
    )
    results.rate_first_attempt(found, won=True)
    made = results.predicted_rating(
        SOKOBAN, found.level, store.made("sokoban", found.ref.custom_id)
    )
    assert started == [ratings.new(made)]
    assert made != results.predicted_rating(SOKOBAN, found.level)  # its own optimum, not a guess


def test_a_win_is_told_beside_the_best_possible(store):
    found = found_by(store, "p")
    assert results.result_view(found, played(found, "L")) == {}  # not won: nothing to tell
    view = results.result_view(found, played(found, "R"))
    assert view["benchmark"] is None  # nothing known of a pasted level nobody else solved
    fifteen = catalog.collection("sliding", "fifteen")
    solved = find_level("sliding", "fifteen", "1", Asker(store, "p"))
    mark = results.benchmark_of(solved)
    assert mark == results.benchmark(solved.game, fifteen.levels[0])
    assert not results.could_shorten(played(found, "R"), "moves", mark)  # one move: no shorter


def test_a_replay_of_a_solution_marks_the_board_shown_unless_the_players_best_is_as_good(store):
    found = found_by(store, "p")
    board = catalog.content_id(SOKOBAN, found.level)
    replay_seen(found, replay_view(found, "L", None))  # no solution: nothing shown
    assert not store.was_shown("p", "sokoban", board)
    results.finish(found, played(found, "LRR"), moves=3, fresh=True)  # their own, in 3
    replay_seen(found, replay_view(found, "LRR", None))  # their own replay: as good
    assert not store.was_shown("p", "sokoban", board)
    replay_seen(found, replay_view(found, "R", None))  # a shorter solution, shown to them
    assert store.was_shown("p", "sokoban", board)
    visitor = found_by(store, "")
    replay_seen(visitor, replay_view(visitor, "R", None))  # a visitor keeps nothing
    assert not store.was_shown("", "sokoban", board)
