"""The one door that shares a level (webapp/core/sharing.py), without a request: a position
code where the game names its positions by one, else the content address, saved within the
budgets."""

from __future__ import annotations

import pytest

from webapp.core import catalog, sharing
from webapp.core.catalog import CUSTOM, POSITION
from webapp.core.errors import TooMany
from webapp.core.levels import find_level
from webapp.core.players import Asker
from webapp.games import get
from webapp.storage.store import Store, connect

SOKOBAN, SLIDING = get("sokoban"), get("sliding")
BOARD = "#######\n#@ $ .#\n#######"


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def shelf(store: Store, charge=lambda _bytes: True) -> sharing.Shelf:
    return sharing.Shelf(Asker(store, "p"), 2**20, charge, "Your levels' budget is spent.")


def test_a_level_of_a_game_with_position_codes_is_shared_by_its_code_storing_nothing(store):
    level = SLIDING.parse("size: 3x3\n1 2 3\n4 5 6\n7 0 8")[0]
    spent = []
    ref = sharing.share_level(shelf(store, lambda n: spent.append(n) or True), SLIDING, level)
    assert (ref.collection, ref.custom_id) == (POSITION, SLIDING.position_code(level))
    assert spent == [] and store.levels_bytes() == 0
    assert sharing.address(SLIDING, ref.custom_id) == ref
    assert find_level("sliding", POSITION, ref.custom_id, Asker(store, "p")).level == level


def test_any_other_level_is_saved_at_its_content_address_within_the_budget(store):
    level = SOKOBAN.parse(BOARD)[0]
    spent = []
    ref = sharing.share_level(shelf(store, lambda n: spent.append(n) or True), SOKOBAN, level)
    assert (ref.collection, ref.custom_id) == (CUSTOM, catalog.content_id(SOKOBAN, level))
    assert spent == [len(store.load_level("sokoban", ref.custom_id).encode())]
    assert sharing.address(SOKOBAN, ref.custom_id) == ref
    found = find_level("sokoban", CUSTOM, ref.custom_id, Asker(store, "p"))
    assert found.level == level
    assert found.asker == Asker(store, "p")  # found for the asker: their store, their titles
    # The same board again is the same level, and a spent budget saves nothing.
    assert sharing.share_level(shelf(store), SOKOBAN, SOKOBAN.parse(BOARD)[0]) == ref
    other = SOKOBAN.parse("########\n#@ $  .#\n########")[0]
    with pytest.raises(TooMany, match="budget is spent"):
        sharing.share_level(shelf(store, lambda _n: False), SOKOBAN, other)
    assert store.load_level("sokoban", catalog.content_id(SOKOBAN, other)) is None
