"""What a player keeps of their own (webapp/core/profile.py), without a request: a name to
show, checked and never another's, and page settings within what each may be."""

from __future__ import annotations

import pytest

from webapp.core import profile, ratings
from webapp.core.errors import Refused
from webapp.core.players import Asker
from webapp.storage.store import Store, connect


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(connect(str(tmp_path / "db.sqlite3")))
    yield store
    store.conn.close()


def test_a_name_is_kept_trimmed_and_shown_with_the_rating(store):
    assert profile.profile(Asker(store, "p")) == profile.Profile("", None)
    profile.rename(Asker(store, "p"), "  Zoë K. ")
    assert profile.profile(Asker(store, "p")).name == "Zoë K."

    def rated(me, level, *_moved):
        return (1650.0, 80.0, 0.06), None, 0.0

    store.rate_attempt("p", "vexed", "x/1", True, rated, ratings.new(), ratings.new())
    assert profile.profile(Asker(store, "p")) == profile.Profile("Zoë K.", 1650.0)
    profile.rename(Asker(store, "p"), "")  # anonymous again
    assert profile.profile(Asker(store, "p")).name == ""
    assert profile.profile(Asker(store, "")) == profile.Profile("", None)


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
        profile.rename(Asker(store, "p"), name)
    assert profile.profile(Asker(store, "p")).name == ""


def test_a_reserved_name_or_another_players_lookalike_is_refused(store):
    with pytest.raises(Refused, match="kept for the site"):
        profile.rename(Asker(store, "p"), "Admin")
    profile.rename(Asker(store, "p"), "Zoe")
    with pytest.raises(Refused, match=profile.TAKEN):
        profile.rename(Asker(store, "q"), "ZOE")
    assert profile.profile(Asker(store, "q")).name == ""
    profile.rename(Asker(store, "p"), "Zoe K")  # a player may rename themselves
    profile.rename(Asker(store, "q"), "Zoe")  # and their old name is free again


def test_page_settings_are_kept_within_what_each_may_be(store):
    assert profile.keep_preferences(Asker(store, "p"), {"theme": "dark", "sound": True}) == {
        "theme": "dark",
        "sound": True,
    }
    assert profile.keep_preferences(Asker(store, "p"), {"motion": "off"}) == {
        "theme": "dark",
        "sound": True,
        "motion": "off",
    }
    for bad in ({"theme": "<script>"}, {"volume": 11}, {"sound": 1}, {"numbers": "yes"}):
        with pytest.raises(Refused, match="cannot be set"):
            profile.keep_preferences(Asker(store, "p"), bad)
    with pytest.raises(Refused, match="JSON object"):
        profile.keep_preferences(Asker(store, "p"), ["theme"])
    assert store.preferences("p") == {"theme": "dark", "sound": True, "motion": "off"}
    assert profile.preferences(Asker(store, "p")) == store.preferences("p")


def test_a_visitor_keeps_no_settings_and_reads_none(store):
    """A visitor ("") has no page settings, whatever the store holds under no one."""
    store.set_preferences("", {"theme": "dark"})
    assert profile.preferences(Asker(store, "")) == {}
    assert profile.preferences(Asker(store, "p")) == {}
