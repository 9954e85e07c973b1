"""The flow of play in a real browser: moves pipelined over a slow network and never shown out
of order, a solution played back like an analysis board."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

#: First steps 3: down and up are both legal from the start, so they alternate forever.
LEVEL = "/sokoban/first-steps/3"
LATENCY_MS = 100


def slow_network(page, latency_ms: int = LATENCY_MS) -> None:
    """Every request from this page takes ``latency_ms`` more, as over a real network."""
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": latency_ms,
            "downloadThroughput": -1,
            "uploadThroughput": -1,
        },
    )


def test_ten_keys_land_within_400_ms_of_the_last_over_100_ms_of_latency(page, live_server):
    page.goto(live_server.url + LEVEL)
    expect(page.locator("#count-moves")).to_have_text("0")
    slow_network(page)
    # Warm the connections the burst will use (a first request opens one).
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("1", timeout=5_000)
    page.keyboard.press("ArrowUp")
    expect(page.locator("#count-moves")).to_have_text("2", timeout=5_000)
    for index in range(10):
        page.keyboard.press("ArrowDown" if index % 2 == 0 else "ArrowUp")
    pressed = time.monotonic()
    # One key waiting for the last answer before the next is sent takes 10 round trips
    # (over a second here); sent at once, the burst lands in about one or two.
    expect(page.locator("#count-moves")).to_have_text("12", timeout=400)
    landed = time.monotonic() - pressed
    print(f"ten keys over {LATENCY_MS} ms of latency landed {landed * 1000:.0f} ms after the last")
    # In order: the board is where an even number of down-up pairs leaves it, on reload too.
    cell = page.locator("#play .board .player").get_attribute("data-cell")
    page.reload()
    expect(page.locator("#count-moves")).to_have_text("12")
    assert page.locator("#play .board .player").get_attribute("data-cell") == cell
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("11")


def test_moves_sent_together_are_played_in_the_order_pressed(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    slow_network(page)
    # Microban 1's solution, pressed without waiting: any move played out of order would be
    # refused by the walls or push a box wrong, and the level would not end solved.
    keys = {"l": "ArrowLeft", "u": "ArrowUp", "r": "ArrowRight", "d": "ArrowDown"}
    for move in "dlUrrrdLullddrUluRuulDrddrruLdlUU":
        page.keyboard.press(keys[move.lower()])
    expect(page.locator("#solved")).to_be_visible(timeout=10_000)
    expect(page.locator("#count-moves")).to_have_text("33")
    expect(page.locator("#count-pushes")).to_have_text("8")


def test_playback_is_an_analysis_board_move_list_arrows_home_and_end(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    page.locator("#solve-button").click()
    status = page.locator("#solve-status")
    expect(status).to_have_attribute("data-status", "solved", timeout=30_000)
    # A solve this quick has nothing to chart: a note, not two crossed lines.
    expect(page.locator("#chart-note")).to_contain_text("too quick to chart")
    expect(page.locator("#solve-chart polyline")).to_have_count(0)
    position = page.locator("#playback-pos")
    total = int(position.inner_text().split(" of ")[1])
    moves = page.locator("#playback-moves button")
    expect(moves).to_have_count(total + 1)  # the start, then every move
    moves.nth(5).click()
    expect(position).to_have_text(f"move 5 of {total}")
    expect(page.locator("#playback-moves [aria-current]")).to_have_attribute("data-position", "5")
    page.keyboard.press("ArrowRight")  # the focus is in the solver panel: keys step the playback
    expect(position).to_have_text(f"move 6 of {total}")
    expect(page.locator("#playback-moves [aria-current]")).to_have_attribute("data-position", "6")
    page.keyboard.press("End")
    expect(position).to_have_text(f"move {total} of {total}")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"move {total - 1} of {total}")
    page.keyboard.press("Home")
    expect(position).to_have_text(f"move 0 of {total}")
    expect(page.locator("#playback-moves [aria-current]")).to_have_attribute("data-position", "0")
    # None of it moved the player's own game.
    expect(page.locator("#count-moves")).to_have_text("0")


def test_a_game_changed_elsewhere_reloads_the_page(page, live_server):
    """The server refuses a save made against an out-of-date game with a 409: the page loads
    the game again instead of showing a board that no longer matches it."""
    page.goto(live_server.url + LEVEL)
    expect(page.locator("#count-moves")).to_have_text("0")
    page.evaluate("window.reloadMarker = 1")
    page.route(
        "**/play",
        lambda route: route.fulfill(
            status=409, body="changed elsewhere", content_type="text/plain"
        ),
    )
    with page.expect_navigation(timeout=10_000):
        page.keyboard.press("ArrowDown")
    page.unroute("**/play")
    assert page.evaluate("window.reloadMarker") is None  # a fresh page
    expect(page.locator("#count-moves")).to_have_text("0")
