"""The fast solver's portfolio (portfolio.py): a member is one class and one line in the
table. The test-only member here, a breadth-first search by pushes, joins it that way and
the portfolio gives it its memory share, its turns, its note, its report and its solution."""

from collections.abc import Generator

import pytest

from tests.conftest import LEVELS, recorded_searches
from webapp.games.sokoban import GAME
from webapp.games.sokoban.board import lowest_cell
from webapp.games.sokoban.portfolio import Member
from webapp.games.sokoban.solver import (
    FORWARD,
    MEMBERS,
    PLAYER_BITS,
    Outcome,
    Pause,
    Setting,
    run_fast,
)
from webapp.games.solving import check_solution
from webapp.search import Limits, Monitor, Result

MICROBAN = GAME.parse((LEVELS / "sokoban" / "microban.xsb").read_text())
XSOKOBAN = GAME.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())
PROBE = Setting("probe")


class Probe(Member):
    """Breadth-first by pushes, a pause after every expansion; half the memory for itself."""

    layers = 0

    @classmethod
    def share(cls) -> float | None:
        return 0.5

    def run(self) -> Generator[Pause, None, Outcome]:
        board, start = self.portfolio.board, self.portfolio.position
        boxes = board.boxes_of(start)
        key = boxes << PLAYER_BITS | lowest_cell(board.reach(start.player, boxes))
        parents: dict[int, tuple[int, int] | None] = {key: None}
        layer, self.layers = [(boxes, start.player, key)], 0
        while layer:
            self.layers += 1
            following = []
            for boxes, player, key in layer:
                yield len(parents), len(parents), len(layer), self.layers, player, boxes
                for box, offset, direction in board.pushes(boxes, board.reach(player, boxes)):
                    child = boxes ^ (1 << box) ^ (1 << (box + offset))
                    child_key = child << PLAYER_BITS | lowest_cell(board.reach(box, child))
                    if child_key in parents:
                        continue
                    parents[child_key] = (key, box << 2 | direction)
                    if child == board.goal_mask:
                        return self._pushes(parents, child_key), len(parents), len(parents)
                    following.append((child, box, child_key))
            layer = following
        return None, len(parents), len(parents)

    @staticmethod
    def _pushes(parents: dict[int, tuple[int, int] | None], key: int) -> list[int]:
        pushes = []
        while (link := parents[key]) is not None:
            key, push = link
            pushes.append(push)
        return pushes[::-1]

    def note(self) -> str | None:
        return f"probing layer {self.layers}"

    def report(self, result: Result) -> None:
        result.extra["probe layers"] = self.layers


@pytest.fixture
def probe(monkeypatch) -> None:
    monkeypatch.setitem(MEMBERS, "probe", Probe)  # the member's one line in the table


def test_a_new_member_solves_through_the_portfolio(probe) -> None:
    level = MICROBAN[2 - 1]
    start = GAME.start(level)
    result = run_fast(level, start, Monitor(Limits(seconds=60)), (PROBE,))
    assert result.status == "solved"
    assert check_solution(GAME, level, start, result.moves) is None


def test_a_new_member_is_noted_and_reported_beside_the_others(probe) -> None:
    level = XSOKOBAN[10 - 1]
    monitor = Monitor(Limits(seconds=None, nodes=20_000, memory_mb=2048))
    result = run_fast(level, GAME.start(level), monitor, (FORWARD, PROBE))
    assert result.status == "node-limit"
    assert result.extra["probe layers"] >= 2 and "closest forwards" in result.extra
    assert monitor.note.startswith("the nearest position found needs ")
    assert monitor.note.endswith(f"; probing layer {result.extra['probe layers']}")


def test_a_new_members_share_comes_out_of_the_others_memory(monkeypatch, probe) -> None:
    level = XSOKOBAN[10 - 1]
    limits = Limits(seconds=None, nodes=100, memory_mb=2048)
    made, _ = recorded_searches(monkeypatch)
    run_fast(level, GAME.start(level), Monitor(limits), (FORWARD,))
    run_fast(level, GAME.start(level), Monitor(limits), (FORWARD, PROBE))
    alone, beside = made
    assert beside.capacity * 2 == alone.capacity
