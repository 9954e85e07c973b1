"""Sliding blocks: the classic layouts solved in all three move conventions, and the rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import LEVELS
from webapp.games.base import IllegalMove, LevelError, MoveError
from webapp.games.blocks import (
    GAME,
    Position,
    distance_table,
    hint,
    moves_left,
    position_key,
    reachable_cells,
)
from webapp.games.solving import solve
from webapp.search import Limits

CLASSICS = GAME.parse((LEVELS / "blocks" / "classics.txt").read_text(encoding="utf-8"))
LEVELS_DIR = Path(__file__).resolve().parents[1] / "levels" / "blocks"

#: algorithm -> (metric, the classics.txt field holding its optimum)
CONVENTIONS = {
    "steps": ("steps", "moves_unit"),
    "line": ("line_moves", "moves_line"),
    "path": ("path_moves", "moves_path"),
}
LIMITS = Limits(seconds=30, nodes=None)


def classic_ids() -> list[str]:
    return [f"{n}-{level.info[0][1]}" for n, level in enumerate(CLASSICS, 1)]


def test_the_benchmark_file_holds_the_classics():
    assert len(CLASSICS) == 9
    assert CLASSICS[0].title == "横刀立马"
    assert [CLASSICS[0].number(k) for k in ("moves_unit", "moves_line", "moves_path")] == [
        116,
        90,
        81,
    ]


@pytest.mark.parametrize("algorithm", CONVENTIONS)
@pytest.mark.parametrize("level", CLASSICS, ids=classic_ids())
def test_classic_solved_optimally(level, algorithm):
    metric, field = CONVENTIONS[algorithm]
    expected = level.number(field)
    result = solve(GAME, level, algorithm, limits=LIMITS)
    assert result.status == "solved", result.error
    assert result.optimal and result.metric == metric
    assert result.cost == expected
    counts = GAME.count(level, result.moves)
    assert counts[metric] == expected
    assert counts["steps"] == len(result.moves)
    # Every convention is a coarser count of the same steps.
    assert counts["path_moves"] <= counts["line_moves"] <= counts["steps"]
    assert GAME.is_solved(level, GAME.replay(level, result.moves))


@pytest.mark.parametrize("level", CLASSICS, ids=classic_ids())
def test_reachable_positions(level):
    table = distance_table(level, "steps")
    assert table is not None
    assert len(table) == level.number("reachable")
    assert table[position_key(level, GAME.start(level))] == level.number("moves_unit")


@pytest.mark.parametrize("algorithm", CONVENTIONS)
def test_distance_table_of_the_classic(algorithm):
    metric, field = CONVENTIONS[algorithm]
    level = CLASSICS[0]
    table = distance_table(level, metric)
    assert len(table) == 25955
    assert min(table.values()) == 0
    state = GAME.start(level)
    left = moves_left(level, state, metric)
    assert left == level.number(field)
    # Follow the hints to the goal: each is one move in this metric and takes one off.
    played = []
    while left:
        steps = hint(level, state, metric)
        assert steps
        assert GAME.count(level, steps, state)[metric] == 1
        for token in steps:
            state = GAME.apply(level, state, token)
        played += steps
        assert moves_left(level, state, metric) == left - 1
        left -= 1
    assert GAME.is_solved(level, state)
    assert hint(level, state, metric) == []
    assert GAME.count(level, played)[metric] == level.number(field)


def test_same_shapes_are_identified_but_mirror_images_are_not():
    level = CLASSICS[0]  # BAAC/BAAC/DEEF/DGHF/I..J: B, C, D, F tall; G, H, I, J single
    places = list(level.places)
    letters = [piece.letter for piece in level.pieces]
    g, h = letters.index("G"), letters.index("H")
    places[g], places[h] = places[h], places[g]
    swapped = Position(tuple(places))
    assert GAME.render_text(level, swapped) != GAME.render_text(level, GAME.start(level))
    assert position_key(level, swapped) == position_key(level, GAME.start(level))
    # One step of I to the right gives a position whose mirror image is one step of J to the
    # left; the two are different positions with the same distance.
    right = GAME.apply(level, GAME.start(level), "4,0R")
    left = GAME.apply(level, GAME.start(level), "4,3L")
    assert position_key(level, right) != position_key(level, left)
    table = distance_table(level, "steps")
    assert table[position_key(level, right)] == table[position_key(level, left)]


# -- levels ----------------------------------------------------------------------------------
def test_shipped_collections_parse_and_round_trip():
    classics = GAME.parse((LEVELS_DIR / "classics.txt").read_text(encoding="utf-8"))
    assert classics == CLASSICS
    workshop = GAME.parse((LEVELS_DIR / "workshop.txt").read_text(encoding="utf-8"))
    for level in classics + workshop:
        assert GAME.parse(GAME.level_text(level)) == [level]
        again = GAME.parse(GAME.board_text(level))[0]
        assert (again.walls, again.pieces, again.places, again.goal_place) == (
            level.walls,
            level.pieces,
            level.places,
            level.goal_place,
        )


def test_workshop_layouts_match_their_counts():
    workshop = GAME.parse((LEVELS_DIR / "workshop.txt").read_text(encoding="utf-8"))
    assert any(level.walls for level in workshop)
    for level in workshop:
        for algorithm, (metric, field) in CONVENTIONS.items():
            result = solve(GAME, level, algorithm, limits=LIMITS)
            assert result.status == "solved"
            assert GAME.count(level, result.moves)[metric] == level.number(field)
        assert len(distance_table(level, "steps")) == level.number("reachable")


def test_goal_forms_agree():
    grid = "BAAC\nBAAC\nDEEF\nDGHF\nI..J\n"
    named = GAME.parse("goal: A bottom-middle\n" + grid)[0]
    numbered = GAME.parse("goal: A 4 2\n" + grid)[0]
    comma = GAME.parse(grid + "goal: A 4,2\n")[0]
    assert named.goal_place == numbered.goal_place == comma.goal_place == 3 * 4 + 1
    top = GAME.parse("goal: A top-middle\n" + grid)[0]
    assert top.goal_place == 1
    assert GAME.is_solved(top, GAME.start(top))
    assert not GAME.is_solved(named, GAME.start(named))


def test_bare_layout_with_walls_and_comments():
    text = "# a comment\nname: Pocket\ngoal: A 3 2\n####\n#AA#\n#..#\n####\n"
    level = GAME.parse(text)[0]
    assert level.title == "Pocket"
    assert (level.width, level.height, len(level.walls)) == (4, 4, 12)
    assert GAME.apply(level, GAME.start(level), "1,2D").places == (9,)
    with pytest.raises(IllegalMove):
        GAME.apply(level, GAME.start(level), "1,1U")


def error_of(text: str) -> LevelError:
    with pytest.raises(LevelError) as caught:
        GAME.parse(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "words", "line", "column"),
    [
        ("goal: A 2 1\nAA.\nA..\n", "not a filled rectangle", 3, 2),
        ("goal: A 1 1\nAB\nBA\n", "two separate places", 3, 2),
        ("goal: A 1 1\nAA\n..\nAA\n", "two separate places", 4, 1),
        ("goal: A 3 1\nAA\n..\n", "runs off", 1, 7),
        ("goal: A 2 2\nAA.\n..#\n", "onto the wall at row 2, column 3", 1, 7),
        ("goal: Z 1 1\nAA\n..\n", "no piece 'Z'", 1, 7),
        ("goal: A 1 1\nA........\n", "8×8", 2, 1),
        ("goal: A 1 1\nA\n.\n.\n.\n.\n.\n.\n.\n.\n", "8×8", 2, 1),
        ("goal: A 1 1\nA.\n.*\n", "unknown character '*'", 3, 2),
        ("AA\n..\n", "no goal", 1, 1),
        ("goal: A 1 1\nAA.\n..\n", "must be a rectangle", 3, 3),
        ("goal: A 1 1\nmoves_path: many\nAA\n..\n", "whole number", 2, 13),
        ("goal: A somewhere\nAA\n..\n", "unknown goal place", 1, 7),
        ("goal: A\nAA\n..\n", "cannot read the goal", 1, 7),
        ("Klotski layout\ngoal: A 1 1\n--\nAA\n\n  \n", None, None, None),
        ("Klotski layout\ngoal: A 1 1\n", "no grid rows", 1, 1),
        ("# only a comment\n", "no layout found", None, None),
        ("goal: A 1 1\ngoal: A 1 1\nAA\n", "a second 'goal:'", 2, 1),
        ("goal: A 1 1\nAA\nname: x\n..\n", "keep the rows together", 4, 1),
    ],
)
def test_malformed_layouts(text, words, line, column):
    if words is None:  # a well-formed control: trailing blank lines are fine
        assert len(GAME.parse(text)) == 1
        return
    error = error_of(text)
    assert words in error.message
    assert (error.line, error.column) == (line, column)


# -- moves -----------------------------------------------------------------------------------
def test_notation_round_trip_and_bad_tokens():
    assert GAME.split_moves("3,1D  4,2l\n0,0U") == ["3,1D", "4,2L", "0,0U"]
    assert GAME.join_moves(["3,1D", "4,2L"]) == "3,1D 4,2L"
    assert GAME.split_moves(GAME.join_moves(["4,0R", "4,1R"])) == ["4,0R", "4,1R"]
    assert GAME.split_moves("") == []
    for bad in ("3,1", "3;1D", "a,bU", "3,1X", "31D", "3,1DD"):
        with pytest.raises(MoveError):
            GAME.split_moves("4,0R " + bad)
    with pytest.raises(MoveError, match="move 2"):
        GAME.split_moves("4,0R 4,1Q")


def test_apply_and_its_refusals():
    level = CLASSICS[0]
    start = GAME.start(level)
    assert sorted(GAME.legal_moves(level, start)) == ["3,1D", "3,2D", "4,0R", "4,3L"]
    moved = GAME.apply(level, start, "3,2D")  # H slides into the gap
    assert GAME.render_text(level, moved).splitlines()[-2:] == ["DG.F", "I.HJ"]
    with pytest.raises(IllegalMove, match="blocked"):
        GAME.apply(level, start, "0,1D")
    with pytest.raises(IllegalMove, match="empty"):
        GAME.apply(level, start, "4,1U")
    with pytest.raises(IllegalMove, match="no cell"):
        GAME.apply(level, start, "5,0U")
    # Any cell of a piece names it; the canonical spelling uses its top-left cell.
    assert GAME.apply(level, start, "4,3L") == GAME.apply(level, start, "4,3l")
    assert GAME.normalize_move(level, moved, "4,2u") == "4,2U"
    assert GAME.normalize_move(level, start, "1,2U") == "0,1U"
    assert GAME.click(level, start, 0, 0) == []


def test_count_conventions():
    level = CLASSICS[0]
    # I right twice; G down then left; H left then down.
    tokens = ["4,0R", "4,1R", "3,1D", "4,1L", "3,2L", "3,1D"]
    assert GAME.count(level, tokens) == {"steps": 6, "line_moves": 5, "path_moves": 3}
    state = GAME.replay(level, tokens[:2])
    assert GAME.count(level, tokens[2:], state) == {"steps": 4, "line_moves": 4, "path_moves": 2}
    # The same piece again after another one starts a new move in every convention.
    assert GAME.count(level, ["4,0R", "4,3L", "4,1L"]) == {
        "steps": 3,
        "line_moves": 3,
        "path_moves": 3,
    }
    with pytest.raises(IllegalMove):
        GAME.count(level, ["4,0R", "4,1R", "4,3L"])


def test_reachable_cells_for_dragging():
    level = CLASSICS[0]
    start = GAME.start(level)
    assert reachable_cells(level, start, 4, 0) == {(4, 1): ["4,0R"], (4, 2): ["4,0R", "4,1R"]}
    assert reachable_cells(level, start, 0, 1) == {}
    assert reachable_cells(level, start, 4, 1) == {}
    # The single G can go down, then sideways along the bottom row.
    routes = reachable_cells(level, start, 3, 1)
    assert routes[(4, 2)] == ["3,1D", "4,1R"]
    for (top, left), steps in routes.items():
        state = GAME.replay(level, steps, start)
        assert GAME.render_text(level, state).splitlines()[1 + top][left] == "G"


# -- solver plumbing -------------------------------------------------------------------------
def test_progress_limits_and_unsolvable():
    level = CLASSICS[0]
    seen = []
    result = solve(
        GAME, level, "steps", limits=Limits(seconds=30, nodes=2000), on_progress=seen.append
    )
    assert result.status == "node-limit"
    assert seen and all(isinstance(p.sample, Position) for p in seen if p.sample is not None)
    assert [p.depth for p in seen] == sorted(p.depth for p in seen)
    locked = GAME.parse("goal: A 1 3\nAB.\nAB.\n")[0]
    for algorithm in CONVENTIONS:
        result = solve(GAME, locked, algorithm, limits=LIMITS)
        assert result.status == "unsolvable"
    assert moves_left(locked, GAME.start(locked), "path_moves") is None
    assert hint(locked, GAME.start(locked), "path_moves") is None
    assert distance_table(locked, "steps") == {}


def test_solving_from_a_later_position():
    level = CLASSICS[0]
    state = GAME.replay(level, ["4,0R", "4,1R"])
    result = solve(GAME, level, "path", state=state, limits=LIMITS)
    assert result.status == "solved"
    assert result.cost == moves_left(level, state, "path_moves")
    assert GAME.count(level, result.moves, state)["path_moves"] == result.cost


def test_table_size_limit_and_lookups_that_never_build():
    from webapp.games.blocks.solver import distance_table as bounded_table

    assert bounded_table(CLASSICS[0], "steps", limit=1000) is None
    level = GAME.parse("goal: A 2 2\nAAB\nC..\n")[0]  # used by no other test
    start = GAME.start(level)
    assert moves_left(level, start, "line_moves", build=False) is None
    assert hint(level, start, "line_moves", build=False) is None
    left = moves_left(level, start, "line_moves")
    assert left is not None and left > 0
    assert moves_left(level, start, "line_moves", build=False) == left
    result = solve(GAME, level, "line", limits=LIMITS)
    assert result.cost == left
