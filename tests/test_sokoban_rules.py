"""Sokoban rules and level formats, on real levels and on each kind of malformed level."""

from __future__ import annotations

import csv

import pytest

from tests.conftest import DATA, LEVELS
from webapp.games import get
from webapp.games.base import IllegalMove, LevelError, MoveError
from webapp.games.sokoban import walk
from webapp.games.sokoban.level import MAX_SIDE

GAME = get("sokoban")
SOKOBAN = LEVELS / "sokoban"


def one(text: str):
    (level,) = GAME.parse(text)
    return level


def error_of(text: str) -> LevelError:
    with pytest.raises(LevelError) as caught:
        GAME.parse(text)
    return caught.value


@pytest.mark.parametrize(
    ("name", "count"),
    [("microban", 155), ("microban2", 135), ("xsokoban", 90), ("boxoban-hard", 300)],
)
def test_every_benchmark_collection_loads_with_titles(name, count):
    levels = GAME.parse((SOKOBAN / f"{name}.xsb").read_text())
    assert len(levels) == count
    assert all(len(level.boxes) == len(level.goals) >= 1 for level in levels)
    assert all(level.title for level in levels)


def test_measured_solutions_replay_to_solved_with_their_counts():
    levels = GAME.parse((SOKOBAN / "microban.xsb").read_text())
    rows = list(csv.DictReader((DATA / "microban_bfs_moves_measured.csv").open()))
    assert len(rows) == 55
    for row in rows:
        level = levels[int(row["level"]) - 1]
        tokens = GAME.split_moves(row["lurd"])
        assert GAME.is_solved(level, GAME.replay(level, tokens)), row["level"]
        figures = GAME.count(level, tokens)
        assert figures == {
            "moves": int(row["moves"]),
            "pushes": int(row["pushes_of_this_solution"]),
        }


XSB = "#####\n#@$.#\n#####"


def test_the_three_dialects_and_rle_read_the_same_board():
    xsb = one(XSB)
    assert one("#####\n#@OX#\n#####").boxes == xsb.boxes
    assert one("11111\n14321\n11111") == one("11111\n14321\n11111")
    for other in ("#####\n#@OX#\n#####", "11111\n14321\n11111", "5#|#@$.#|5#", "5#\n#@$.#\n5#"):
        level = one(other)
        assert GAME.board_text(level) == GAME.board_text(xsb), other
    assert one("#####\n#@OX#\n#####").dialect == "letters"
    assert one("11111\n14321\n11111").dialect == "digits"


def test_floor_dashes_and_ragged_rows_and_goal_squares():
    level = one("  ####\n###--#\n#+$* #\n#    #\n######")
    assert level.player in level.goals
    assert len(level.boxes) == 2 and len(level.goals) == 2
    # The cells left of the ragged first row are outside, not floor.
    assert 0 not in level.floor and 1 not in level.floor


def test_collections_take_titles_from_title_lines_and_comments():
    text = (
        "; First\n#####\n#@$.#\n#####\n\n"
        "Title: Second\n#####\n#.$@#\n#####\n\n"
        "#####\n#@$.#\n#####\n"
    )
    titles = [level.title for level in GAME.parse(text)]
    assert titles == ["First", "Second", ""]


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("#####\n#@$x#\n#####", 2, 4, "unknown character 'x'"),
        ("#####\n#@$.#\n#@  #\n#####", 3, 2, "a second player"),
        ("#####\n# $.#\n#####", 1, None, "no player"),
        ("#####\n#@ .#\n#####", 1, None, "no box"),
        ("######\n#@$$.#\n######", 1, None, "2 boxes but 1 goal:"),
        ("#####\n#@$. \n#####", 2, 4, "walk off the board"),
        ("#####\n#@$O.#\n#####", 2, 4, "mixes XSB characters"),
    ],
)
def test_malformed_levels_name_line_column_and_fault(text, line, column, words):
    error = error_of(text)
    assert words in str(error)
    assert error.line == line
    if column is not None:
        assert error.column == column
        assert f"line {line}, column {column}" in str(error)


def test_a_board_too_large_names_the_limit():
    side = MAX_SIDE + 1
    rows = ["#" * side] + ["#" + " " * (side - 2) + "#"] * (side - 2) + ["#" * side]
    rows[1] = "#@$." + " " * (side - 5) + "#"
    error = error_of("\n".join(rows))
    assert f"the most a level may have is {MAX_SIDE}" in str(error)


def test_text_with_no_board_is_refused():
    assert "no level found" in str(error_of("hello\nworld"))


def test_pushes_steps_and_refusals():
    level = one("######\n#@$ .#\n#  $.#\n######")
    start = GAME.start(level)
    assert GAME.legal_moves(level, start) == ["R", "d"]
    pushed = GAME.apply(level, start, "R")
    assert pushed.player == start.player + 1 and start.player + 2 in pushed.boxes
    assert GAME.normalize_move(level, start, "r") == "R"
    with pytest.raises(IllegalMove):
        GAME.apply(level, start, "u")  # a wall
    with pytest.raises(IllegalMove):
        GAME.apply(level, start, "D")  # a push with no box
    two = GAME.apply(level, GAME.apply(level, start, "d"), "r")
    with pytest.raises(IllegalMove):
        GAME.apply(level, GAME.apply(level, two, "u"), "R")  # two boxes in a row
    with pytest.raises(MoveError):
        GAME.split_moves("lurdx")


def test_walk_finds_a_shortest_path_around_boxes():
    level = one("#######\n#@ $  #\n#     #\n#.    #\n#######")
    start = GAME.start(level)
    path = walk(level, start, 1 * 7 + 4)
    assert path is not None and len(path) == 5  # around the box: down, 3 right, up
    end = GAME.replay(level, path)
    assert end.player == 1 * 7 + 4 and end.boxes == start.boxes
    assert walk(level, start, 0) is None  # a wall
    assert GAME.click(level, start, 9, 9) == []


def test_level_text_round_trips_with_the_title():
    levels = GAME.parse((SOKOBAN / "microban.xsb").read_text())
    for level in levels[:20]:
        assert GAME.parse(GAME.level_text(level)) == [level]


def test_a_run_length_separator_at_either_end_adds_no_row():
    # Found by the fuzz test: "...#|" read as a board with an empty last row, whose text
    # then read back one row shorter.
    for text in ("5#|#@$.#|5#|", "|5#|#@$.#|5#"):
        level = one(text)
        assert level == one(XSB)
        assert GAME.parse(GAME.level_text(level)) == [level]
