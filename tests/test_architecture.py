"""The map of docs/ARCHITECTURE.md, checked: imports run one way, and only a game's own folders
know the game.

Every import counts, those inside functions too: an import moved into a function still runs,
and hiding a cycle there is what these tests are for. Imports under ``if TYPE_CHECKING:`` do not
run and are left out.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "webapp"
GAME_NAMES = ("sokoban", "sliding", "vexed", "blocks")
NAMED = re.compile(r"\b(" + "|".join(GAME_NAMES) + r")\b")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules a file imports (``from a import b`` names a.b when it is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if target in known:
                    found.add(target)
                elif node.module in known:
                    found.add(node.module)
    return found


def import_graph() -> dict[str, set[str]]:
    """Every module's project imports (read once for all the tests below: it parses every
    file, and the tree does not change while they run)."""
    return {name: set(targets) for name, targets in _graph().items()}


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    known = modules()
    return {name: frozenset(imports_of(path, known) - {name}) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle_between_modules():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def game_of(module: str) -> str | None:
    """The game package a module belongs to (a package under webapp/games/), or None."""
    parts = module.split(".")
    if parts[:2] == ["webapp", "games"] and len(parts) > 2:
        if (PACKAGE / "games" / parts[2] / "__init__.py").exists():
            return parts[2]
    return None


def test_only_a_game_imports_its_own_package():
    graph = import_graph()
    stray = [
        f"{source} imports {target}"
        for source, targets in graph.items()
        for target in targets
        if game_of(target) is not None and game_of(target) != game_of(source)
    ]
    assert stray == []


def _python_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def shared_files() -> list[Path]:
    """Every file of the web app that is not one game's own."""
    own = [PACKAGE / "games" / name for name in GAME_NAMES]
    own += [ROOT / "templates" / name for name in GAME_NAMES]
    own += [ROOT / "static" / "games" / name for name in GAME_NAMES]
    found = []
    for folder in (PACKAGE, ROOT / "templates", ROOT / "static"):
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or any(path.is_relative_to(mine) for mine in own):
                continue
            if path.suffix in {".py", ".html", ".js", ".css"} and "vendor" not in path.parts:
                found.append(path)
    return found


def test_no_shared_file_names_a_game():
    offenders = []
    for path in shared_files():
        if path.suffix == ".py":
            lines = _python_literals(path)
        else:
            lines = list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
        for number, text in lines:
            if NAMED.search(text):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {NAMED.search(text)[0]}")
    assert offenders == []


#: The tiers by folder, highest first: a module imports only from its own tier or below.
#: Operations run the app; the web tier is Flask's; core, jobs and storage are Flask-free
#: services; the games (with the one door to their solvers), the editor's verdict and the
#: generator driver below them; the generic search the games are built on at the bottom.
TIERS = {
    "webapp.__main__": 4,
    "webapp.ops": 4,
    "webapp": 3,  # create_app
    "webapp.web": 3,
    "webapp.core": 2,
    "webapp.jobs": 2,
    "webapp.storage": 2,
    "webapp.generating": 1,
    "webapp.checking": 1,
    "webapp.games": 1,
    "webapp.search": 0,
}
#: What only the web tier may import.
WEB_LIBRARIES = ("flask", "flask_sock", "flask_limiter", "werkzeug", "jinja2")


def tier_of(module: str) -> int:
    """The tier of a module: that of the longest folder (or module) of TIERS it is in."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in TIERS:
            return TIERS[prefix]
    raise AssertionError(f"{module} is in no tier: give its folder one in TIERS")


def upward(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{source} (tier {tier_of(source)}) imports {target} (tier {tier_of(target)})"
        for source, targets in sorted(graph.items())
        for target in sorted(targets)
        if tier_of(target) > tier_of(source)
    ]


def test_imports_run_down_the_tiers():
    assert upward(import_graph()) == []


def outside_the_games(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a module under webapp/games of any project module but the games' own and
    the generic search they are built on (the standard library and third-party packages are
    not in the graph)."""
    return [
        f"{source} imports {target}"
        for source, targets in sorted(graph.items())
        if within(source, "webapp.games")
        for target in sorted(targets)
        if not (within(target, "webapp.games") or within(target, "webapp.search"))
    ]


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_games_import_nothing_above_them():
    """The games stand alone: a game, the one door to its solvers and the games' registry
    import only each other and the generic search, so any caller may use them."""
    assert outside_the_games(import_graph()) == []


def test_a_game_importing_above_the_games_is_found():
    graph = {
        "webapp.games.sokoban.generate": {"webapp.games.solving", "webapp.checking"},
        "webapp.games.solving": {"webapp.games.base", "webapp.search.engine", "webapp.search"},
        "webapp.checking": {"webapp.games.solving"},
    }
    assert outside_the_games(graph) == ["webapp.games.sokoban.generate imports webapp.checking"]


def test_an_import_up_the_tiers_is_found():
    graph = {"webapp.core.play": {"webapp.web.pages"}, "webapp.web.pages": {"webapp.core.play"}}
    assert upward(graph) == ["webapp.core.play (tier 2) imports webapp.web.pages (tier 3)"]


def libraries_of(path: Path) -> set[str]:
    """The top-level names of everything a file imports (outside TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_nothing_outside_the_web_tier_imports_the_web_libraries():
    offenders = [
        f"{name} imports {library}"
        for name, path in modules().items()
        if tier_of(name) != 3
        for library in sorted(libraries_of(path) & set(WEB_LIBRARIES))
    ]
    assert offenders == []


def test_few_modules_stand_directly_in_the_package():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert len(loose) <= 6, loose


def test_a_solver_child_loads_neither_flask_nor_a_database_driver():
    """What a solver process imports to run a job: no web framework, no database driver
    (the app factory is loaded only when it is asked for)."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, webapp.jobs.child, webapp.jobs.worker\n"
            "print(' '.join(m for m in ('flask', 'psycopg', 'flask_sock', 'flask_limiter')"
            " if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    assert loaded == []


def fetching_store_and_player(source: str) -> list[str]:
    """The functions of a web module's ``source`` that fetch the request's store and its
    player each on their own: ``players.asker()`` makes the two into one core ``Asker``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            called = {
                call.func.id
                for call in ast.walk(node)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            }
            if {"get_store", "player_id"} <= called:
                found.append(node.name)
    return found


def test_a_view_asks_for_the_store_and_the_player_as_one_asker():
    offenders = [
        f"{path.name}: {name}"
        for path in sorted((PACKAGE / "web").glob("*.py"))
        if path.name != "players.py"  # where asker() makes the pair
        for name in fetching_store_and_player(path.read_text())
    ]
    assert offenders == []
    calls = sum(p.read_text().count("get_store()") for p in (PACKAGE / "web").glob("*.py"))
    assert calls <= 12, calls


def test_a_view_fetching_the_pair_on_its_own_is_found():
    source = "def view():\n    store, player = get_store(), player_id()\n"
    assert fetching_store_and_player(source) == ["view"]
