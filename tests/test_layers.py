"""The package's shape: data flows one way, no import cycles, no module grows past ~400 lines.

The layers are declared once, in pyproject.toml's ``[tool.importlinter]`` (import-linter runs
them here, so a violation fails the suite with import-linter's own report). The cycle check
covers what layers cannot: two modules of one package importing each other, at any depth,
including imports inside functions (only ``if TYPE_CHECKING:`` imports are exempt).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ragcore"
MAX_LINES = 420  # STYLE.md: "modules stay under ~400 lines"


def test_every_stage_imports_only_the_stages_below_it():
    # In a subprocess: import-linter reconfigures logging, which would silence ragcore's loggers
    # for the tests that run after this one.
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))",
         str(ROOT / "pyproject.toml")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the groups of two or more modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return groups


def test_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("type_only", [False, True], ids=["runtime", "with-type-only"])
def test_no_module_imports_itself_back_through_others(type_only: bool):
    # Type-only imports count too: a type-only cycle is broken with a narrow Protocol.
    graph = grimp.build_graph("ragcore", exclude_type_checking_imports=not type_only,
                              cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    # A package's __init__ re-exporting its submodules is not a cycle with them.
    for module, imported in edges.items():
        edges[module] = {i for i in imported if not module.startswith(i + ".")}
    cycles = strongly_connected(edges)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept"


def test_the_library_never_imports_the_app():
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            )
            for name in names:
                top = name.split(".")[0]
                assert top not in ("streamlit", "webapp"), f"{path} imports {name}"


def test_every_module_has_a_layer():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
    tops = {f"ragcore.{p.stem if p.is_file() else p.name}" for p in PACKAGE.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert tops - named == set(), "add these modules to [tool.importlinter] layers"


MAX_TOP_LEVEL_MODULES = 18  # one family of modules is one subpackage (search, retrieval, http, ...)


def test_the_top_level_stays_a_table_of_contents():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, (
        f"ragcore/ has {len(modules)} top-level modules ({', '.join(modules)}): move a family of "
        "them into a subpackage named for its stage, as ragcore/search/ and ragcore/retrieval/ are"
    )
