"""Colour is never the only signal: what tells pieces apart must survive a greyscale screen
(screenshots converted with Pillow), and Vexed's colours each carry their own symbol."""

from __future__ import annotations

import re
from io import BytesIO

import pytest
from PIL import Image, ImageChops, ImageStat
from playwright.sync_api import expect

from webapp.games import get

pytestmark = pytest.mark.browser


def grey(locator) -> Image.Image:
    return Image.open(BytesIO(locator.screenshot(animations="disabled"))).convert("L")


def apart(a: Image.Image, b: Image.Image) -> float:
    """The mean difference of two greyscale pictures, 0 (the same) to 255."""
    return ImageStat.Stat(ImageChops.difference(a, b.resize(a.size))).mean[0]


def cell(page, where: str):
    return page.locator(f'#play .board [data-cell="{where}"]')


def test_the_player_on_a_goal_shows_the_goal_in_greyscale(page, live_server):
    # Microban 40 starts with the player on one of its three goals.
    page.goto(live_server.url + "/sokoban/microban/40")
    expect(cell(page, "4,3")).to_have_class("cell floor goal player")
    on_goal = grey(cell(page, "4,3"))
    page.keyboard.press("ArrowUp")
    expect(cell(page, "3,3")).to_have_class("cell floor player")
    on_floor = grey(cell(page, "3,3"))
    assert apart(on_goal, on_floor) > 12


def test_a_box_on_a_goal_differs_from_a_box_in_greyscale(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1")
    expect(cell(page, "3,1")).to_have_class("cell floor goal box")
    expect(cell(page, "4,3")).to_have_class("cell floor box")
    assert apart(grey(cell(page, "3,1")), grey(cell(page, "4,3"))) > 12


def test_every_vexed_colour_has_its_own_symbol(page, live_server):
    symbols = get("vexed").symbols
    assert len({glyph for glyph, _ in symbols.values()}) == len(symbols) == 26
    assert len({name for _, name in symbols.values()}) == 26
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    seen: dict[str, str] = {}
    for block in page.locator("#play .vexed .block").all():
        colour = next(c for c in block.get_attribute("class").split() if c.startswith("c-"))
        glyph = block.locator(".symbol").text_content()
        assert glyph == symbols[colour[2:]][0]
        assert seen.setdefault(colour, glyph) == glyph
    assert len(seen) == len(set(seen.values())) >= 3


def test_a_selected_vexed_block_shows_in_greyscale(page, live_server):
    page.goto(live_server.url + "/vexed/childrens-pack/1")
    block = cell(page, "4,1")
    before = grey(block)
    block.click()
    expect(block).to_have_class("cell block c-e selected")
    assert apart(before, grey(block)) > 12
    beside = cell(page, "4,2")
    expect(beside).to_have_class("cell empty beside")
    assert apart(grey(beside), grey(cell(page, "2,5"))) > 12


def test_a_selected_piece_and_where_it_can_go_show_in_greyscale(page, live_server):
    page.goto(live_server.url + "/blocks/workshop/1")
    expect(page.locator("#left-path_moves")).to_have_text("6", timeout=15_000)
    # The open floor squares (no piece on them), as they look with nothing selected.
    open_squares = page.evaluate("""() => Array.from(
        document.querySelectorAll('#play .blocks .cell.floor')).filter((c) => {
            const b = c.getBoundingClientRect();
            return document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2) === c;
        }).map((c) => c.dataset.cell)""")
    before_squares = {where: grey(cell(page, where)) for where in open_squares}
    piece = page.locator('#play .piece[data-cell="2,0"]')
    before = grey(piece)
    piece.click()
    expect(piece).to_have_class(re.compile(r"\bselected\b"))
    assert apart(before, grey(piece)) > 12
    # Where the piece can go is marked, by a pattern and not a colour.
    reachable = [w for w in open_squares if "reach" in cell(page, w).get_attribute("class")]
    assert reachable, open_squares
    for where in reachable:
        assert apart(before_squares[where], grey(cell(page, where))) > 8
