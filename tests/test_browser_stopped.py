"""A search stopped by its limits (issue #33): its progress bar runs from the least a solution
can take, as the search has proved it, to the best length known; and the position it had got
to can be played on in the player's own game on the same level."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import LEVELS, serving
from webapp.games import get

pytestmark = pytest.mark.browser

VEXED = get("vexed")
#: Kvass, the Impossible Pack's first level: the default search needs far more states than
#: the limit the server here sets.
KVASS = VEXED.parse((LEVELS / "vexed" / "07_impossible_pack.txt").read_text())[0]
BLOCKS = """() => [...document.querySelectorAll(SELECTOR + ' .block')]
    .map((el) => el.dataset.cell + ':' + [...el.classList].find((c) => c.startsWith('c-')))
    .sort().join(' ')"""


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory):
    """The app with a limit of 200,000 states a solve (a stop that does not hang on the
    machine's speed)."""
    with serving(tmp_path_factory.mktemp("quick"), SOLVE_NODE_LIMIT="200000") as running:
        yield running


def tap_or_click(target) -> None:
    if target.page.viewport_size["width"] < 500:
        target.tap()
    else:
        target.click()


def blocks(page, selector: str) -> str:
    return page.evaluate(BLOCKS.replace("SELECTOR", repr(selector)))


def test_a_search_out_of_states_shows_its_bounds_and_its_position_can_be_played(page, quick_server):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(quick_server.url + "/vexed/impossible-pack/1")
    expect(page.locator("#solve-limits")).to_contain_text("or 200,000 positions")
    page.locator("#solve-button").click()
    # While it runs: the bound it has proved, against the level's par.
    expect(page.locator("#bound-bar")).to_be_visible(timeout=20_000)
    lower = int(page.locator("#bound-lower").inner_text())
    assert 0 < lower <= int(page.locator("#bound-upper").inner_text()) == KVASS.par
    assert page.locator("#bound-bar").get_attribute("max") == str(KVASS.par)
    expect(page.locator("#solve-status")).to_have_attribute(
        "data-status", "node-limit", timeout=30_000
    )
    caption = page.locator("#solve-caption")
    expect(caption).to_have_text("Where the search had got to when it stopped")
    stopped_at = blocks(page, "#solve-board")
    assert stopped_at and stopped_at != blocks(page, "#play")
    crumbs = page.locator("nav.crumbs").inner_text()
    button = page.get_by_role("button", name="Play from this position")
    assert "Your game on this level" in button.get_attribute("title")
    button.click()
    # The same level, the player's own game moved there by the search's moves, as help.
    expect(page).to_have_url(quick_server.url + "/vexed/impossible-pack/1")
    assert blocks(page, "#play") == stopped_at
    assert int(page.locator("#count-moves").inner_text()) > 0  # the moves that reach it
    assert page.locator("nav.crumbs").inner_text() == crumbs
    expect(page.locator("#level-number")).to_contain_text("1 of")
    expect(page.locator("#records")).to_be_visible()


def test_an_informed_search_offers_the_closest_position_it_met(page, quick_server):
    """A* on a shuffled 15-puzzle runs out of states: the panel shows, and offers to play on
    from, the position nearest the goal by its estimate, not the last one it looked at."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(quick_server.url + "/sliding/p/4x4-5cbed47120f639a8")  # a full shuffle
    page.locator("select[name=algorithm]").select_option("astar")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute(
        "data-status", "node-limit", timeout=60_000
    )
    caption = page.locator("#solve-caption")
    expect(caption).to_have_text("The closest position the search found before it stopped")
    tiles = (
        "() => [...document.querySelectorAll('#solve-board .tile')]"
        ".map(t => t.dataset.cell + ':' + t.dataset.tile).join(' ')"
    )
    closest = page.evaluate(tiles)
    page.get_by_role("button", name="Play from the closest position").click()
    expect(page).to_have_url(re.compile(r"/sliding/p/4x4-[0-9a-f]+$"))
    assert page.evaluate(tiles.replace("#solve-board", "#play")) == closest


def test_play_from_the_closest_position_keeps_the_level_its_breadcrumb_and_records(
    page, quick_server
):
    """A* on Five by five runs out of states; "Play from the closest position" moves the
    player's own game on this level there (the moves the search kept, as help), on the same
    page: the breadcrumb, the level's number and its records stay."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(quick_server.url + "/sliding/large/3")
    crumbs = page.locator("nav.crumbs").inner_text()
    assert "Large boards" in crumbs
    page.locator("select[name=algorithm]").select_option("astar")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute(
        "data-status", "node-limit", timeout=90_000
    )
    tiles = (
        "() => [...document.querySelectorAll('#solve-board .tile')]"
        ".map(t => t.dataset.cell + ':' + t.dataset.tile).join(' ')"
    )
    closest = page.evaluate(tiles)
    button = page.get_by_role("button", name="Play from the closest position")
    assert "Your game on this level" in button.get_attribute("title")
    button.click()
    expect(page).to_have_url(quick_server.url + "/sliding/large/3")
    assert page.evaluate(tiles.replace("#solve-board", "#play")) == closest
    assert int(page.locator("#count-moves").inner_text()) > 0  # the moves that reach it
    assert page.locator("nav.crumbs").inner_text() == crumbs
    expect(page.locator("#level-number")).to_contain_text("3 of")
    expect(page.locator("#records")).to_be_visible()


def test_sokoban_default_search_stopped_keeps_the_level(screen, quick_server):
    """The default (compiled portfolio) search on XSokoban 29 runs out of states; "Play from
    the closest position" moves the player's own game on this level there, by the pushes
    the search kept (walked to), on the same page: breadcrumb, number and records stay."""
    page = screen  # on each screen: the phone's finger taps
    page.goto(quick_server.url + "/sokoban/xsokoban/29")
    crumbs = page.locator("nav.crumbs").inner_text()
    tap_or_click(page.locator("#solve-button"))
    expect(page.locator("#solve-status")).to_have_attribute(
        "data-status", "node-limit", timeout=90_000
    )
    boxes = (
        "() => [...document.querySelectorAll('#solve-board .box')]"
        ".map(b => b.dataset.cell).sort().join(' ')"
    )
    closest = page.evaluate(boxes)
    assert closest and closest != page.evaluate(boxes.replace("#solve-board", "#play"))
    button = page.get_by_role("button", name="Play from the closest position")
    assert "Your game on this level" in button.get_attribute("title")
    tap_or_click(button)
    expect(page).to_have_url(quick_server.url + "/sokoban/xsokoban/29")
    assert page.evaluate(boxes.replace("#solve-board", "#play")) == closest
    assert int(page.locator("#count-moves").inner_text()) > 0  # the moves that reach it
    assert page.locator("nav.crumbs").inner_text() == crumbs
    expect(page.locator("#level-number")).to_contain_text("29 of")
    expect(page.locator("#records")).to_be_visible()
