"""What a player keeps of their own (webapp/core/profile.py), without a request: a name to
show, checked and never another's, and page settings within what each may be."""

from __future__ import annotations

import pytest

from webapp.core import profile, ratings
from webapp.core.errors import Refused
from webapp.storage.store import Store, connect


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def test_a_name_is_kept_trimmed_and_shown_with_the_rating(store):
    assert profile.profile(store, "p") == profile.Profile("", None)
    profile.rename(store, "p", "  Zoë K. ")
    assert profile.profile(store, "p").name == "Zoë K."

    def rated(me, level, *_moved):
        return (1650.0, 80.0, 0.06), None, 0.0

    store.rate_attempt("p", "vexed", "x/1", True, rated, ratings.new(), ratings.new())
    assert profile.profile(store, "p") == profile.Profile("Zoë K.", 1650.0)
    profile.rename(store, "p", "")  # anonymous again
    assert profile.profile(store, "p").name == ""
    assert profile.profile(store, "") == profile.Profile("", None)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Z", "2 to 24"),
        ("a" * 25, "2 to 24"),
        ("Zoë  K", "single spaces"),
        ("<b>Zoë</b>", "no other signs"),
        ("Zo\u202eë", "name"),
        ("Zo\x00ë", "name"),
    ],
)
def test_a_name_that_cannot_be_shown_is_refused_saying_why(store, name, message):
    with pytest.raises(Refused, match=message):
        profile.rename(store, "p", name)
    assert profile.profile(store, "p").name == ""


def test_a_reserved_name_or_another_players_lookalike_is_refused(store):
    with pytest.raises(Refused, match="kept for the site"):
        profile.rename(store, "p", "Admin")
    profile.rename(store, "p", "Zoe")
    with pytest.raises(Refused, match=profile.TAKEN):
        profile.rename(store, "q", "ZOE")
    assert profile.profile(store, "q").name == ""
    profile.rename(store, "p", "Zoe K")  # a player may rename themselves
    profile.rename(store, "q", "Zoe")  # and their old name is free again


def test_page_settings_are_kept_within_what_each_may_be(store):
    assert profile.keep_preferences(store, "p", {"theme": "dark", "sound": True}) == {
        "theme": "dark",
        "sound": True,
    }
    assert profile.keep_preferences(store, "p", {"motion": "off"}) == {
        "theme": "dark",
        "sound": True,
        "motion": "off",
    }
    for bad in ({"theme": "<script>"}, {"volume": 11}, {"sound": 1}, {"numbers": "yes"}):
        with pytest.raises(Refused, match="cannot be set"):
            profile.keep_preferences(store, "p", bad)
    with pytest.raises(Refused, match="JSON object"):
        profile.keep_preferences(store, "p", ["theme"])
    assert store.preferences("p") == {"theme": "dark", "sound": True, "motion": "off"}
