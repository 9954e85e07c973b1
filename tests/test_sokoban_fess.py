"""FESS, the feature-space search (fess.py): its four features on hand-made positions, its
cells and advisors, and the search as a member of the fast solver's portfolio."""

import pytest

from tests.conftest import LEVELS
from webapp.games.sokoban import GAME, fess
from webapp.games.sokoban.board import Board, lowest_cell
from webapp.games.sokoban.fess import FeatureSpace, FessSearch, Node, box_moves, flat, open_rooms
from webapp.games.sokoban.packing import Packing, packing
from webapp.games.sokoban.solver import FESS, FORWARD, lurd, run_fast
from webapp.games.solving import check_solution, solve
from webapp.search import Limits, Monitor

MICROBAN = GAME.parse((LEVELS / "sokoban" / "microban.xsb").read_text())
XSOKOBAN = GAME.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())
LIMITS = Limits(seconds=60, nodes=None, memory_mb=2048)

# Two rooms of open floor joined by a door (row 2, column 4), a box in it.
TWO_ROOMS = """\
#########
#  .#   #
#   $@  #
#   #   #
#########"""
# A corridor: goals at both ends, a box beside each.
CORRIDOR = """\
#########
#.$ @ $.#
#########"""


def bits(board: Board, *squares: tuple[int, int]) -> int:
    return sum(1 << row * board.width + column for row, column in squares)


def space_of(text: str, phases: list[list[tuple[int, int]]]) -> tuple[Board, FeatureSpace]:
    board = Board(GAME.parse(text)[0])
    cells = [[row * board.width + column for row, column in phase] for phase in phases]
    return board, FeatureSpace(board, Packing(cells))


def test_the_rooms_are_open_floor_and_the_door_between_them_is_none() -> None:
    board, _ = space_of(TWO_ROOMS, [[(1, 3)]])
    left = bits(board, *[(row, column) for row in (1, 2, 3) for column in (1, 2, 3)])
    right = bits(board, *[(row, column) for row in (1, 2, 3) for column in (5, 6, 7)])
    assert open_rooms(board) == [left, right]


def test_a_box_in_the_door_cuts_the_floor_and_the_link_between_the_rooms() -> None:
    board, space = space_of(TWO_ROOMS, [[(1, 3)]])
    in_door, inside = bits(board, (2, 4)), bits(board, (2, 2))
    assert space.links == frozenset({(0, 1)})
    assert (space.regions(in_door), space.blocked(in_door)) == (2, 1)
    assert (space.regions(inside), space.blocked(inside)) == (1, 0)
    # Beside the door on the left, the box shuts the left room in: the door's only way in.
    assert (space.regions(bits(board, (2, 3))), space.blocked(bits(board, (2, 3)))) == (2, 1)
    # In the right room's corner it leaves the room's other squares linked to the door.
    assert space.blocked(bits(board, (1, 5))) == 0


def test_a_room_cut_in_two_is_linked_only_where_every_part_is() -> None:
    # A wall of boxes down the left room leaves its first column apart from the door.
    text = "##########\n# $  #  .#\n# $ @   .#\n# $  #  .#\n##########"
    board, space = space_of(text, [[(1, 8), (2, 8), (3, 8)]])
    wall = bits(board, (1, 2), (2, 2), (3, 2))
    assert (space.regions(wall), space.blocked(wall)) == (2, 1)
    moved = bits(board, (1, 2), (2, 7), (3, 2))
    assert (space.regions(moved), space.blocked(moved)) == (1, 0)


def test_packed_counts_the_targets_filled_phase_by_phase() -> None:
    board, space = space_of(CORRIDOR, [[(1, 1)], [(1, 7)]])
    assert space.packed(bits(board, (1, 2), (1, 6))) == (0, 0)
    left = bits(board, (1, 1))
    assert space.packed(left | bits(board, (1, 6))) == (1, left)
    # The second phase's goal filled before the first's counts for nothing.
    assert space.packed(bits(board, (1, 2), (1, 7)))[0] == 0
    assert space.packed(left | bits(board, (1, 7))) == (2, left | bits(board, (1, 7)))


def test_a_parking_square_counts_once_its_box_has_gone_on() -> None:
    # The box parked on (1, 5) in the first phase goes on to the goal (1, 7) in the second.
    board = Board(GAME.parse(CORRIDOR)[0])
    cell = board.width
    space = FeatureSpace(board, Packing([[cell + 5, cell + 1], [cell + 7]], {cell + 5: 1}))
    assert space.packed(bits(board, (1, 1), (1, 5)))[0] == 2
    assert space.packed(bits(board, (1, 1), (1, 7)))[0] == 3
    assert space.packed(bits(board, (1, 1), (1, 6)))[0] == 1


def test_a_box_no_goal_left_can_be_reached_from_is_out_of_plan() -> None:
    board, space = space_of(CORRIDOR, [[(1, 1)], [(1, 7)]])
    stuck = bits(board, (1, 1), (1, 2))  # the left goal is a wall: (1, 2) cannot go right
    assert space.features(stuck) == (1, 1, 0, 1)
    assert space.features(bits(board, (1, 1), (1, 5))) == (1, 2, 0, 0)
    # Before the left goal is filled, a box beside it can still be pushed onto it.
    assert space.features(bits(board, (1, 2), (1, 6)))[3] == 0


def test_the_advisors_make_their_moves_free() -> None:
    # Scores are (-packed, regions, room links, out of plan, bound), least best.
    node = Node(0, 0, None, None, 0, 0)
    base = (-1, 2, 1, 1, 9)
    node.children = [
        [1, (-1, 2, 1, 1, 8), 1],  # nearer by the bound only: no advisor's
        [1, (-2, 3, 1, 1, 9), 2],  # packs one more: the packing advisor's
        [1, (-1, 1, 1, 1, 9), 3],  # joins two regions: the regions advisor's
        [1, (0, 1, 0, 0, 9), 4],  # packs less: nobody's, however good the rest
        [1, (-1, 2, 1, 0, 10), 5],  # one box fewer out of plan
    ]
    FessSearch._advise(node, base)
    assert [child[0] for child in node.children] == [1, 0, 0, 1, 0]


def test_each_position_is_in_the_cell_of_the_best_features_on_its_path() -> None:
    level = MICROBAN[93 - 1]
    board, start = Board(level), GAME.start(level)
    search = FessSearch(board, start, packing(board, start), 1 << 20)
    run = search.run(1)
    for _ in range(30):
        next(run)
    assert len(search.order) > 2
    for node in search.expanded.values():
        own = search.score(node.boxes, search.bound(node.boxes))
        path = [own]
        parent = node.parent
        while parent is not None:
            path.append(search.score(parent.boxes, search.bound(parent.boxes)))
            parent = parent.parent
        assert node.best == min(path)
    # A position with a move left waits in its cell.
    waiting = [node for node in search.expanded.values() if search._move(node) is not None]
    assert waiting and set(search.order) >= {node.best[:4] for node in waiting}


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 10, 20, 50])
def test_fess_alone_solves_small_levels_and_the_solutions_replay(number: int) -> None:
    level = MICROBAN[number - 1]
    start = GAME.start(level)
    result = run_fast(level, start, Monitor(LIMITS), (FESS,))
    assert result.status == "solved"
    assert check_solution(GAME, level, start, result.moves) is None


@pytest.mark.parametrize(
    "text",
    [
        # The player can never get behind the lower box to push it onto its goal.
        "######\n#. $@#\n# $. #\n######",
        # The box stands where no push can ever bring it to the goal.
        "#######\n#.#   #\n# #$@ #\n# #   #\n#######",
    ],
)
def test_fess_run_dry_proves_a_level_unsolvable(text: str) -> None:
    level = GAME.parse(text)[0]
    assert run_fast(level, GAME.start(level), Monitor(LIMITS), (FESS,)).status == "unsolvable"


def test_a_box_move_takes_one_box_anywhere_it_can_be_pushed() -> None:
    # In the corridor each goal, behind its box, is floor the player cannot reach (a
    # PI-corral): only the boxes whose pushes the corral test leaves move, into one of them.
    board, space = space_of(CORRIDOR, [[(1, 1)], [(1, 7)]])
    moves = box_moves(space, bits(board, (1, 2), (1, 6)), board.width + 4)
    assert [(box, target) for box, target, *_ in moves] == [(board.width + 2, board.width + 1)]


@pytest.mark.parametrize("number", [3, 93, 153])
def test_box_moves_are_every_square_and_region_a_box_reaches(number: int) -> None:
    # Against a plain breadth-first search over pushes of one box at a time; each move's
    # pushes replay from the start, the player walking to each.
    level = MICROBAN[number - 1]
    board, start = Board(level), GAME.start(level)
    space = FeatureSpace(board, packing(board, start))
    boxes = board.boxes_of(start)
    moves = box_moves(space, boxes, start.player)
    found = {(box, target, lowest_cell(board.reach(walker, boxes ^ (1 << box) ^ (1 << target))))
             for box, target, _push, walker, _low in moves}  # fmt: skip
    assert found == plain_box_moves(board, boxes, start.player) and len(found) == len(moves)
    for box, target, push, walker, low in moves:
        pushes = flat(push)
        lurd(board, start, pushes)  # the player walks to every push
        child = boxes ^ (1 << box) ^ (1 << target)
        assert replayed(board, boxes, pushes) == child
        assert low == lowest_cell(board.reach(walker, child))


def plain_box_moves(board: Board, boxes: int, player: int) -> set[tuple[int, int, int]]:
    """(box, square, lowest cell of the player's region) for every box the PI-corral test
    lets the player push first, breadth-first over its pushes, the other boxes still."""
    region = board.reach(player, boxes)
    first = board.corral_pushes(boxes, region)
    first = list(board.pushes(boxes, region)) if first is None else first
    found = set()
    for box in {box for box, _offset, _direction in first}:
        others = boxes & ~(1 << box)
        queue, seen = [(box, region)], {(box, lowest_cell(region))}
        for square, area in queue:
            for _letter, offset in board.directions:
                ahead = square + offset
                if not area >> (square - offset) & 1:
                    continue
                if not board.live >> ahead & 1 or others >> ahead & 1:
                    continue
                behind = board.reach(square, others | 1 << ahead)
                if (ahead, lowest_cell(behind)) not in seen:
                    seen.add((ahead, lowest_cell(behind)))
                    queue.append((ahead, behind))
                    found.add((box, ahead, lowest_cell(behind)))
    return found


def replayed(board: Board, boxes: int, pushes: list[int]) -> int:
    for push in pushes:
        box, offset = push >> 2, board.directions[push & 3][1]
        assert boxes >> box & 1 and not boxes >> (box + offset) & 1
        boxes ^= (1 << box) | (1 << (box + offset))
    return boxes


def test_fess_stops_at_the_node_limit_and_says_where_it_works() -> None:
    level = XSOKOBAN[16 - 1]
    monitor = Monitor(Limits(seconds=None, nodes=300, memory_mb=2048))
    result = run_fast(level, GAME.start(level), monitor, (FESS,))
    assert result.status == "node-limit" and 300 <= result.expanded < 300 + fess.PAUSE
    assert monitor.note.startswith("feature search: working in the cell of ")
    assert " targets filled in order, " in monitor.note and " cells opened)" in monitor.note
    assert result.extra["fess cells"] >= 2
    packed, targets = result.extra["fess packed"].split("/")
    assert 0 <= int(packed) <= int(targets) == 15
    # The closest position offered: the least bound of a position it has expanded.
    assert monitor.closest_h is not None and 0 < monitor.closest_h
    assert len(monitor.closest.boxes) == 15


def test_fess_stops_when_cancelled() -> None:
    level = XSOKOBAN[16 - 1]
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 20

    monitor = Monitor(Limits(seconds=60, memory_mb=2048), cancelled=cancelled)
    assert run_fast(level, GAME.start(level), monitor, (FESS,)).status == "cancelled"


def test_a_full_fess_ends_the_solve_alone_and_leaves_the_turns_to_others(monkeypatch) -> None:
    monkeypatch.setattr(fess, "NODE_BYTES", 1 << 40)  # room for the least: 64 positions
    level = XSOKOBAN[16 - 1]
    limits = Limits(seconds=None, nodes=5_000, memory_mb=2048)
    alone = run_fast(level, GAME.start(level), Monitor(limits), (FESS,))
    assert alone.status == "memory-limit" and alone.expanded <= 64 + fess.PAUSE
    # Beside the forward search, the solve goes on without it, to the node limit.
    beside = run_fast(level, GAME.start(level), Monitor(limits), (FESS, FORWARD))
    assert beside.status == "node-limit" and beside.expanded >= 5_000


def test_a_fess_solution_goes_through_the_one_door(monkeypatch) -> None:
    # solve() replays whatever the solver returns through the game's rules.
    from webapp.games.sokoban import solver

    monkeypatch.setattr(solver, "PORTFOLIO", (FESS,))
    monkeypatch.setattr(solver, "ROOM_PORTFOLIO", (FESS,))
    level = MICROBAN[3 - 1]
    result = solve(GAME, level, "fast", limits=LIMITS)
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None
