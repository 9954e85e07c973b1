"""A real server process killed with SIGKILL and started again keeps every player's game."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_game_and_undo_history_survive_a_server_kill_and_restart(page, server):
    page.goto(server.url + "/sokoban/microban/1")
    for key in ("ArrowDown", "ArrowLeft", "ArrowUp", "ArrowRight"):
        page.keyboard.press(key)
    expect(page.locator("#count-moves")).to_have_text("4")
    page.keyboard.press("u")
    expect(page.locator("#count-moves")).to_have_text("3")

    server.kill()
    server.start()

    page.reload()
    expect(page.locator("#count-moves")).to_have_text("3")
    expect(page.locator("#count-pushes")).to_have_text("1")
    # The undo stack is intact both ways: redo the undone move, then undo back to the start.
    page.keyboard.press("Control+y")
    expect(page.locator("#count-moves")).to_have_text("4")
    for remaining in ("3", "2", "1", "0"):
        page.keyboard.press("u")
        expect(page.locator("#count-moves")).to_have_text(remaining)
