"""The sliding picture puzzle in a real browser: clicks, keys, pictures, the solver."""

from __future__ import annotations

import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.conftest import ROOT
from webapp.games import get
from webapp.games.solving import solve

pytestmark = pytest.mark.browser
GAME = get("sliding")


def test_play_a_3x3_to_solved_by_clicks(page, live_server):
    # Hole in the middle: clicking the runs that lead home solves it.
    page.goto(live_server.url + "/sliding/p/3x3-123405786")
    expect(page.locator("#play .sliding .tile")).to_have_count(8)
    page.locator('#play [data-cell="1,2"]').click()  # the 6 slides left
    expect(page.locator("#count-moves")).to_have_text("1")
    page.locator('#play [data-cell="2,2"]').click()  # then the 6 slides up, home
    expect(page.locator("#count-moves")).to_have_text("2")
    expect(page.locator("#solved")).to_be_visible()


def test_play_a_3x3_to_solved_by_keys_with_an_optimal_solution(page, live_server):
    level = GAME.from_code("3x3-413726580")
    moves = solve(GAME, level, "pdb").moves
    keys = {"L": "ArrowLeft", "R": "ArrowRight", "U": "ArrowUp", "D": "ArrowDown"}
    page.goto(live_server.url + "/sliding/p/3x3-413726580")
    for move in moves:
        page.keyboard.press(keys[move])
    expect(page.locator("#count-moves")).to_have_text(str(len(moves)))
    expect(page.locator("#solved")).to_be_visible()


def test_a_click_slides_a_whole_run(page, live_server):
    page.goto(live_server.url + "/sliding/p/3x3-120453786")  # the hole top right
    page.locator('#play [data-cell="2,2"]').click()  # the 3 and the 6 slide up at once
    expect(page.locator("#count-moves")).to_have_text("2")
    expect(page.locator('#play [data-cell="2,2"]')).to_have_class("cell hole")
    expect(page.locator("#solved")).to_be_visible()


def test_upload_a_picture_and_see_it_on_the_tiles(page, live_server, tmp_path):
    picture = tmp_path / "me.png"
    Image.new("RGB", (600, 600), (10, 200, 30)).save(picture)
    page.goto(live_server.url + "/sliding/warm-up/3")
    page.locator("input[name=picture][type=file]").set_input_files(str(picture))
    page.locator("#upload-picture").click()
    expect(page).to_have_url(re.compile(r"/sliding/warm-up/3\?picture=[0-9a-f]{24}$"))
    # The URL changes when the new page commits; its deferred scripts (the key handler) run
    # later. Wait for them, or a key pressed on a loaded machine can go unheard.
    page.wait_for_load_state("load")
    style = page.locator("#play .sliding").get_attribute("style")
    assert "/pictures/" in style
    colour = page.evaluate("""() => new Promise((done) => {
        const img = new Image();
        img.onload = () => { const c = document.createElement('canvas'); c.width = 1; c.height = 1;
            c.getContext('2d').drawImage(img, 0, 0, 1, 1);
            done(Array.from(c.getContext('2d').getImageData(0, 0, 1, 1).data).slice(0, 3)); };
        const tile = document.querySelector('#play .tile');
        img.src = getComputedStyle(tile).backgroundImage.slice(5, -2);
    })""")
    assert colour[1] > 150 and colour[0] < 60  # the green of the uploaded picture
    # Moves keep the picture (the hole is in the right-hand column: a tile slides right).
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    assert "/pictures/" in page.locator("#play .sliding").get_attribute("style")


def test_upload_a_non_image_and_see_the_message(page, live_server, tmp_path):
    fake = tmp_path / "holiday.jpg"
    fake.write_text("this is not a picture at all")
    page.goto(live_server.url + "/sliding/warm-up/2")
    page.locator("input[name=picture][type=file]").set_input_files(str(fake))
    page.locator("#upload-picture").click()
    # Back on the puzzle, not a dead end: the board, and the reason beside it.
    expect(page.locator("#play .notice")).to_contain_text("not a picture we can read")
    expect(page.locator("#play .board")).to_be_visible()


def test_watch_a_solve_and_its_playback(page, live_server):
    page.goto(live_server.url + "/sliding/warm-up/8")
    page.select_option("select[name=algorithm]", "idastar")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=20_000)
    expect(page.locator("#solve-status")).to_contain_text("optimal in moves")
    total = int(page.locator("#playback-pos").inner_text().split(" of ")[1])
    level = GAME.parse((ROOT / "levels" / "sliding" / "warm-up.txt").read_text())[7]
    assert total == level.known_optimal
    page.locator("#playback button[title='To the end']").click()
    expect(page.locator("#solve-board .tile.home")).to_have_count(8)
