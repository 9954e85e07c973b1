"""Levels made to order: a game's ``new_level`` hook driven from a difficulty and a seed,
each result checked against the game's own rules before anyone sees it.

The same game, difficulty and seed give the same level in one version of the app (Tatham's
rule): the seed alone feeds the generator's random numbers, and its searches are bounded by
counts, not time. Generation is a search: it runs in a solver child (``make_level`` is what
the job runner calls), never in the web process.
"""

from __future__ import annotations

import re
from random import Random
from typing import Any

from webapp import games
from webapp.games.base import DIFFICULTIES, Draft, Game, LevelError, Made
from webapp.games.solving import check_solution

#: What a seed may be: a short text of letters, digits and dashes (a date, a number).
SEED = re.compile(r"[A-Za-z0-9-]{1,40}")


def title_of(difficulty: str, seed: str, size: str = "") -> str:
    return f"Random {difficulty} {seed}" + (f" {size}" if size else "")


def generate(game: Game, difficulty: str, seed: str, size: str = "") -> Made:
    """The level ``game.new_level`` makes for ``difficulty``, ``seed`` and board ``size``
    (the game's default when empty), its solution replayed and its optimum counted again;
    LevelError for a difficulty, seed or size there is none of."""
    if not game.generates:
        raise LevelError(f"{game.title} makes no levels of its own")
    if difficulty not in DIFFICULTIES:
        raise LevelError(f"The difficulty is one of {', '.join(DIFFICULTIES)}, not {difficulty!r}.")
    if not SEED.fullmatch(seed):
        raise LevelError("A seed is 1 to 40 letters, digits or dashes.")
    if size and size not in game.made_sizes:
        known = ", ".join(game.made_sizes) or "none"
        raise LevelError(f"{game.title} makes boards of these sizes: {known}; not {size[:10]!r}.")
    if game.made_sizes and size == game.made_sizes[0]:
        size = ""  # the default: its levels keep the seeds they had before sizes were offered
    rng = Random(f"{game.name}/{difficulty}/{seed}" + (f"/{size}" if size else ""))
    settings = {"difficulty": difficulty, "title": title_of(difficulty, seed, size)}
    made = game.new_level(settings | ({"size": size} if size else {}), rng)
    problem = check_solution(game, made.level, game.start(made.level), made.solution)
    if problem:
        raise RuntimeError(f"the {game.name} generator's solution does not replay: {problem}")
    counted = game.count(made.level, made.solution).get(made.metric, len(made.solution))
    if counted != made.optimum:
        raise RuntimeError(f"the {game.name} generator counted {made.optimum}, not {counted}")
    return made


def make_level(
    game_name: str, game_module: str, difficulty: str, seed: str, size: str = ""
) -> dict[str, Any]:
    """``generate`` as a solver child runs it: what the web process needs, in plain data."""
    if game_module:
        games.register(game_module)
    game = games.get(game_name)
    made = generate(game, difficulty, seed, size)
    return {
        "text": game.level_text(made.level),
        "code": game.position_code(made.level) if game.has_position_codes else "",
        "optimum": made.optimum,
        "metric": made.metric,
        "proved": made.proved,
        "measures": made.measures,
        "solution": game.join_moves(made.solution),
    }


def shuffle_draft(
    game_name: str, game_module: str, rows: list[list[str]], fields: dict[str, str], moves: int
) -> dict[str, Any]:
    """The editor's shuffle to an exact distance, as a solver child runs it: a draft's board
    set to a position ``moves`` from solved, in plain data."""
    if game_module:
        games.register(game_module)
    editor = games.get(game_name).editor()
    if editor is None:
        return {"error": f"{game_name} has no editor"}
    try:
        draft = editor.shuffle(Draft(rows, fields), moves, Random())
    except LevelError as error:
        return {"error": error.message}
    return {"rows": draft.rows, "fields": draft.fields}
