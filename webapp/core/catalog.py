"""The built-in level collections under levels/<game>/, and content ids for pasted levels."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from webapp import games
from webapp.games.base import Collection, Game

LEVELS_DIR = Path(__file__).resolve().parents[2] / "levels"

#: The collection name that holds levels players paste or upload, addressed by content id.
CUSTOM = "custom"
#: The collection name of positions given entirely by their URL (the sliding puzzle's codes).
POSITION = "p"


@dataclass(frozen=True)
class LevelRef:
    """Where a level lives: a built-in collection and 1-based number, or a custom content id."""

    game: str
    collection: str
    number: int = 0
    custom_id: str = ""

    @property
    def key(self) -> str:
        if self.custom_id:
            return f"{self.collection}/{self.custom_id}"
        return f"{self.collection}/{self.number}"

    @property
    def path(self) -> str:
        return f"/{self.game}/{self.key}"


@cache
def collections(game_name: str) -> tuple[Collection, ...]:
    """The game's collections, in the order of its collections.json; parsed once."""
    game = games.get(game_name)
    folder = LEVELS_DIR / game_name
    index = folder / "collections.json"
    if not index.exists():
        return ()
    found = []
    for entry in json.loads(index.read_text(encoding="utf-8")):
        text = (folder / entry["file"]).read_text(encoding="utf-8")
        found.append(
            Collection(
                slug=entry["slug"],
                title=entry["title"],
                levels=tuple(game.parse(text)),
                credit=entry.get("credit", ""),
                description=entry.get("description", ""),
            )
        )
    return tuple(found)


def collection(game_name: str, slug: str) -> Collection | None:
    for found in collections(game_name):
        if found.slug == slug:
            return found
    return None


@cache
def _optima(game_name: str) -> dict[str, int]:
    """Board text to the proved shortest solution, from levels/<game>/optima.tsv (file, level
    number, title, par, optimum a row): the levels whose published par is below it."""
    game = games.get(game_name)
    folder = LEVELS_DIR / game_name
    index = folder / "optima.tsv"
    if not index.exists():
        return {}
    packs: dict[str, list[Any]] = {}
    found: dict[str, int] = {}
    with open(index, newline="", encoding="utf-8") as rows:
        for row in csv.DictReader(rows, delimiter="\t"):
            if row["file"] not in packs:
                packs[row["file"]] = game.parse((folder / row["file"]).read_text(encoding="utf-8"))
            level = packs[row["file"]][int(row["level"]) - 1]
            found[game.board_text(level)] = int(row["optimum"])
    return found


def known_optimum(game: Game, level: Any) -> int | None:
    """The proved length of the shortest solution of a board, where its par is below it,
    wherever the board comes from (a built-in collection, a paste, a shared link); else None."""
    optimum = _optima(game.name).get(game.board_text(level))
    par = game.par(level)
    return optimum if optimum is not None and par is not None and optimum > par else None


def content_id(game: Game, level: Any) -> str:
    """A short id derived from the board alone: the same board always gets the same id."""
    digest = hashlib.sha256(f"{game.name}\n{game.board_text(level)}".encode()).hexdigest()
    return digest[:12]


def level_title(game: Game, level: Any, fallback: str) -> str:
    """A level's title as the player sees it: its own, or ``fallback``. A collection whose
    source file numbers its levels from 0 ("Boxoban hard 0" is its first) is numbered from 1,
    as its pages number it."""
    renumbered = _renumbered(game.name).get(level)
    return renumbered or game.level_title(level) or fallback


_NUMBERED = re.compile(r"(.*?)\s*(\d+)")


@cache
def _renumbered(game_name: str) -> dict[Any, str]:
    """Titles renumbered from 1 for the levels of collections whose titles all read
    "<the same words> <its number - 1>"."""
    game = games.get(game_name)
    titles: dict[Any, str] = {}
    for found in collections(game_name):
        matches = [_NUMBERED.fullmatch(game.level_title(level)) for level in found.levels]
        if not matches or any(match is None for match in matches):
            continue
        words = {match.group(1) for match in matches if match is not None}
        numbers = [int(match.group(2)) for match in matches if match is not None]
        if len(words) == 1 and numbers == list(range(len(numbers))):
            prefix = words.pop()
            for number, level in enumerate(found.levels, 1):
                titles[level] = f"{prefix} {number}"
    return titles
