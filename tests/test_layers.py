"""The package's shape: data flows one way, no import cycles, no module grows past ~400 lines,
no folder past 16 modules, and the app reaches the library through a few doors. The app's
support code (``webapp/``) and the benchmarks (``benchmarks/``) keep the same folder size and the
same freedom from cycles, and the app's wings have their own layers.

The layers are declared once, in pyproject.toml's ``[tool.importlinter]`` (import-linter runs
them here, so a violation fails the suite with import-linter's own report). The cycle check
covers what layers cannot: two modules of one package importing each other, at any depth,
including imports inside functions (only ``if TYPE_CHECKING:`` imports are exempt), and between
packages: within any package, its sub-packages (and, at the top, every module and package of
``ragcore``, ``webapp`` and ``benchmarks``) never import each other in a circle.
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
MAX_MODULES = 16  # per folder of ragcore/, __init__.py included: more, and it wants sub-packages
# compat/core mirrors llama_index.core module for module (``from llama_index.core.X import``
# becomes ``from ragcore.compat.core.X import``): its names are LlamaIndex's, not ours to group.
MIRRORS = {PACKAGE / "compat" / "core"}
# webapp/ and benchmarks/ are folders of the checkout beside ragcore, not installed packages.
HOUSES = ("ragcore", "webapp", "benchmarks")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
MAX_APP_IMPORTS = 40  # distinct ragcore modules app.py, pages/ and webapp/ import
MAX_TEST_FILES = 40  # test modules directly in tests/; the rest mirror what they test


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
    graph = grimp.build_graph(*HOUSES, exclude_type_checking_imports=not type_only,
                              cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    # A package's __init__ re-exporting its submodules is not a cycle with them.
    for module, imported in edges.items():
        edges[module] = {i for i in imported if not module.startswith(i + ".")}
    cycles = strongly_connected(edges)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def package_cycles(graph) -> dict[str, list[list[str]]]:
    """For every package: the groups of its sub-packages (at the top of each house: of its
    modules and packages) that import each other in a circle, modules collapsed into their
    sub-package."""
    packages = {m for m in graph.modules if (ROOT / m.replace(".", "/") / "__init__.py").exists()}
    found = {}
    for parent in sorted(packages):
        depth = parent.count(".") + 2
        children = {m for m in graph.modules
                    if m.startswith(parent + ".") and m.count(".") == depth - 1}
        nodes = children if "." not in parent else children & packages
        edges: dict[str, set[str]] = {node: set() for node in nodes}
        for module in graph.modules:
            source = ".".join(module.split(".")[:depth])
            if source not in nodes or not module.startswith(parent + "."):
                continue
            for imported in graph.find_modules_directly_imported_by(module):
                target = ".".join(imported.split(".")[:depth])
                if target in nodes and target != source:
                    edges[source].add(target)
        if cycles := strongly_connected(edges):
            found[parent] = cycles
    return found


def test_package_cycle_finder_collapses_modules_into_packages():
    class Graph:  # ragcore.index.disk.a -> ragcore.stores.b -> ragcore.index.c: a package cycle
        modules = {"ragcore", "ragcore.index", "ragcore.index.disk", "ragcore.index.disk.a",
                   "ragcore.index.c", "ragcore.stores", "ragcore.stores.b"}
        imports = {"ragcore.index.disk.a": {"ragcore.stores.b"},
                   "ragcore.stores.b": {"ragcore.index.c"}}

        def find_modules_directly_imported_by(self, module):
            return self.imports.get(module, set())

    assert package_cycles(Graph()) == {"ragcore": [["ragcore.index", "ragcore.stores"]]}


@pytest.mark.parametrize("type_only", [False, True], ids=["runtime", "with-type-only"])
def test_no_package_imports_itself_back_through_others(type_only: bool):
    graph = grimp.build_graph(*HOUSES, exclude_type_checking_imports=not type_only,
                              cache_dir=None)
    cycles = package_cycles(graph)
    assert not cycles, "package cycles: " + "; ".join(
        f"in {parent}: " + " <-> ".join(group) for parent, groups in cycles.items()
        for group in groups)


@pytest.mark.parametrize("folder", sorted({p.parent for house in HOUSES
                                           for p in (ROOT / house).rglob("*.py")} - MIRRORS),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_folders_stay_small(folder: Path):
    modules = sorted(p.name for p in folder.glob("*.py"))
    assert len(modules) <= MAX_MODULES, (
        f"{folder.relative_to(ROOT)} holds {len(modules)} modules: group them into packages")


def app_imports() -> set[str]:
    """The distinct ragcore modules the app's files import (``from ragcore.x import y`` counts
    ``ragcore.x``)."""
    modules = set()
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "webapp").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            modules |= {n for n in names if n == "ragcore" or n.startswith("ragcore.")}
    return modules


def test_the_app_reaches_the_library_through_few_doors():
    modules = app_imports()
    assert len(modules) <= MAX_APP_IMPORTS, (
        f"the app imports {len(modules)} ragcore modules (at most {MAX_APP_IMPORTS}): import "
        f"from the packages' public names instead: {sorted(modules)}")


def test_tests_mirror_the_code():
    flat = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert len(flat) <= MAX_TEST_FILES, (
        f"{len(flat)} test modules directly in tests/ (at most {MAX_TEST_FILES}): put a module's "
        "tests under tests/ragcore/<package>/, the app's under tests/app/ or tests/browser/")
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    twice = sorted({n for n in names if names.count(n) > 1})
    assert not twice, f"test modules share a name (conftest puts every folder on the path): {twice}"


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
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    # ragcore's layers name whole modules; the app's are relative to its container, webapp.
    for contract, package, prefix in (("layers", "ragcore", "ragcore."), ("webapp", "webapp", "")):
        layers = contracts[contract]["layers"]
        named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
        tops = {f"{prefix}{p.stem if p.is_file() else p.name}" for p in (ROOT / package).iterdir()
                if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
        assert tops - named == set(), f"add these modules to the {contract!r} contract's layers"


MAX_TOP_LEVEL_MODULES = 18  # one family of modules is one subpackage (search, retrieval, http, ...)


def test_the_top_level_stays_a_table_of_contents():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, (
        f"ragcore/ has {len(modules)} top-level modules ({', '.join(modules)}): move a family of "
        "them into a subpackage named for its stage, as ragcore/search/ and ragcore/retrieval/ are"
    )
