"""The daily puzzle in Chromium, at desktop size and on a touch phone: it says it is today's
daily, its title is the game and the date (no jargon, no figure), how short it can be stays
hidden until it is solved, it leads back to /daily, and the result to share carries the
address and a Copy button that really copies. Each test fails without its fix."""

from __future__ import annotations

import datetime
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.test_browser_axe import violations
from webapp.games import get
from webapp.games.solving import solve
from webapp.search import Limits

pytestmark = pytest.mark.browser

ARROWS = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight"}
GAME = get("sliding")


def follow(screen: Page, link) -> None:
    if screen.viewport_size["width"] < 500:
        link.tap()
    else:
        link.click()


def test_the_daily_says_what_it_is_and_shares_a_result_that_copies(screen, live_server):
    today = datetime.datetime.now(datetime.UTC).date()
    day = f"{today.day} {today.strftime('%B')} {today.year}"
    # The first visit of the day makes every game's puzzle.
    screen.goto(live_server.url + "/daily", timeout=180_000)
    expect(screen.locator("p.lead")).to_contain_text(f"({day}, UTC)")
    card = screen.locator("#daily-sliding")
    expect(card).not_to_contain_text("fewest")  # not before it is solved
    link = screen.locator("#today-sliding")
    path = link.get_attribute("href")
    assert path is not None and path.startswith("/sliding/p/"), path
    follow(screen, link)
    expect(screen).to_have_url(live_server.url + path)

    # Today's daily, named by the game and the date alone: no band, no seed, no count.
    title = f"Daily Sliding puzzle, {day}"
    expect(screen.locator("h1.level-title")).to_have_text(title)
    assert screen.title().startswith(title + " · "), screen.title()
    note = screen.locator("#daily-note")
    expect(note).to_contain_text("Today's daily puzzle for Sliding puzzle, the same for everyone.")
    expect(note).to_contain_text("How short it can be is shown once you have solved it.")
    assert not re.search(r"\d", screen.locator("#made").inner_text())
    expect(screen.locator("#made-optimum")).to_have_count(0)
    expect(screen.locator("#back-to-daily")).to_have_attribute("href", "/daily")

    level = GAME.from_code(path.rsplit("/", 1)[1])
    moves = solve(GAME, level, "idastar", limits=Limits(seconds=60)).moves
    assert moves, "the day's puzzle is solvable"
    optimum = len(moves)
    screen.locator("#play .board").focus()
    for move in moves:  # at a fast person's pace: faster, the win would not be ranked
        screen.keyboard.press(ARROWS[move])
        screen.wait_for_timeout(40)
    expect(screen.locator("#count-moves")).to_have_text(str(optimum))
    expect(screen.locator("#against")).to_have_text(f"{optimum} moves, the best possible.")
    # Told at once, not after a reload.
    expect(screen.locator("#made-optimum")).to_have_text(str(optimum))
    expect(note).to_contain_text(f"The fewest possible is {optimum} moves.")
    expect(note).not_to_contain_text("shown once you have solved it")
    screen.reload()
    expect(screen.locator("#made-optimum")).to_have_text(str(optimum))
    assert violations(Axe(), screen) == []

    follow(screen, screen.locator("#back-to-daily"))
    expect(screen).to_have_url(live_server.url + "/daily")
    expect(card).to_contain_text(f"The fewest possible: {optimum} moves.")
    share = (
        f"Puzzle Lab daily Sliding puzzle, {day}: {optimum} moves (the fewest possible "
        f"{optimum}). Play it: {live_server.url}/daily"
    )
    expect(screen.locator("#share-sliding")).to_have_text(share)
    screen.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    copy = screen.locator("#copy-share-sliding")
    follow(screen, copy)
    expect(copy).to_have_text("Copied")
    assert screen.evaluate("() => navigator.clipboard.readText()") == share
    # The page as it is seen once the "Copied" toast has faded in (axe judges a half-faded
    # toast's contrast as it stands).
    screen.wait_for_function(
        "() => getComputedStyle(document.getElementById('flash')).opacity > 0.9"
    )
    assert violations(Axe(), screen) == []
