"""Every game's parser, fed random text and mutated real levels: a level or a clear
LevelError, never another exception, never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp import games
from webapp.core import catalog
from webapp.games.base import LevelError

FUZZ = settings(max_examples=120, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


def seeds(name: str) -> list[str]:
    """A few real levels of the game, as text, to mutate."""
    game = games.get(name)
    found = [game.level_text(level) for c in catalog.collections(name) for level in c.levels[:3]]
    return found[:8]


def parse_or_refuse(name: str, text: str) -> None:
    game = games.get(name)
    try:
        levels = game.parse(text)
    except LevelError as error:
        assert str(error)  # a message for the player
        if error.line is not None:
            assert error.line >= 1
        return
    assert levels
    for level in levels:
        game.start(level)  # a level that parses can be played
        again = game.parse(game.level_text(level))
        assert again == [level]


@pytest.mark.parametrize("name", games.names())
@FUZZ
@given(text=st.text(max_size=400))
def test_random_text(name, text):
    parse_or_refuse(name, text)


@st.composite
def mutated(draw, texts: list[str]) -> str:
    text = draw(st.sampled_from(texts))
    alphabet = sorted(set("".join(texts))) + ["\n", " ", "x", "9", "|", ":"]
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        ch = draw(st.sampled_from(alphabet))
        if kind == "insert":
            text = text[:at] + ch + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        elif kind == "replace":
            text = text[:at] + ch + text[at + 1 :]
        else:
            line_start = text.rfind("\n", 0, at) + 1
            line_end = text.find("\n", at)
            line = text[line_start : line_end if line_end >= 0 else len(text)]
            text = text[:line_start] + line + "\n" + text[line_start:]
    return text


@pytest.mark.parametrize("name", games.names())
def test_mutated_real_levels(name):
    texts = seeds(name)
    assert texts, f"{name} ships no levels to mutate"

    @FUZZ
    @given(text=mutated(texts))
    def check(text):
        parse_or_refuse(name, text)

    check()
