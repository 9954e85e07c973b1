"""The solver panel speaks a player's words: after a solve in any game, while one runs, and
for the solution optimizer, no search-engine word shows, and each figure says what it is."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.conftest import LEVELS, Player
from webapp import games
from webapp.games.solving import solve
from webapp.jobs.work import Improve, Solve, Work
from webapp.search import Limits, Progress

#: The words of the search engine that a player never reads in the panel (the step-through
#: view defines the textbook ones where they appear).
ENGINE_WORDS = re.compile(
    r"\b(expanded|generated|frontier|f-bound|states/s|astar|idastar|bfs|path_moves)\b", re.I
)

#: (game, collection, file, level number, algorithm): small levels every algorithm named
#: here solves at once.
SOLVES = [
    ("sokoban", "microban", "sokoban/microban.xsb", 1, "bfs"),
    ("sokoban", "microban", "sokoban/microban.xsb", 1, "astar"),
    ("sokoban", "microban", "sokoban/microban.xsb", 1, "fast"),
    ("sliding", "warm-up", "sliding/warm-up.txt", 8, "astar"),
    ("sliding", "warm-up", "sliding/warm-up.txt", 8, "idastar"),
    ("vexed", "tutorial", "vexed/00_tutorial.txt", 1, "bfs"),
    ("vexed", "tutorial", "vexed/00_tutorial.txt", 1, "fast"),
    ("blocks", "workshop", "blocks/workshop.txt", 1, "path"),
]


class Shown(HTMLParser):
    """What a reader of one element (by id) sees: its text, and the titles and labels that
    show on hover or are read out."""

    def __init__(self, ident: str):
        super().__init__()
        self.ident, self.depth, self.seen = ident, 0, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        fields = dict(attrs)
        if self.depth == 0 and fields.get("id") != self.ident:
            return
        if tag not in ("input", "br", "img", "meta", "link", "hr"):
            self.depth += 1
        for name in ("title", "aria-label", "alt", "placeholder"):
            if fields.get(name):
                self.seen.append(fields[name])

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in ("input", "br", "img", "meta", "link", "hr"):
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.seen.append(data)


def shown(html: str, ident: str = "solver") -> str:
    reader = Shown(ident)
    reader.feed(html)
    assert reader.seen, f"no #{ident} in the page"
    return re.sub(r"\s+", " ", " ".join(reader.seen))


def done_job(app, client, path: str, game: str, work: Work, result):
    from tests.test_flow import player_of
    from webapp.jobs.base import Job, Request
    from webapp.web.levels import find_level
    from webapp.web.solvers import get_runner

    with app.test_request_context(path):
        _, collection, ident = path.strip("/").split("/")
        board = find_level(game, collection, ident).board_key
    request = Request(game, "", work, Limits(), player_of(client), board)
    job = Job(
        id=f"{game}-{request.algorithm or type(work).__name__}",
        request=request,
        state="done",
        result=result,
    )
    with app.app_context():
        get_runner().jobs[job.id] = job
    return job


@pytest.mark.parametrize(("name", "collection", "file", "number", "algorithm"), SOLVES)
def test_no_engine_word_in_the_panel_after_a_solve(
    app, client, name, collection, file, number, algorithm
):
    game = games.get(name)
    level = game.parse((LEVELS / file).read_text(encoding="utf-8"))[number - 1]
    result = solve(game, level, algorithm, limits=Limits(seconds=30))
    assert result.status == "solved"
    path = f"/{name}/{collection}/{number}"
    Player(client, path)
    done_job(app, client, path, name, Solve(algorithm), result)
    page = client.get(path).text
    words = shown(page)
    assert "positions looked at" in words and "Solved" in words
    assert game.algorithms()[algorithm].label in words
    assert ENGINE_WORDS.findall(words) == []
    # Each figure says what it is, in a title on hover.
    figures = re.findall(r'<div title="([^"]+)"><dt>([^<]+)</dt><dd id="stat-', page)
    assert len(figures) == 6 and all(what.endswith(".") for what, _ in figures)


def test_a_running_search_with_a_bound_says_so_in_words(app):
    from webapp.jobs.base import Job, Request
    from webapp.web.levels import find_level
    from webapp.web.watch import render_stream

    job = Job(id="r", request=Request("sliding", "", Solve("idastar"), Limits(), "p", "b"))
    job.state = "running"
    job.progress = Progress(1500, 4000, 30, 22, 2.0, 750.0, note="f-bound 22")
    for t in range(1, 30):
        job.history.append((t / 10, 50 * t, 3 * t))
    with app.test_request_context("/sliding/warm-up/8"):
        html = render_stream(find_level("sliding", "warm-up", "8"), job)
    words = shown(f'<div id="stream">{html}</div>', "stream")
    assert ENGINE_WORDS.findall(words) == []
    assert '<dt>the shortest a solution can still be (moves)</dt><dd id="stat-depth">22<' in html
    assert "positions waiting" in words and "positions a second" in words
    # Vexed's A* searching within par reports how deep it has gone, which bounds nothing.
    job = Job(id="v", request=Request("vexed", "", Solve("fast"), Limits(), "p", "b"))
    job.state = "running"
    job.progress = Progress(1500, 4000, 30, 17, 2.0, 750.0, note="")
    with app.test_request_context("/vexed/tutorial/1"):
        html = render_stream(find_level("vexed", "tutorial", "1"), job)
    assert '<dt>how deep it looks (moves)</dt><dd id="stat-depth">17<' in html


def test_the_optimizers_panel_speaks_of_solutions_and_what_they_save(app, client):
    from webapp.games.sokoban import GAME

    level = GAME.parse((LEVELS / "sokoban/microban.xsb").read_text(encoding="utf-8"))[0]
    given = GAME.split_moves("rldlUrrrdLullddrUluRuulDrddrruLdlUU")  # two moves too many
    better = GAME.improve(level, given, "moves", 5.0)
    from webapp.search import Result

    result = Result(
        status="solved",
        moves=better.moves,
        expanded=better.expanded,
        generated=1,
        seconds=0.5,
        metric="moves",
        extra={"shortened_from": GAME.count(level, given)},
    )
    path = "/sokoban/microban/1"
    Player(client, path)
    done_job(app, client, path, "sokoban", Improve(tuple(given), "moves"), result)
    page = client.get(path).text
    words = shown(page)
    assert ENGINE_WORDS.findall(words) == []
    assert "Shortened by the solution optimizer, in moves" in words
    assert re.search(r'<dt>the solution given \(moves\)</dt><dd id="stat-given">35<', page)
    assert re.search(r'<dt>moves saved</dt><dd id="stat-saved-moves">2<', page)
    assert re.search(r'<dt>pushes saved</dt><dd id="stat-saved-pushes">0<', page)
    assert re.search(r'<dt>shorter solutions found</dt><dd id="stat-found">1<', page)
    assert "states/s" not in page and "stat-frontier" not in page
