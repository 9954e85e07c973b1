"""A page that feels like a game (issue 33, the browser's half), proved in Chromium at 1280×900
and on a 390×844 touch phone: Vexed's falls shown step by step and pieces that glide, none of it
under reduced motion or with animation off; dark mode that follows the browser; the board and
the live solver in view together on a wide screen; a phone's header, zoom and steady board; the
settings; the level tiles, the copy button and the words for one."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import LEVELS, pinch, recorder, wait_in_page
from webapp.games import get

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
VEXED = get("vexed")
CHILDRENS_1 = VEXED.parse((LEVELS / "vexed" / "01_childrens_pack.txt").read_text())[0]
#: The Workshop's first layout in unit steps (a shortest way), as tests/test_browser_touch.py.
BLOCKS_SOLUTION = ["2,0R", "2,1R", "0,0D", "0,2L", "0,1L", "1,2U", "0,2L", "2,2U", "1,2U", "1,0R"]


@pytest.fixture(params=["desktop", "phone"])
def screen(request, browser):
    """A page at 1280×900, or on a 390×844 touch phone; fails on a script error."""
    phone = request.param == "phone"
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, has_touch=phone, is_mobile=phone
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.phone = phone
    yield page
    context.close()
    assert not errors, errors


# -- Motion ------------------------------------------------------------------------------------

#: Records, on every change of the play area and on every frame, the Vexed board's blocks
#: ("row,column:colour", sorted) whenever they change, and whether a piece was gliding.
RECORD_BOARDS = recorder("""
    window.boards = [];
    window.glided = false;
    const note = () => {
        const blocks = Array.from(document.querySelectorAll('#play .vexed .block'))
            .filter((el) => !el.classList.contains('vanishing'))
            .map((el) => el.dataset.cell + ':'
                + [...el.classList].find((c) => c.startsWith('c-')).slice(2))
            .sort().join(' ');
        if (window.boards[window.boards.length - 1] !== blocks) window.boards.push(blocks);
        // Glides are script animations (not the style sheet's transitions, such as a fade).
        if (document.getAnimations().some((a) => a.constructor === Animation && a.effect
                && a.effect.target && a.effect.target.closest('#play .board'))) {
            window.glided = true;
        }
    };
""")


def blocks_of(board) -> str:
    return " ".join(
        sorted(
            f"{r},{c}:{ch}"
            for r, row in enumerate(board.rows)
            for c, ch in enumerate(row)
            if ch.isalpha()
        )
    )


def slide_vexed_block(page, url: str) -> tuple[list[str], bool]:
    """Children's Pack 1: the block at 1,4 slides right, falls and vanishes with its pair.
    Returns the boards shown, in order, and whether a block glided."""
    page.goto(url + "/vexed/childrens-pack/1")
    page.evaluate(RECORD_BOARDS)
    if page.phone:
        page.locator('#play [data-cell="1,4"]').tap()
        page.locator('#play [data-cell="1,5"]').tap()
    else:
        page.locator('#play [data-cell="1,4"]').click()
        page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    wait_in_page(page, "() => !window.PuzzleLab.hold()")
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    return page.evaluate("window.boards"), page.evaluate("window.glided")


def vexed_frames() -> tuple[str, list[str], str]:
    from webapp.games.vexed import settle_frames

    start = VEXED.start(CHILDRENS_1)
    frames = settle_frames(CHILDRENS_1, start, "1,4>")
    return blocks_of(start), [blocks_of(f) for f in frames[:-1]], blocks_of(frames[-1])


def test_a_vexed_move_shows_its_fall_step_by_step(screen, live_server):
    start, between, settled = vexed_frames()
    assert len(between) >= 2  # the slide, then the fall (then the vanishing)
    boards, glided = slide_vexed_block(screen, live_server.url)
    assert boards[0] == start and boards[-1] == settled, boards
    # Every board in between is shown, in order, before the settled board.
    shown = [board for board in boards if board in between]
    assert shown == between, (boards, between)
    assert boards.index(between[-1]) < len(boards) - 1
    # ... and the blocks glide from square to square rather than jump.
    assert glided


@pytest.mark.parametrize("how", ["reduced-motion", "animation-off"])
def test_no_motion_when_the_system_or_the_player_asks(screen, live_server, how):
    if how == "reduced-motion":
        screen.emulate_media(reduced_motion="reduce")
    else:
        screen.goto(live_server.url + "/")
        screen.evaluate(
            "localStorage.setItem('puzzlelab.settings', JSON.stringify({motion: 'off'}))"
        )
    start, between, settled = vexed_frames()
    boards, glided = slide_vexed_block(screen, live_server.url)
    assert boards == [start, settled], boards
    assert not glided
    # Nor does a box glide, nor a win celebrate.
    screen.goto(live_server.url + "/sliding/p/3x3-123456708")
    screen.evaluate(RECORD_BOARDS)
    screen.keyboard.press("ArrowLeft")
    expect(screen.locator("#solved")).to_be_visible()
    assert not screen.evaluate("window.glided")
    assert screen.locator(".confetti, .celebrate").count() == 0


def test_pieces_glide_and_a_win_is_celebrated(screen, live_server):
    # A push in Sokoban: the box (drawn by the cell's ::after) glides from its old square.
    screen.goto(live_server.url + "/sokoban/microban/1")
    screen.evaluate(RECORD_BOARDS)
    screen.keyboard.press("ArrowDown")
    screen.keyboard.press("ArrowLeft")
    screen.keyboard.press("ArrowUp")  # pushes the box off its goal
    expect(screen.locator("#count-pushes")).to_have_text("1")
    wait_in_page(screen, "window.glided")
    # A one-move sliding puzzle: the tile glides, the board celebrates.
    screen.goto(live_server.url + "/sliding/p/3x3-123456708")
    screen.evaluate(RECORD_BOARDS)
    screen.keyboard.press("ArrowLeft")
    expect(screen.locator("#solved")).to_be_visible()
    wait_in_page(screen, "window.glided")
    expect(screen.locator("#play .board.celebrate, .confetti").first).to_be_attached()


# -- Dark mode ---------------------------------------------------------------------------------


def background(page) -> tuple[int, ...]:
    colour = page.evaluate("getComputedStyle(document.body).backgroundColor")
    return tuple(int(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])


def test_dark_mode_follows_the_browser_and_the_setting(page, live_server):
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme="light")
    page.goto(live_server.url + "/sokoban/microban/1")
    assert sum(background(page)) > 600
    page.emulate_media(color_scheme="dark")
    assert sum(background(page)) < 150
    # The player's own choice, from the header's settings, wins over the browser's.
    page.locator("#settings-button").click()
    expect(page.locator("#settings")).to_be_visible()
    page.locator("#settings input[name=theme][value=light]").check()
    assert sum(background(page)) > 600
    page.locator("#settings-close").click()
    page.reload()
    assert sum(background(page)) > 600  # kept in this browser
    page.locator("#settings-button").click()
    page.locator("#settings input[name=theme][value=auto]").check()
    assert sum(background(page)) < 150


# -- The layout for watching -------------------------------------------------------------------

IN_VIEW = """(selector) => {
    const found = document.querySelector(selector);
    if (!found) return false;
    const box = found.getBoundingClientRect();
    return box.width > 0 && box.top >= 0 && box.left >= 0
        && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
}"""


@pytest.mark.parametrize("path", ["/sokoban/xsokoban/5", "/blocks/classics/1"])
def test_at_1280_the_board_and_the_live_solver_are_both_in_view(page, live_server, path):
    page.set_viewport_size(DESKTOP)
    page.goto(live_server.url + path)
    algorithm = page.locator("#solver select[name=algorithm]")
    # A search that runs for a while, so the panel is caught mid-solve.
    names = algorithm.locator("option").evaluate_all("(options) => options.map((o) => o.value)")
    algorithm.select_option("bfs" if "bfs" in names else names[0])
    page.locator("#solve-button").click()
    # (A tall board's search may be over before it is seen: then its end is checked.)
    state = "running" if "xsokoban" in path else re.compile("running|done")
    expect(page.locator("#solve-status")).to_have_attribute("data-state", state, timeout=20_000)
    # Each in view once the panel has settled (a swap from running to done may be under way).
    for part in ("#play .board", "#solver", "#solve-board .board"):
        page.wait_for_function(IN_VIEW, arg=part, timeout=5_000)
    # Beside each other, the board centred in its column.
    board = page.locator("#play .board").bounding_box()
    panel = page.locator("#solver").bounding_box()
    assert board["x"] + board["width"] <= panel["x"]
    column = page.locator(".level-main").bounding_box()
    middle = column["x"] + column["width"] / 2
    assert abs(board["x"] + board["width"] / 2 - middle) <= 2
    # (Closing the page at the end cancels the solve.)


@pytest.mark.parametrize("screen", ["phone"], indirect=True)
def test_on_a_phone_the_header_is_short_and_the_board_stays_put(screen, live_server):
    screen.goto(live_server.url + "/blocks/workshop/1")
    assert screen.locator("body > header").bounding_box()["height"] <= 56
    expect(screen.locator("#optimum")).to_contain_text("Fewest moves left", timeout=30_000)
    where_on_page = (
        "document.querySelector('#play .board-frame').getBoundingClientRect().top + window.scrollY"
    )
    top = screen.evaluate(where_on_page)
    for done, step in enumerate(BLOCKS_SOLUTION):
        where, direction = step[:-1], step[-1]
        piece = screen.evaluate(
            """(where) => {
                const [r, c] = where.split(',').map(Number);
                return [...document.querySelectorAll('#play .piece')].find((p) => {
                    const [pr, pc] = p.dataset.cell.split(',').map(Number);
                    const [, h, w] = /shape-(\\d+)x(\\d+)/.exec(p.className).map(Number);
                    return r >= pr && r < pr + h && c >= pc && c < pc + w;
                }).dataset.piece;
            }""",
            where,
        )
        screen.locator(f'#play .piece[data-piece="{piece}"]').tap()
        screen.keyboard.press(
            {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight"}[direction]
        )
        expect(screen.locator("#count-steps")).to_have_text(str(done + 1))
    expect(screen.locator("#solved")).to_be_visible()
    # "Your best" has arrived, and the board has not moved for it.
    expect(screen.locator("#play .counter.best")).to_be_visible()
    assert screen.evaluate(where_on_page) == top


def test_two_fingers_zoom_a_big_board_on_a_phone_and_the_page_does_not_scroll(browser, live_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/sokoban/microban2/135")
        before = page.locator("#play .board .cell").first.bounding_box()["width"]
        box = page.locator("#play .board").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        scrolled = page.evaluate("window.scrollY")
        pinch(context, page, x, y, (20, 40, 60, 80, 100))
        after = page.locator("#play .board .cell").first.bounding_box()["width"]
        assert after >= before * 3
        assert page.evaluate("window.scrollY") == scrolled
        # The board stays inside its frame on the screen, and "Fit" shows it whole again.
        frame = page.locator("#play .board-frame").bounding_box()
        assert frame["x"] >= 0 and frame["x"] + frame["width"] <= PHONE["width"]
        page.locator("#play .zoom-reset").tap()
        expect(page.locator("#play .board-frame.zoomed")).to_have_count(0)
    finally:
        context.close()


# -- Settings ----------------------------------------------------------------------------------


def test_settings_are_in_the_header_of_every_page_and_change_the_page(screen, live_server):
    screen.goto(live_server.url + "/")
    expect(screen.locator("#settings-button")).to_be_visible()
    screen.goto(live_server.url + "/sliding/large/5")  # an 8×8 picture
    expect(screen.locator("#play .sliding .number").first).to_be_hidden()
    screen.locator("#settings-button").click()
    screen.locator("#settings input[name=numbers]").check()
    expect(screen.locator("#play .sliding .number").first).to_be_visible()
    expect(screen.locator("#settings input[name=sound]")).not_to_be_checked()  # off by default
    screen.locator("#settings-close").click()
    # Spoilers: the fewest moves left of a sliding-blocks layout go with the setting.
    screen.goto(live_server.url + "/blocks/classics/1")
    expect(screen.locator("#optimum")).to_be_visible()
    screen.locator("#settings-button").click()
    screen.locator("#settings input[name=spoilers]").uncheck()
    screen.locator("#settings-close").click()
    expect(screen.locator("#optimum")).to_be_hidden()
    # Sounds, once chosen, play with the moves (and never break them).
    screen.goto(live_server.url + "/sokoban/microban/1")
    screen.locator("#settings-button").click()
    screen.locator("#settings input[name=sound]").check()
    screen.locator("#settings-close").click()
    screen.locator("h1").click()
    screen.keyboard.press("ArrowDown")
    expect(screen.locator("#count-moves")).to_have_text("1")


def test_the_arrow_keys_follow_the_last_click_and_the_panel_says_so(page, live_server):
    page.set_viewport_size(DESKTOP)
    page.goto(live_server.url + "/sokoban/microban/1")
    page.locator("#solve-button").click()
    expect(page.locator("#solve-status")).to_have_attribute("data-status", "solved", timeout=30_000)
    note = page.locator("#playback-keys")
    page.locator("h1").click()
    expect(note.locator(".keys-game")).to_be_visible()
    page.locator("#solver h2").click()  # not a control, but in the panel
    expect(note.locator(".keys-playback")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#playback-pos")).to_have_text("move 1 of 33")
    expect(page.locator("#solve-board .last-moved")).not_to_have_count(0)  # the move, marked
    expect(page.locator("#count-moves")).to_have_text("0")
    page.locator("#play .board").click(position={"x": 2, "y": 2})  # a wall: no walk
    expect(note.locator(".keys-game")).to_be_visible()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("1")
    page.keyboard.press(".")  # from anywhere
    expect(page.locator("#playback-pos")).to_have_text("move 2 of 33")


# -- The rough edges ---------------------------------------------------------------------------


def test_the_whole_level_tile_is_the_link(screen, live_server):
    screen.goto(live_server.url + "/sokoban/microban/")
    tile = screen.locator(".levels li").nth(6).bounding_box()
    # Far from the number, in the tile's lower right corner.
    x, y = tile["x"] + tile["width"] - 4, tile["y"] + tile["height"] - 4
    if screen.phone:
        screen.touchscreen.tap(x, y)
    else:
        screen.mouse.click(x, y)
    expect(screen).to_have_url(live_server.url + "/sokoban/microban/7")


def test_the_copy_button_copies_the_level_link_and_says_so(browser, live_server):
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/vexed/childrens-pack/3")
        button = page.locator("#play .copy-link")
        expect(button).to_have_text("Copy")
        button.click()
        expect(button).to_have_text("Link copied")
        expect(page.locator("#flash")).to_have_text("Link copied")
        assert page.evaluate("navigator.clipboard.readText()") == (
            live_server.url + "/vexed/childrens-pack/3"
        )
    finally:
        context.close()


def test_one_move_is_one_move_not_one_moves(page, live_server):
    page.goto(live_server.url + "/sliding/p/3x3-123456708")
    page.locator("#solve-button").click()
    status = page.locator("#solve-status")
    expect(status).to_have_attribute("data-status", "solved", timeout=30_000)
    expect(status).to_contain_text(": 1 move —")
    page.locator("h1").click()  # the arrows back to the game
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#solved")).to_contain_text("1 move.")


def test_the_home_page_shows_each_game_and_the_site_can_be_installed(screen, live_server):
    screen.goto(live_server.url + "/")
    expect(screen.locator(".card .game-picture svg")).to_have_count(
        len(screen.locator(".card").all())
    )
    manifest = screen.locator('link[rel="manifest"]').get_attribute("href")
    answer = screen.request.get(live_server.url + manifest)
    assert answer.ok and answer.json()["icons"]
    for icon in answer.json()["icons"]:
        assert screen.request.get(live_server.url + icon["src"]).ok
    # A paste form shows the format with an example that loads.
    for game in ("sokoban", "sliding", "vexed", "blocks"):
        screen.goto(live_server.url + f"/{game}/")
        example = screen.locator("#paste-example pre").inner_text()
        screen.locator(".paste textarea").fill(example)
        screen.locator(".paste button[type=submit]").click()
        expect(screen.locator("#play .board")).to_be_visible()


def test_on_a_phone_the_solver_panel_is_made_for_fingers(browser, live_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/sliding/p/3x3-123456708")
        page.locator("#solve-button").tap()
        expect(page.locator("#solve-status")).to_have_attribute(
            "data-status", "solved", timeout=30_000
        )
        sizes = page.locator("#solver button, #solver select").evaluate_all(
            "(all) => all.filter((el) => el.offsetParent)"
            ".map((el) => [el.textContent.trim(), el.getBoundingClientRect().height])"
        )
        assert sizes and all(height >= 40 for _, height in sizes), sizes
        # A hint is shown for this position only: gone after the move.
        page.locator("#hint-button").tap()
        expect(page.locator("#hint")).not_to_be_empty()
        page.locator("h1").tap()
        page.locator("#play .pad [data-direction=l]").tap()
        expect(page.locator("#solved")).to_be_visible()
        expect(page.locator("#hint")).to_be_empty()
    finally:
        context.close()


#: A Vexed level where a slid block falls two rows and stays (tests/test_browser_feel.py).
LANDING = """Vexed level
title: Landing
--
#######
#a____#
##____#
##___b#
##b__a#
#######
"""


def test_a_vexed_block_stays_selected_where_it_lands(page, live_server):
    page.goto(live_server.url + "/vexed/")
    page.locator(".paste textarea").fill(LANDING)
    page.locator(".paste button[type=submit]").click()
    page.locator('#play [data-cell="1,1"]').click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    wait_in_page(page, "() => !window.PuzzleLab.hold()")
    expect(page.locator('#play [data-cell="3,2"]')).to_have_class(re.compile(r"\bselected\b"))
    page.keyboard.press("ArrowRight")  # the same block, again
    expect(page.locator("#count-moves")).to_have_text("2")


def test_a_replay_link_plays_its_moves_at_a_chosen_speed(page, live_server):
    page.goto(live_server.url + "/sokoban/microban/1?moves=dlUrrr")
    expect(page.locator("#replay-position")).to_have_text("0 of 6")  # a link opens at its start
    page.evaluate("""() => {
        window.positions = [document.getElementById('replay-position').textContent];
        new MutationObserver(() => {
            const shown = document.getElementById('replay-position');
            if (shown && window.positions[window.positions.length - 1] !== shown.textContent) {
                window.positions.push(shown.textContent);
            }
        }).observe(document.querySelector('.level-page'), {childList: true, subtree: true});
    }""")
    page.locator("#replay-speed").select_option("16")
    page.locator("#replay-play").click()
    expect(page.locator("#replay-play")).to_have_text("Pause")
    expect(page.locator("#replay-play")).to_have_text("Play", timeout=15_000)
    assert page.evaluate("window.positions") == [f"{n} of 6" for n in range(7)]
    page.locator("#replay-play").click()  # at the end: from the start
    expect(page.locator("#replay-play")).to_have_text("Play", timeout=15_000)
    assert page.evaluate("window.positions")[-7:] == [f"{n} of 6" for n in range(7)]
    assert page.url.endswith("at=6")
    expect(page.locator("#count-moves")).to_have_text("6")  # the view's own counter


def test_a_chinese_name_never_shows_as_empty_boxes(page, live_server):
    page.goto(live_server.url + "/blocks/classics/1")  # 横刀立马, "Heng Dao Li Ma"
    tofu = page.evaluate("""() => {
        const title = document.querySelector('h1');
        const font = '32px ' + getComputedStyle(title).fontFamily;
        const drawn = (text) => {
            const canvas = document.createElement('canvas');
            canvas.width = canvas.height = 48;
            const pen = canvas.getContext('2d');
            pen.font = font;
            pen.fillText(text, 4, 38);
            return pen.getImageData(0, 0, 48, 48).data.join(',');
        };
        // Each character of the title drawn as a missing glyph would be (a private-use one).
        return [...title.textContent].filter((ch) => ch.trim() && drawn(ch) === drawn('\\ue000'));
    }""")
    assert tofu == []
    # Either way the page names it: in the title, or in its tooltip and the romanised alias.
    title = page.locator("h1")
    assert "横刀立马" in title.text_content() + (title.get_attribute("title") or "")


def test_a_warm_up_puzzle_shows_its_optimal_length_unless_spoilers_are_off(page, live_server):
    page.goto(live_server.url + "/sliding/warm-up/1")
    expect(page.locator("#optimum")).to_have_text("Fewest moves: 4")
    page.locator("#settings-button").click()
    page.locator("#settings input[name=spoilers]").uncheck()
    page.locator("#settings-close").click()
    expect(page.locator("#optimum")).to_be_hidden()


def test_a_key_faster_than_the_motion_ends_it(page, live_server):
    """Each step slowed to 100 s: only the next key can end one."""
    slow = "window.PuzzleSettings.stepMs = () => 100000"
    glides = "document.getAnimations().filter((a) => a.constructor === Animation).length"
    page.goto(live_server.url + "/sokoban/microban/1")
    page.evaluate(slow)
    page.keyboard.press("ArrowDown")
    expect(page.locator("#count-moves")).to_have_text("1")
    wait_in_page(page, f"{glides} > 0")  # the player glides, and would for 100 s
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#count-moves")).to_have_text("2")
    wait_in_page(page, f"{glides} === 0")  # both ended: the board shows where things are
    # Vexed: the falls of a move stop at the next key, which is played at once.
    page.goto(live_server.url + "/vexed/")
    page.locator(".paste textarea").fill(LANDING)
    page.locator(".paste button[type=submit]").click()
    expect(page.locator("#play .vexed")).to_be_visible()  # the level's page, before slowing it
    page.evaluate(slow)
    page.locator('#play [data-cell="1,1"]').click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#count-moves")).to_have_text("1")
    assert page.evaluate("window.PuzzleLab.hold()")
    page.keyboard.press("ArrowRight")  # the same block, where it lands
    expect(page.locator("#count-moves")).to_have_text("2")
