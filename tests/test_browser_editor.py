"""The level editor in Chromium, as a designer uses it: drawn with the mouse, the keyboard
alone and a finger alone; the solver's verdict as they draw; test-play, save and share."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import serving
from webapp import games
from webapp.core import catalog

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: Milliseconds a verdict may take to show: a solver child's first start readies its
#: compiled code, and the machine may be busy.
VERDICT_WAIT = 30_000
SOKOBAN = games.get("sokoban")


@pytest.fixture(scope="module")
def edit_server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("edit"), GAME_PACKAGES="tests.tinygame") as running:
        yield running


def cell(page, row: int, column: int):
    return page.locator(f'#edit-board [data-cell="{row},{column}"]')


def tool(page, label: str) -> None:
    page.locator("#palette [data-tool]", has_text=label).first.click()


def paint(page, label: str, *squares: tuple[int, int]) -> None:
    tool(page, label)
    for row, column in squares:
        cell(page, row, column).click()


def verdict(page):
    return page.locator("#verdict .verdict-head")


def new_board(page, server, game: str, rows: int, cols: int) -> None:
    page.goto(f"{server.url}/{game}/edit")
    page.locator("#edit-rows").fill(str(rows))
    page.locator("#edit-cols").fill(str(cols))
    page.get_by_role("button", name="New empty board").click()
    expect(page.locator("#edit-board .cell")).to_have_count(rows * cols)


def test_a_sokoban_level_drawn_checked_test_played_saved_and_shared(page, browser, edit_server):
    new_board(page, edit_server, "sokoban", 6, 7)  # a walled room, floor inside
    paint(page, "Player", (2, 2))
    expect(page.locator("#edit-errors")).to_contain_text("no box")  # not a level yet
    paint(page, "Box", (3, 3))
    expect(page.locator("#edit-errors")).to_contain_text("0 goals")
    paint(page, "Goal", (3, 4))
    expect(verdict(page)).to_have_text("Solvable — optimal 1 push", timeout=VERDICT_WAIT)
    expect(page.locator("#edit-errors li")).to_have_count(0)
    # The squares a box could never leave are shaded while drawing: the room's corners.
    expect(cell(page, 1, 1)).to_have_class(re.compile(r"\bedit-dead\b"))
    expect(cell(page, 3, 3)).not_to_have_class(re.compile(r"\bedit-dead\b"))

    # One box into a corner: unsolvable, and that box is marked.
    paint(page, "Erase", (3, 3))
    paint(page, "Box", (1, 1))
    expect(verdict(page)).to_contain_text("Unsolvable", timeout=VERDICT_WAIT)
    expect(verdict(page)).to_contain_text("no goal can be reached", timeout=VERDICT_WAIT)
    expect(cell(page, 1, 1)).to_have_class(re.compile(r"\bedit-flag\b"))
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").click()
    expect(verdict(page)).to_have_text("Solvable — optimal 1 push", timeout=VERDICT_WAIT)
    expect(cell(page, 1, 1)).not_to_have_class(re.compile(r"\bedit-flag\b"))

    # The solver's solution played back, and back to the draft.
    page.get_by_role("button", name="Watch the solution").click()
    expect(page).to_have_url(re.compile(r"/sokoban/custom/\w+\?edited=1&moves=dR$"))
    expect(page.locator("#back-to-editor")).to_be_visible()
    page.locator("#back-to-editor").click()
    expect(verdict(page)).to_have_text("Solvable — optimal 1 push", timeout=VERDICT_WAIT)

    # Test-play to a win, and back to the draft.
    page.get_by_role("button", name="Test-play").click()
    expect(page).to_have_url(re.compile(r"/sokoban/custom/\w+\?edited=1$"))
    page.wait_for_load_state()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#solved")).to_be_visible()
    page.locator("#back-to-editor").click()
    expect(cell(page, 3, 3)).to_have_class(re.compile(r"\bbox\b"))
    expect(cell(page, 2, 2)).to_have_class(re.compile(r"\bplayer\b"))

    # Saved with a title and an author; another player opens its address.
    page.locator("#field-title").fill("First push")
    page.locator("#field-title").press("Tab")
    page.locator("#edit-author").fill("Ann Designer")
    page.get_by_role("button", name="Save and share").click()
    expect(page).to_have_url(re.compile(r"/sokoban/custom/\w+$"))
    address = page.url
    text = "Title: First push\n#######\n#     #\n# @   #\n#  $. #\n#     #\n#######"
    level = SOKOBAN.parse(text)[0]
    assert address.endswith("/sokoban/custom/" + catalog.content_id(SOKOBAN, level))
    expect(page.locator("h1")).to_have_text("First push")
    expect(page.locator("#level-author")).to_have_text("Made by Ann Designer")
    page.goto(edit_server.url + "/sokoban/")
    expect(page.locator("#your-levels")).to_contain_text("First push")

    other = browser.new_context()
    try:
        stranger = other.new_page()
        stranger.goto(address)
        expect(stranger.locator("h1")).to_have_text("First push")
        expect(stranger.locator("#play .board .cell.box")).to_have_count(1)
        stranger.goto(edit_server.url + "/sokoban/")
        expect(stranger.locator("#your-levels")).to_have_count(0)  # theirs, not the designer's
    finally:
        other.close()


def test_the_whole_sokoban_edit_by_keyboard_alone(page, edit_server):
    page.goto(edit_server.url + "/sokoban/edit")
    board = page.locator("#edit-board")
    board.focus()
    keys = page.keyboard

    def go(row: int, column: int) -> None:
        where = page.locator("#edit-where").inner_text()
        at_row, at_col = map(int, re.search(r"row (\d+), column (\d+)", where).groups())
        for _ in range(abs(row + 1 - at_row)):
            keys.press("ArrowDown" if row + 1 > at_row else "ArrowUp")
        for _ in range(abs(column + 1 - at_col)):
            keys.press("ArrowRight" if column + 1 > at_col else "ArrowLeft")
        expect(page.locator("#edit-where")).to_contain_text(f"row {row + 1}, column {column + 1}")

    keys.press("p")
    go(2, 2)
    keys.press("Space")
    keys.press("b")
    go(2, 3)
    keys.press("Space")
    keys.press("g")
    go(2, 5)
    keys.press("Space")
    expect(verdict(page)).to_have_text("Solvable — optimal 2 pushes", timeout=VERDICT_WAIT)
    keys.press("Control+z")  # the goal taken back...
    expect(cell(page, 2, 5)).not_to_have_class(re.compile(r"\bgoal\b"))
    keys.press("Control+y")  # ... and put back
    expect(cell(page, 2, 5)).to_have_class(re.compile(r"\bgoal\b"))
    expect(verdict(page)).to_have_text("Solvable — optimal 2 pushes", timeout=VERDICT_WAIT)
    keys.press("t")  # test-play
    expect(page).to_have_url(re.compile(r"/sokoban/custom/\w+\?edited=1$"))
    page.wait_for_load_state()
    keys.press("ArrowRight")
    keys.press("ArrowRight")
    expect(page.locator("#solved")).to_be_visible()


def test_drawn_by_touch_alone_on_a_phone(browser, edit_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(edit_server.url + "/sokoban/edit")
        page.locator("#edit-board .cell").first.wait_for()
        for label, square in (("Player", (2, 2)), ("Box", (3, 3)), ("Goal", (3, 4))):
            page.locator("#palette [data-tool]", has_text=label).first.tap()
            cell(page, *square).scroll_into_view_if_needed()
            cell(page, *square).tap()
        # A finger drawn across the board paints walls and never scrolls the page.
        page.locator("#palette [data-tool]", has_text="Wall").first.tap()
        scroll = page.evaluate("window.scrollY")
        cdp = page.context.new_cdp_session(page)
        start, end = cell(page, 5, 1).bounding_box(), cell(page, 5, 3).bounding_box()
        y = start["y"] + start["height"] / 2
        x0, x1 = start["x"] + start["width"] / 2, end["x"] + end["width"] / 2
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]}
        )
        for step in range(1, 7):
            point = {"x": x0 + (x1 - x0) * step / 6, "y": y}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        for column in (1, 2, 3):
            expect(cell(page, 5, column)).to_have_class(re.compile(r"\bwall\b"))
        assert page.evaluate("window.scrollY") == scroll
        expect(verdict(page)).to_have_text("Solvable — optimal 1 push", timeout=VERDICT_WAIT)
        page.screenshot(path=str(edit_server.instance.parent / "editor-phone.png"), full_page=True)
        page.get_by_role("button", name="Test-play").tap()
        expect(page).to_have_url(re.compile(r"/sokoban/custom/\w+\?edited=1$"))
    finally:
        context.close()
    assert not errors, errors


def test_a_vexed_level_with_a_lone_colour_is_unsolvable_with_that_reason(page, edit_server):
    new_board(page, edit_server, "vexed", 5, 6)
    paint(page, "Circle", (3, 1), (3, 3))
    expect(verdict(page)).to_contain_text("Solvable — optimal", timeout=VERDICT_WAIT)
    paint(page, "Triangle", (3, 4))
    expect(verdict(page)).to_contain_text("Unsolvable", timeout=VERDICT_WAIT)
    expect(verdict(page)).to_contain_text("only one block", timeout=VERDICT_WAIT)
    expect(cell(page, 3, 4)).to_have_class(re.compile(r"\bedit-flag\b"))


def test_a_klotski_layout_is_designed_and_verified(page, edit_server):
    new_board(page, edit_server, "blocks", 3, 3)
    page.locator("#edit-piece").select_option("A")
    paint(page, "Piece", (0, 0))
    page.locator("#edit-piece").select_option("B")
    paint(page, "Piece", (0, 1), (0, 2))  # a piece two wide, painted to its size
    page.locator("#field-goal_row").fill("3")
    page.locator("#field-goal_row").press("Tab")
    page.locator("#field-goal_col").fill("3")
    page.locator("#field-goal_col").press("Tab")
    expect(verdict(page)).to_contain_text("Solvable — optimal", timeout=VERDICT_WAIT)
    # A piece that is no rectangle is named at its square.
    paint(page, "Piece", (1, 1))
    expect(page.locator("#edit-errors")).to_contain_text("not a filled rectangle")
    expect(page.locator("#edit-board .edit-error")).to_have_count(1)
    paint(page, "Remove piece", (0, 1))  # the whole piece B goes
    for square in ((0, 1), (0, 2), (1, 1)):
        expect(cell(page, *square)).not_to_have_class(re.compile(r"edit-piece"))
    expect(verdict(page)).to_contain_text("Solvable — optimal", timeout=VERDICT_WAIT)


def test_a_sliding_puzzle_position_is_designed_and_verified(page, edit_server):
    new_board(page, edit_server, "sliding", 2, 3)  # solved: 1 2 3 / 4 5 hole
    expect(verdict(page)).to_have_text("Solvable — optimal 0 moves", timeout=VERDICT_WAIT)
    # A drag from a tile to the hole trades them: one move from solved.
    source, target = cell(page, 1, 1).bounding_box(), cell(page, 1, 2).bounding_box()
    page.mouse.move(source["x"] + 10, source["y"] + 10)
    page.mouse.down()
    page.mouse.move(target["x"] + 10, target["y"] + 10, steps=4)
    page.mouse.up()
    expect(cell(page, 1, 2)).to_have_text("5")
    expect(verdict(page)).to_have_text("Solvable — optimal 1 move", timeout=VERDICT_WAIT)
    # Two clicks trade two tiles: the parity no move can undo.
    cell(page, 0, 0).click()
    cell(page, 0, 1).click()
    expect(cell(page, 0, 0)).to_have_text("2")
    expect(verdict(page)).to_contain_text("Unsolvable", timeout=VERDICT_WAIT)
    expect(verdict(page)).to_contain_text("cannot be solved", timeout=VERDICT_WAIT)


def test_edit_a_copy_of_microban_1_opens_it_unchanged(page, edit_server):
    page.goto(edit_server.url + "/sokoban/microban/1")
    page.locator("#edit-copy").click()
    expect(page).to_have_url(re.compile(r"/sokoban/edit\?from="))
    microban_1 = catalog.collection("sokoban", "microban").levels[0]
    expect(page.locator("#field-title")).to_have_value(re.compile(r"\S"))
    expect(verdict(page)).to_contain_text("Solvable", timeout=VERDICT_WAIT)
    page.get_by_role("button", name="Test-play").click()
    expect(page).to_have_url(re.compile(r"/sokoban/custom/(\w+)\?edited=1$"))
    assert "/custom/" + catalog.content_id(SOKOBAN, microban_1) + "?" in page.url


def test_a_fifth_game_gets_an_editor_from_its_own_hooks(page, edit_server):
    page.goto(edit_server.url + "/hop/edit")
    paint(page, "Hopper", (0, 1))
    paint(page, "Flag", (0, 6))
    expect(verdict(page)).to_have_text("Solvable — optimal 5 moves", timeout=VERDICT_WAIT)
    paint(page, "Wall", (0, 4))
    expect(verdict(page)).to_contain_text("Unsolvable", timeout=VERDICT_WAIT)


def test_rotate_flip_swap_trim_resize_undo_and_redo(page, edit_server):
    new_board(page, edit_server, "sokoban", 5, 6)
    paint(page, "Player", (1, 1))
    paint(page, "Box", (1, 2))
    paint(page, "Goal", (2, 3))

    def at(row: int, column: int, kind: str) -> None:
        expect(cell(page, row, column)).to_have_class(re.compile(rf"\b{kind}\b"))

    page.get_by_role("button", name="Rotate ↻").click()  # (r, c) -> (c, 4 - r): 6 x 5 now
    expect(page.locator("#edit-board .cell")).to_have_count(30)
    at(1, 3, "player")
    at(2, 3, "box")
    at(3, 2, "goal")
    page.get_by_role("button", name="Flip ↔").click()  # (r, c) -> (r, 4 - c)
    at(1, 1, "player")
    page.get_by_role("button", name="Flip ↕").click()  # (r, c) -> (5 - r, c)
    at(4, 1, "player")
    page.get_by_role("button", name="Boxes ↔ goals").click()
    at(3, 1, "goal")
    at(2, 2, "box")
    page.get_by_role("button", name="Undo").click()
    at(3, 1, "box")
    page.get_by_role("button", name="Redo").click()
    at(3, 1, "goal")
    # The walls of the last column painted over with floor: trim cuts that column off.
    tool(page, "Floor")
    first, last = cell(page, 0, 4).bounding_box(), cell(page, 5, 4).bounding_box()
    page.mouse.move(first["x"] + 5, first["y"] + 5)
    page.mouse.down()
    page.mouse.move(last["x"] + 5, last["y"] + 5, steps=8)
    page.mouse.up()
    page.get_by_role("button", name="Trim the outside").click()
    expect(page.locator("#edit-board .cell")).to_have_count(24)
    page.locator("#edit-cols").fill("7")
    page.get_by_role("button", name="Resize").click()
    expect(page.locator("#edit-board .cell")).to_have_count(42)
    at(4, 1, "player")  # the grid kept its top-left
    page.reload()  # the draft survives a reload, undo history aside
    expect(page.locator("#edit-board .cell")).to_have_count(42)
    at(4, 1, "player")


def test_a_resize_keeps_what_each_game_can_keep(page, edit_server):
    """Vexed keeps the squares inside its solid border, which goes round the new size; a
    Klotski layout keeps its top-left, pieces and all; a sliding board starts solved."""

    def looks(row: int, column: int, kind: str) -> None:
        expect(cell(page, row, column)).to_have_class(re.compile(rf"\b{kind}\b"))

    def resize(rows: int, cols: int) -> None:
        page.locator("#edit-rows").fill(str(rows))
        page.locator("#edit-cols").fill(str(cols))
        page.get_by_role("button", name="Resize").click()
        expect(page.locator("#edit-board .cell")).to_have_count(rows * cols)

    new_board(page, edit_server, "vexed", 5, 6)
    paint(page, "Circle", (3, 1), (3, 3))
    paint(page, "Solid", (2, 2))
    resize(6, 8)
    for square in ((3, 1), (3, 3)):
        looks(*square, "block")
    looks(2, 2, "wall")
    looks(4, 3, "empty")  # the old bottom border, inside now
    looks(3, 5, "empty")  # the old right border
    for square in ((5, 3), (3, 7), (0, 6)):
        looks(*square, "wall")  # the border round the new size
    resize(4, 4)  # smaller: what lies inside the new border is kept
    looks(2, 2, "wall")
    looks(2, 1, "empty")
    looks(3, 2, "wall")

    new_board(page, edit_server, "blocks", 3, 3)
    page.locator("#edit-piece").select_option("B")
    paint(page, "Piece", (0, 0), (0, 1))
    resize(4, 5)
    for square in ((0, 0), (0, 1)):
        looks(*square, "edit-piece")
    expect(cell(page, 3, 4)).not_to_have_class(re.compile(r"edit-piece"))

    new_board(page, edit_server, "sliding", 3, 3)
    cell(page, 2, 1).click()
    cell(page, 2, 2).click()  # two tiles swapped
    resize(4, 4)
    expect(cell(page, 2, 1)).to_have_text("10")
    expect(cell(page, 3, 3)).to_have_text("")


def drag(page, start: tuple[int, int], end: tuple[int, int]) -> None:
    source, target = cell(page, *start).bounding_box(), cell(page, *end).bounding_box()
    page.mouse.move(source["x"] + 5, source["y"] + 5)
    page.mouse.down()
    page.mouse.move(target["x"] + 5, target["y"] + 5, steps=6)
    page.mouse.up()


def test_a_blocks_piece_is_dragged_as_a_rectangle_and_the_next_is_a_new_piece(page, edit_server):
    page.goto(f"{edit_server.url}/blocks/edit")
    page.get_by_role("button", name="New empty board").click()
    expect(page.locator("#edit-board .cell")).to_have_count(20)  # 5 rows, 4 columns
    # The goal is where Klotski has it, drawn on the board, and a 2×2 piece can reach it.
    expect(page.locator("#field-goal_row")).to_have_value("4")
    expect(page.locator("#field-goal_col")).to_have_value("2")
    expect(cell(page, 3, 1)).to_have_class(re.compile(r"\btarget\b"))
    tool(page, "Piece")
    # A diagonal drag from (0, 1) to (1, 2): the whole 2×2 rectangle, not the squares the
    # pointer crossed.
    drag(page, (0, 1), (1, 2))
    for square in ((0, 1), (0, 2), (1, 1), (1, 2)):
        expect(cell(page, *square)).to_have_text("A")
    expect(page.locator("#edit-board .cell", has_text="A")).to_have_count(4)
    # The goal shows the piece's whole shape where it must stand.
    expect(page.locator("#edit-board .cell.target")).to_have_count(4)
    # The next drag draws a new piece.
    expect(page.locator("#edit-piece")).to_have_value("B")
    drag(page, (2, 0), (3, 0))
    expect(cell(page, 2, 0)).to_have_text("B")
    expect(cell(page, 3, 0)).to_have_text("B")
    expect(page.locator("#edit-piece")).to_have_value("C")
    expect(verdict(page)).to_contain_text("Solvable — optimal", timeout=VERDICT_WAIT)


def test_a_blocks_error_names_rows_as_the_editor_numbers_them(page, edit_server):
    new_board(page, edit_server, "blocks", 4, 4)
    page.locator("#edit-piece").select_option("B")
    paint(page, "Piece", (3, 3), (1, 2))  # B in two places
    errors = page.locator("#edit-errors")
    expect(errors).to_contain_text("also at row")
    expect(errors).not_to_contain_text("line")


def test_on_a_phone_the_verdict_is_in_sight_while_drawing(browser, edit_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        new_board(page, edit_server, "sokoban", 6, 7)
        paint(page, "Player", (2, 2))
        paint(page, "Box", (3, 3))
        paint(page, "Goal", (3, 4))
        line = page.locator("#verdict-line")
        expect(line).to_have_text("Solvable — optimal 1 push", timeout=VERDICT_WAIT)
        # Seen from where the board is being drawn, not only far below it.
        cell(page, 3, 4).scroll_into_view_if_needed()
        box = line.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"]
    finally:
        context.close()
