"""Vexed rules, notation and level formats, on the shipped packs."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DATA, ROOT
from webapp.games.base import IllegalMove, LevelError, MoveError
from webapp.games.vexed import GAME, Board, settle_frames
from webapp.games.vexed.compact import Compact
from webapp.games.vexed.level import MAX_SIDE

LEVELS = ROOT / "levels" / "vexed"


def pack(file_name: str):
    return GAME.parse((LEVELS / file_name).read_text(encoding="utf-8"))


def colours(board: Board) -> Counter[str]:
    return Counter(ch for row in board.rows for ch in row if ch.isalpha())


def lesson_2():
    return pack("00_tutorial.txt")[1]


# -- the packs ---------------------------------------------------------------------------------


def test_every_pack_parses_with_the_counts_of_packs_tsv() -> None:
    with open(LEVELS / "packs.tsv", newline="", encoding="utf-8") as index:
        rows = list(csv.DictReader(index, delimiter="\t"))
    assert len(rows) == 49
    total = 0
    for row in rows:
        levels = pack(row["file"])
        assert len(levels) == int(row["levels"]), row["file"]
        for number, level in enumerate(levels, 1):
            assert level.header("pack") == row["pack"]
            assert level.header("level") == str(number)
            assert level.par is not None and level.par >= 1
            assert level.title
        total += len(levels)
    assert total == 2882


def test_shipped_packs_are_the_benchmark_files_unchanged() -> None:
    shipped = sorted(p.name for p in LEVELS.glob("*.txt"))
    assert len(shipped) == 49
    # The SHA-256 of each file as it was taken from its source (tests/data/SOURCES.md).
    sums = dict(
        reversed(line.split()) for line in (DATA / "vexed_packs.sha256").read_text().splitlines()
    )
    assert sorted(sums) == sorted([*shipped, "packs.tsv"])
    for name, digest in sums.items():
        assert hashlib.sha256((LEVELS / name).read_bytes()).hexdigest() == digest, name
    assert "GPL-2.0-or-later" in (LEVELS / "LICENSE").read_text(encoding="utf-8")
    credits = (LEVELS / "CREDITS.md").read_text(encoding="utf-8")
    assert "James McCombe" in credits and "Steve Haynal" in credits


def test_level_text_round_trips_every_level_of_a_pack() -> None:
    for level in pack("03_classic_ii_levels.txt"):
        assert GAME.parse(GAME.level_text(level)) == [level]


def test_dark_lord_file_matches_its_pack_entry() -> None:
    (alone,) = GAME.parse((DATA / "dark_lord.level").read_text(encoding="utf-8"))
    in_pack = pack("32_variety_25_pack.txt")[47]
    assert alone.title == in_pack.title == "Dark Lord"
    assert alone.rows == in_pack.rows
    assert in_pack.par == 25 and alone.par is None


# -- the rules on real levels --------------------------------------------------------------------


def test_a_block_falls_through_several_cells() -> None:
    level = lesson_2()
    frames = settle_frames(level, GAME.start(level), "2,7>")
    slid, fallen = frames[0], frames[1]
    assert slid.rows[2][8] == "a" and slid.rows[2][7] == "_"
    # From row 2 to row 5, three cells down, beside the other a.
    assert fallen.rows[2][8] == "_" and fallen.rows[5][8] == "a"
    assert colours(fallen) == colours(slid)


def test_a_chain_clears_the_whole_board_in_one_move() -> None:
    level = lesson_2()
    start = GAME.start(level)
    frames = settle_frames(level, start, "2,7>")
    vanishings = [n for n in range(1, len(frames)) if colours(frames[n]) != colours(frames[n - 1])]
    assert len(vanishings) >= 10  # fall, vanish, fall, vanish ... one chain
    assert frames[-1] == GAME.apply(level, start, "2,7>")
    assert GAME.is_solved(level, frames[-1]) and level.par == 1


def test_two_colours_vanish_at_the_same_moment() -> None:
    level = lesson_2()
    frames = settle_frames(level, GAME.start(level), "2,7>")
    lost = [colours(a) - colours(b) for a, b in zip(frames, frames[1:], strict=False)]
    assert {"g": 2, "h": 2} in lost
    index = lost.index({"g": 2, "h": 2})
    assert colours(frames[index + 1]) == colours(frames[index]) - Counter(g=2, h=2)


# Lesson 1: an a on a top ledge and an a on the floor; the shortest answer can be checked by
# eye: walk left off the ledge, right along the middle floor and down the shaft, then left.
LESSON_1 = ["2,7<", "2,6<", "2,5<", "2,4<", "2,3<"] + [f"4,{c}>" for c in range(2, 7)]
LESSON_1 += ["6,7<", "6,6<", "6,5<", "6,4<"]


def test_a_slide_without_contact_only_falls() -> None:
    level = pack("00_tutorial.txt")[0]
    board = GAME.replay(level, LESSON_1[:4])
    assert board.rows[2][3] == "a"
    frames = settle_frames(level, board, "2,3<")
    assert len(frames) == 2
    assert frames[0].rows[2][2] == "a" and frames[0].rows[4][2] == "_"
    assert frames[1].rows[2][2] == "_" and frames[1].rows[4][2] == "a"
    assert colours(frames[1]) == colours(board)


def test_a_known_solution_replays_at_par() -> None:
    level = pack("00_tutorial.txt")[0]
    assert len(LESSON_1) == level.par == 14
    board = GAME.start(level)
    for move in LESSON_1[:-1]:
        board = GAME.apply(level, board, move)
        assert not GAME.is_solved(level, board)
    assert GAME.is_solved(level, GAME.apply(level, board, LESSON_1[-1]))
    assert GAME.count(level, LESSON_1) == {"moves": 14}


def test_illegal_moves_are_refused() -> None:
    level = pack("32_variety_25_pack.txt")[47]
    start = GAME.start(level)
    with pytest.raises(IllegalMove, match="no block"):
        GAME.apply(level, start, "4,3>")  # an empty cell
    with pytest.raises(IllegalMove, match="not empty"):
        GAME.apply(level, start, "5,1>")  # c beside f
    with pytest.raises(IllegalMove, match="not empty"):
        GAME.apply(level, start, "1,4>")  # g against the wall
    with pytest.raises(IllegalMove, match="no cell"):
        GAME.apply(level, start, "40,4>")
    with pytest.raises(MoveError):
        GAME.apply(level, start, "4,2^")


def test_legal_moves_are_the_ones_apply_accepts() -> None:
    level = pack("32_variety_25_pack.txt")[47]
    start = GAME.start(level)
    legal = GAME.legal_moves(level, start)
    assert "4,2>" in legal and "5,1>" not in legal
    for row in range(level.height):
        for column in range(level.width):
            for direction in "<>":
                move = f"{row},{column}{direction}"
                try:
                    GAME.apply(level, start, move)
                except IllegalMove:
                    assert move not in legal
                else:
                    assert move in legal


def test_move_notation() -> None:
    assert GAME.split_moves("4,2> 5,2>  5,1<\n6,4>") == ["4,2>", "5,2>", "5,1<", "6,4>"]
    assert GAME.split_moves("4, 2> 5,2>") == ["4,2>", "5,2>"]
    assert GAME.split_moves("") == []
    assert GAME.join_moves(["4,2>", "5,1<"]) == "4,2> 5,1<"
    for bad in ("4,2", "4;2>", "a,b>", "4,2>>", "L"):
        with pytest.raises(MoveError):
            GAME.split_moves(bad)
    level = lesson_2()
    assert GAME.normalize_move(level, GAME.start(level), " 2,7> ") == "2,7>"
    assert GAME.click(level, GAME.start(level), 2, 7) == []


def test_render_text_is_the_board_rows() -> None:
    level = pack("32_variety_25_pack.txt")[47]
    assert GAME.render_text(level, GAME.start(level)) == GAME.board_text(level)
    after = GAME.apply(level, GAME.start(level), "4,2>")
    lines = GAME.render_text(level, after).splitlines()
    # The g slides off its ledge and drops two rows onto the floor.
    assert lines[4] == "##____####" and lines[6] == "#f#gf_g__#"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    level_index=st.integers(0, 59),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=12),
)
def test_compact_encoding_agrees_with_the_plain_rules(level_index: int, picks: list[int]) -> None:
    level = pack("06_panic_pack.txt")[level_index]
    compact = Compact(level)
    board = GAME.start(level)
    for pick in picks:
        legal = GAME.legal_moves(level, board)
        if not legal:
            break
        children = {compact.token(s): c for s, c in compact.children(compact.encode(board), False)}
        assert sorted(children) == sorted(legal)
        move = legal[pick % len(legal)]
        board = GAME.apply(level, board, move)
        assert compact.decode(children[move]) == board


#: A column split by a solid cell: sliding the d at 3,2 right drops it onto the floor beside
#: the other d (the lower stretch of column 2) while the a above it drops beside the other a
#: (the upper stretch); both pairs vanish at once, and then the c must fall into the a's place.
TWO_STRETCHES = ("######", "#_c__#", "#_a__#", "#ad__#", "###__#", "#_d_c#", "######")


def test_a_vanishing_lets_blocks_fall_in_every_stretch_of_a_column() -> None:
    level = GAME.parse("Vexed level\ntitle: two stretches\n--\n" + "\n".join(TWO_STRETCHES))[0]
    board = GAME.apply(level, GAME.start(level), "3,2>")
    assert board.rows == ("######", "#____#", "#____#", "#_c__#", "###__#", "#___c#", "######")
    compact = Compact(level)
    start = compact.encode(GAME.start(level))
    children = {compact.token(s): c for s, c in compact.children(start, False)}
    for move in GAME.legal_moves(level, GAME.start(level)):
        assert compact.decode(children[move]) == GAME.apply(level, GAME.start(level), move), move


def test_undo_by_replay_gives_back_the_same_state() -> None:
    level = pack("32_variety_25_pack.txt")[47]
    moves = ["4,2>", "5,2>", "5,1>"]
    two = GAME.replay(level, moves[:2])
    assert GAME.apply(level, two, moves[2]) == GAME.replay(level, moves)
    assert hash(two) == hash(GAME.replay(level, moves[:2]))


# -- level text -----------------------------------------------------------------------------------

GOOD = """Vexed level
title: Two pairs
par: 2
author: me
--
#######
#a_b__#
#b#a__#
#######
"""


def test_header_form() -> None:
    (level,) = GAME.parse(GOOD)
    assert level.title == "Two pairs" and level.par == 2
    assert level.headers == (("author", "me"),)
    assert level.rows[1] == "#a_b__#"
    assert (level.width, level.height) == (7, 4)


def test_framed_form_reads_like_the_header_form() -> None:
    framed = " _____\n|a b  |\n|b#a  |\n =====\n"
    (level,) = GAME.parse(framed)
    assert level.rows == GAME.parse(GOOD)[0].rows
    assert level.title == "" and level.par is None
    assert GAME.parse(GAME.level_text(level)) == [level]
    # Coordinates are those of the picture: the frame is row 0 and column 0.
    board = GAME.apply(level, GAME.start(level), "1,1>")
    assert board.rows[1] == "#_ab__#"


def test_framed_form_after_a_header() -> None:
    text = "Vexed level\ntitle: Framed\npar: 1\n--\n ____\n|a  a|\n|#  #|\n ====\n"
    (level,) = GAME.parse(text)
    assert level.title == "Framed" and level.par == 1
    assert level.rows == ("######", "#a__a#", "##__##", "######")


def test_many_levels_separated_by_blank_lines() -> None:
    text = GOOD + "\n\n" + GOOD.replace("Two pairs", "Again") + "\n ___\n|a a|\n ===\n"
    levels = GAME.parse(text)
    assert [lv.title for lv in levels] == ["Two pairs", "Again", ""]


def test_a_pasted_board_settles_before_play() -> None:
    (level,) = GAME.parse("#####\n#a__#\n#_#a#\n#_#_#\n#####\n")
    assert GAME.start(level).rows == ("#####", "#___#", "#_#_#", "#a#a#", "#####")


def error_of(text: str) -> LevelError:
    with pytest.raises(LevelError) as caught:
        GAME.parse(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        # rows of different lengths: the third row is short
        ("Vexed level\ntitle: t\n--\n#####\n#a_a#\n#_##\n#####\n", "wide", 6, 5),
        # an unknown character
        ("Vexed level\ntitle: t\n--\n#####\n#a.a#\n#####\n", "unknown character '.'", 5, 3),
        # an upper-case letter is unknown too
        ("#####\n#aA_#\n#####\n", "unknown character 'A'", 2, 3),
        # a colour with exactly one block, named where it stands
        ("Vexed level\ntitle: t\n--\n######\n#a_ab#\n######\n", "'b' has only one block", 5, 5),
        # no blocks at all
        ("Vexed level\ntitle: t\n--\n####\n#__#\n####\n", "no blocks", 4, None),
        # too many rows
        ("#aa#\n" + "#__#\n" * MAX_SIDE, f"at most {MAX_SIDE}", MAX_SIDE + 1, 1),
        # too wide
        ("#aa" + "_" * MAX_SIDE + "#\n", f"at most {MAX_SIDE} wide", 1, MAX_SIDE + 1),
        # a header with no '--'
        ("Vexed level\ntitle: t\npar: 3\n", "no '--'", 3, 1),
        # a line that is not 'key: value'
        ("Vexed level\ntitle t\n--\n#aa#\n", "expected a 'key: value'", 2, 1),
        # par that is not a number
        ("Vexed level\ntitle: t\npar: many\n--\n#aa#\n", "par must be a whole number", 3, 6),
        # a header key given twice
        ("Vexed level\ntitle: t\ntitle: u\n--\n#aa#\n", "given twice", 3, 1),
        # nothing after '--'
        ("Vexed level\ntitle: t\n--\n", "no rows after", 3, 1),
        # header lines without the first line
        ("title: t\n--\n#aa#\n", "starts with a 'Vexed level' line", 1, 1),
        # framed: no top row of '_'
        ("|a a|\n|a a|\n =====\n", "top of a framed board", 1, 1),
        # framed: no bottom row of '='
        (" ___\n|a a|\n ___\n", "bottom of a framed board", 3, 1),
        # framed: a row that does not start with '|'
        (" ___\n|a a|\n a a|\n ===\n", "starts with '|'", 3, 1),
        # framed: a row that does not end with '|'
        (" ___\n|a a|\n|a a\n ===\n", "ends with '|'", 3, 5),
        # framed: an unknown character keeps its column in the picture
        (" ___\n|a*a|\n ===\n", "unknown character '*'", 2, 3),
    ],
)
def test_bad_levels_name_line_and_column(text: str, message: str, line: int, column: int) -> None:
    error = error_of(text)
    assert message in error.message
    assert (error.line, error.column) == (line, column)


def test_empty_text_is_refused() -> None:
    assert "no level found" in error_of("\n\n  \n").message


def test_a_move_is_listed_with_the_blocks_symbol_and_an_arrow():
    from webapp.games.vexed import GAME as VEXED

    level = VEXED.parse("Vexed level\n--\n#a_a#\n#####")[0]
    assert VEXED.move_label(level, VEXED.start(level), "0,1>") == "●→"
