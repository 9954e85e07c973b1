"""Every board fits the screen: the page's width and the height under the header, at 1280×900
and on a 390×844 phone, as large as the room allows (up to the game's own size), reflowing
when the window changes; the solver's playback board is drawn at the game board's scale."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import LEVELS
from webapp.games import get

pytestmark = pytest.mark.browser

SOKOBAN = get("sokoban")
SIZES = [(1280, 900), (390, 844)]
#: The widest boards shipped: Microban 155 (30×17), Microban II 135 (47×41), XSokoban 50.
LARGE = [
    ("microban", "microban.xsb", 155),
    ("microban2", "microban2.xsb", 135),
    ("xsokoban", "xsokoban.xsb", 50),
]


def measure(page) -> dict:
    return page.evaluate("""() => {
        const board = document.querySelector('#play .board').getBoundingClientRect();
        const cell = document.querySelector('#play .board .cell').getBoundingClientRect();
        const header = document.querySelector('body > header').getBoundingClientRect();
        const top = board.top + window.scrollY;
        const room = document.querySelector('.level-page').clientWidth;
        return {left: board.left, right: board.right, width: board.width, height: board.height,
                cell: cell.width, cellHeight: cell.height, header: header.height, room: room,
                top: top,
                viewWidth: document.documentElement.clientWidth, viewHeight: window.innerHeight,
                scrollWidth: document.documentElement.scrollWidth};
    }""")


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize(("slug", "filename", "number"), LARGE)
def test_the_largest_boards_fit_the_screen(
    browser, live_server, width, height, slug, filename, number
):
    level = SOKOBAN.parse((LEVELS / "sokoban" / filename).read_text())[number - 1]
    touch = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/sokoban/{slug}/{number}")
        box = measure(page)
        # Inside the page's width, and no taller than the screen under the header: scrolled to,
        # the whole board is in view at once.
        assert box["left"] >= 0 and box["right"] <= box["viewWidth"], box
        assert box["scrollWidth"] <= box["viewWidth"], box
        assert box["height"] <= box["viewHeight"] - box["header"], box
        inside = page.evaluate("""() => {
            const board = document.querySelector('#play .board');
            board.scrollIntoView({block: 'start'});
            const b = board.getBoundingClientRect();
            return b.top >= 0 && b.bottom <= window.innerHeight
                && b.left >= 0 && b.right <= window.innerWidth;
        }""")
        assert inside
        assert box["cell"] == box["cellHeight"]
        # As the page opens, the whole board is in view: it fits between its own top (under
        # the title and counters) and the foot of the screen.
        assert box["top"] + box["height"] <= box["viewHeight"], box
        # As large as fits (up to 44 px), so at least 12 px wherever 12 px squares can fit at all.
        # (Microban II 135 is 47 squares wide: on a 390 px phone no square larger than 7 px fits.)
        under = max(160, box["viewHeight"] - max(box["header"], box["top"]) - 16)
        fits = min(44, box["room"] // level.width, int(under) // level.height)
        assert box["cell"] == fits, (box, fits)
        if level.width * 12 <= box["room"]:
            assert box["cell"] >= 12
    finally:
        context.close()


def test_a_board_reflows_when_the_window_turns(page, live_server):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + "/sokoban/microban/155")
    assert measure(page)["cell"] == 31
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#play .board .cell").first).to_have_css("width", "12px")
    box = measure(page)
    assert box["right"] <= box["viewWidth"]
    # Turned sideways: now the height under the header limits the board.
    page.set_viewport_size({"width": 844, "height": 390})
    box = measure(page)
    assert box["height"] <= 390 - box["header"] and box["right"] <= 844, box


@pytest.mark.parametrize(
    ("path", "width", "height"),
    [
        ("/sokoban/microban/1", 1280, 900),
        ("/blocks/workshop/1", 1280, 900),
        ("/sliding/warm-up/1", 1280, 900),
        ("/vexed/childrens-pack/2", 1280, 900),
        ("/sliding/large/1", 390, 844),  # as wide as the phone
    ],
)
def test_the_playback_board_is_the_game_board_at_the_same_scale(
    page, live_server, path, width, height
):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(live_server.url + path)
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=30_000)
    sizes = page.evaluate("""() => [
        document.querySelector('#play .board').getBoundingClientRect(),
        document.querySelector('#solve-board .board').getBoundingClientRect()]
        .map((b) => [Math.round(b.width), Math.round(b.height)])""")
    assert sizes[0] == sizes[1], sizes
    # Nor does the panel scroll sideways to show it.
    assert page.evaluate(
        "(() => { const b = document.getElementById('solve-board');"
        " return b.scrollWidth <= b.clientWidth; })()"
    )


#: The widest board of each other game: Vexed (12 columns), sliding blocks, the 8×8 puzzle.
OTHERS = ["/vexed/classic-levels/59", "/blocks/workshop/3", "/sliding/large/5"]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("path", OTHERS)
def test_every_games_widest_board_fits(browser, live_server, width, height, path):
    touch = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + path)
        box = measure(page)
        assert box["left"] >= 0 and box["right"] <= box["viewWidth"], box
        assert box["height"] <= box["viewHeight"] - box["header"], box
        assert box["scrollWidth"] <= box["viewWidth"], box
        assert box["cell"] >= 12, box
    finally:
        context.close()
