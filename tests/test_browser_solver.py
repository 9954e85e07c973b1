"""Watching the solver in a real browser: live counters, outcome, playback, cancel, close."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import process_gone, serving, wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def solver_server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("solver"), SOLVE_ORPHAN_GRACE="1") as running:
        yield running


def stat(page, name: str) -> int:
    return int(page.locator(f"#stat-{name}").inner_text().replace(",", ""))


def start_solve(page, url: str, algorithm: str) -> None:
    page.goto(url)
    page.select_option("select[name=algorithm]", algorithm)
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-state", "running", timeout=15_000)


def test_watch_a_solve_live_then_play_its_solution_back_to_solved(page, solver_server):
    # Breadth-first search takes about 5 s on Microban 150 (205 k positions): long enough to
    # see the counters move on a fast machine (140 took 0.7 s, sometimes one sample), and its
    # 175 moves play back at 20 a second in under 10 s.
    start_solve(page, solver_server.url + "/sokoban/microban/150", "bfs")
    seen = set()
    while page.locator("#solve-status").get_attribute("data-state") == "running":
        seen.add(stat(page, "expanded"))
        page.wait_for_timeout(100)
    assert len(seen - {0}) >= 2, f"the counters did not move while searching: {seen}"
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved")
    expect(page.locator("#solve-status")).to_contain_text("optimal in pushes")
    total = int(page.locator("#playback-pos").inner_text().split(" of ")[1])
    assert total > 0
    # Step, then play at top speed to the end: the playback board ends solved.
    page.locator("#playback button[title='Step forward']").click()
    expect(page.locator("#playback-pos")).to_have_text(f"move 1 of {total}")
    page.locator("#playback button[title='Step back']").click()
    expect(page.locator("#playback-pos")).to_have_text(f"move 0 of {total}")
    page.select_option("#playback select[name=speed]", "20")
    page.wait_for_timeout(300)
    # The speed lives on the server: a reconnect (here, a reload) shows it again.
    page.reload()
    expect(page.locator("#playback select[name=speed]")).to_have_value("20")
    expect(page.locator("#playback-pos")).to_have_text(f"move 0 of {total}")
    page.locator("#play-button").click()
    expect(page.locator("#pause-button")).to_be_visible()
    expect(page.locator("#playback-pos")).to_have_text(f"move {total} of {total}", timeout=30_000)
    boxes = page.locator("#solve-board .box")
    assert boxes.count() == page.locator("#solve-board .box.goal").count() > 0
    # Use the solution: the player's own board is solved, and it can be undone.
    page.locator("#use-solution").click()
    expect(page.locator("#solved")).to_be_visible()
    page.keyboard.press("u")
    expect(page.locator("#solved")).to_have_count(0)


def test_cancel_a_long_solve_and_its_process_is_gone(page, solver_server):
    start_solve(page, solver_server.url + "/sokoban/xsokoban/5", "bfs")
    expect(page.locator("#solve-status")).not_to_have_attribute("data-pid", "")
    pid = int(page.locator("#solve-status").get_attribute("data-pid"))
    assert not process_gone(pid)
    page.locator("#solve-status button.cancel").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "cancelled")
    assert wait_until(lambda: process_gone(pid), 10)


def test_closing_the_page_mid_solve_stops_the_process(browser, solver_server):
    context = browser.new_context()
    page = context.new_page()
    start_solve(page, solver_server.url + "/sokoban/xsokoban/5", "bfs")
    expect(page.locator("#solve-status")).not_to_have_attribute("data-pid", "")
    pid = int(page.locator("#solve-status").get_attribute("data-pid"))
    context.close()
    assert wait_until(lambda: process_gone(pid), 15)


def test_a_second_solve_on_the_same_board_is_refused_politely(page, solver_server):
    start_solve(page, solver_server.url + "/sokoban/xsokoban/6", "bfs")
    page.locator("#solve-button").click()
    expect(page.locator("#solver .notice")).to_contain_text("already working on this board")
    page.locator("#solve-status button.cancel").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "cancelled")


def test_hint_gives_the_next_move(page, solver_server):
    page.goto(solver_server.url + "/sokoban/first-steps/1")
    page.locator("#hint-button").click()
    expect(page.locator("#hint")).to_have_text("Next move: push right (R)", timeout=15_000)


def test_a_quiet_finished_solve_frees_its_socket_and_playback_picks_it_up_again(page, tmp_path):
    with serving(tmp_path, SOCKET_IDLE_SECONDS="1") as server:
        page.goto(server.url + "/sokoban/microban/2")
        page.select_option("select[name=algorithm]", "bfs")
        page.locator("#solve-button").click()
        expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved")
        total = int(page.locator("#playback-pos").inner_text().split(" of ")[1])
        # Nothing played for a second: the server closes the socket and the page says so.
        expect(page.locator("#live-note")).to_contain_text("picks it up again", timeout=10_000)
        page.locator("#playback button[title='Step forward']").click()
        expect(page.locator("#playback-pos")).to_have_text(f"move 1 of {total}")
        expect(page.locator("#live-note")).to_be_empty()
        page.locator("#playback button[title='Step forward']").click()
        expect(page.locator("#playback-pos")).to_have_text(f"move 2 of {total}")
