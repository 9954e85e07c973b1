"""Choosing levels by rating (webapp/core/selector.py), without a request: a level's rating
played or predicted, "a level for me", a collection listed by rating and by what is solved."""

from __future__ import annotations

import random

import pytest

from webapp.core import catalog, ratings, results, selector
from webapp.core.catalog import LevelRef
from webapp.core.errors import NotFound, Refused
from webapp.core.players import Asker
from webapp.games import get
from webapp.storage.store import Store, connect

VEXED = get("vexed")
PACK = catalog.collection("vexed", "childrens-pack")


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def rate(store: Store, player: str, rating: float) -> None:
    """Give ``player`` a rating of their own (one first attempt that sets it)."""

    def fixed(me, level, *_moved):
        return (rating, 60.0, 0.06), None, 0.0

    store.rate_attempt(player, "vexed", "x/1", True, fixed, ratings.new(), ratings.new())


def rating_of(store: Store, ref: LevelRef) -> float:
    level = catalog.collection("vexed", ref.collection).levels[ref.number - 1]
    return selector.level_rating(VEXED, ref, level, store.level_ratings("vexed"))


def test_a_levels_rating_is_the_players_once_rated_else_the_predicted_one(store):
    ref, level = LevelRef("vexed", PACK.slug, 3), PACK.levels[2]
    predicted = results.predicted_rating(VEXED, level)
    assert selector.level_rating(VEXED, ref, level, {}) == predicted
    assert selector.level_rating(VEXED, ref, level, {ref.key: (1234.0, 80.0, 0.06, 4)}) == 1234.0


def test_a_level_for_me_is_unsolved_and_within_the_band_of_my_rating(store):
    rate(store, "p", 1800.0)
    store.record_win("p", "vexed", "childrens-pack/2", {"moves": 3})
    rng = random.Random(7)
    picked = {selector.level_for_me(Asker(store, "p"), VEXED, "", rng) for _ in range(30)}
    assert len(picked) > 1  # picked at random among the near ones
    for ref in picked:
        assert ref.key != "childrens-pack/2"  # solved: never picked
        assert abs(rating_of(store, ref) - 1800.0) <= selector.BAND
    for shift, aim in (("easier", 1600.0), ("harder", 2000.0), ("sideways", 1800.0)):
        assert selector.aim(store, "p", shift) == aim
        ref = selector.level_for_me(Asker(store, "p"), VEXED, shift, rng)
        assert abs(rating_of(store, ref) - aim) <= selector.BAND
    # A player not rated yet aims at the centre.
    assert selector.aim(store, "q") == ratings.CENTRE == selector.aim(store, "")


def test_with_no_level_near_the_nearest_is_picked_and_with_all_solved_none(store, monkeypatch):
    rate(store, "p", 9000.0)
    ref = selector.level_for_me(Asker(store, "p"), VEXED, "", random.Random(1))
    everything = [
        (LevelRef("vexed", found.slug, number), found)
        for found in catalog.collections("vexed")
        for number in range(1, len(found.levels) + 1)
    ]
    highest = max(rating_of(store, each) for each, _found in everything)
    assert rating_of(store, ref) == highest
    monkeypatch.setattr(store, "solved", lambda *_args: {each.key for each, _ in everything})
    with pytest.raises(NotFound, match="solved every Vexed level"):
        selector.level_for_me(Asker(store, "p"), VEXED)


def test_a_collection_is_listed_by_rating_and_filtered_by_what_is_solved(store):
    everything = list(range(1, len(PACK.levels) + 1))
    listed = selector.collection_levels(store, VEXED, PACK.slug, set())
    assert [each.number for each in listed] == everything
    rating = {each.number: each.rating for each in listed}
    assert not any(each.played for each in listed)
    easiest = selector.collection_levels(store, VEXED, PACK.slug, set(), "easiest")
    assert [each.rating for each in easiest] == sorted(rating.values())
    hardest = selector.collection_levels(store, VEXED, PACK.slug, set(), "hardest")
    assert [each.rating for each in hardest] == sorted(rating.values(), reverse=True)
    solved = {f"{PACK.slug}/2", f"{PACK.slug}/5"}
    only = selector.collection_levels(store, VEXED, PACK.slug, solved, "number", "solved")
    assert [each.number for each in only] == [2, 5]
    left = selector.collection_levels(store, VEXED, PACK.slug, solved, "number", "unsolved")
    assert [each.number for each in left] == [n for n in everything if n not in (2, 5)]
    for sort, show in (("random", "all"), ("number", "mine")):
        with pytest.raises(Refused, match="easiest"):
            selector.collection_levels(store, VEXED, PACK.slug, set(), sort, show)


def test_a_collection_page_shows_the_players_results_and_its_board(store):
    store.record_win("p", "vexed", f"{PACK.slug}/1", {"moves": 9})
    view = selector.collection_view(Asker(store, "p"), VEXED, PACK.slug, "number", "unsolved")
    assert view["results"] == {f"{PACK.slug}/1": {"moves": 9}}
    assert [row.mine for row in view["board"]] == [True]
    assert 1 not in [each.number for each in view["listed"]]
    with pytest.raises(NotFound, match="no collection called 'nothing'"):
        selector.collection_view(Asker(store, "p"), VEXED, "nothing")
