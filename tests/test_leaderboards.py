"""A collection's leaderboard (webapp/core/records.py ``collection_board``) from results the
test sets: players by levels solved, then by their total in the game's first counter, then
by who they are; the top rows, and the asking player's row wherever it falls."""

from __future__ import annotations

from webapp.core.records import ANONYMOUS, BOARD_ROWS, Row, collection_board
from webapp.games import get

SOKOBAN = get("sokoban")


class Results:
    """A store that answers ``collection_results`` from a list of (who, name, figures)."""

    def __init__(self, rows: list[tuple[str, str | None, dict[str, int]]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, str]] = []

    def collection_results(self, game: str, prefix: str):
        self.asked.append((game, prefix))
        return list(self.rows)


def test_players_rank_by_levels_then_by_their_total_then_by_who_they_are():
    store = Results(
        [
            ("a", "Ann", {"moves": 10, "pushes": 3}),
            ("a", "Ann", {"moves": 20, "pushes": 4}),
            ("a2", "Dee", {"moves": 20, "pushes": 9}),
            ("b", "Bob", {"moves": 25, "pushes": 9}),
            ("c", None, {"moves": 5}),
            ("b", "Bob", {"moves": 3, "pushes": 1}),
            ("a2", "Dee", {"moves": 8, "pushes": 1}),
            ("e", "Eve", {"pushes": 2}),  # no moves counted: none added
            ("e", "Eve", {"pushes": 2}),
        ]
    )
    board = collection_board(store, SOKOBAN, "microban", "a")
    assert store.asked == [("sokoban", "microban/")]
    assert board == [
        Row(1, "Eve", {"levels": 2, "moves": 0}),
        Row(2, "Dee", {"levels": 2, "moves": 28}),  # as Bob: before him by who they are
        Row(3, "Bob", {"levels": 2, "moves": 28}),
        Row(4, "Ann", {"levels": 2, "moves": 30}, mine=True),
        Row(5, ANONYMOUS, {"levels": 1, "moves": 5}),
    ]


def test_the_board_shows_its_top_rows_and_the_asking_player_wherever_they_are():
    many = [(f"p{n:02}", f"P{n}", {"moves": n}) for n in range(BOARD_ROWS + 5)]
    board = collection_board(Results(many), SOKOBAN, "microban", f"p{BOARD_ROWS + 3:02}")
    assert [row.place for row in board] == [*range(1, BOARD_ROWS + 1), BOARD_ROWS + 4]
    assert [row.mine for row in board] == [False] * BOARD_ROWS + [True]
    assert board[-1].name == f"P{BOARD_ROWS + 3}"
    nobody = collection_board(Results(many), SOKOBAN, "microban")
    assert len(nobody) == BOARD_ROWS and not any(row.mine for row in nobody)
