"""Every prompt the library sends lives in ``ragcore/prompts/``, and that package stays low.

A prompt defined beside the code that sends it cannot be checked with the others (the extractive
backend's contract is "our prompts"), so no module outside the package may define one at module
level: a name ending in ``_PROMPT``, ``_TEMPLATE`` or ``PROMPTS``, or a ``PromptTemplate``. The
package holds text and templates only, so it imports nothing above its own layer of the
import-linter contract in pyproject.toml.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "ragcore"
PROMPTS = PACKAGE / "prompts"
PROMPT_SUFFIXES = ("_PROMPT", "_TEMPLATE", "PROMPTS")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_template(value: ast.expr | None) -> bool:
    """``PromptTemplate(...)`` or ``PromptTemplate.from_string(...)``, however it was imported."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "from_string":
        func = func.value
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "PromptTemplate"


def module_level_prompts(source: str) -> list[tuple[int, str]]:
    """(line, name) of each module-level assignment of a prompt in ``source``."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        for name in (getattr(target, "id", "") for target in targets):
            if name.upper().endswith(PROMPT_SUFFIXES) or is_template(value):
                found.append((node.lineno, name))
    return found


def test_no_prompt_is_defined_outside_the_prompts_package():
    found = [f"{path.relative_to(ROOT)}:{line} {name}"
             for path in sorted(PACKAGE.rglob("*.py")) if PROMPTS not in path.parents
             for line, name in module_level_prompts(path.read_text(encoding="utf-8"))]
    assert found == [], "move these prompts into ragcore/prompts/: " + ", ".join(found)


def test_the_scan_finds_each_kind_of_prompt():
    source = ('X_PROMPT = "Say hi."\nQA = PromptTemplate("qa", "Answer.")\n'
              'T = prompts.PromptTemplate.from_string("{question}")\nCITATION_PROMPTS = qa()\n'
              'LIMIT = 3\nprompt_tokens = 4\n')
    assert [name for _, name in module_level_prompts(source)] == [
        "X_PROMPT", "QA", "T", "CITATION_PROMPTS"]


def test_the_prompts_package_holds_the_prompts():
    found = {name for path in PROMPTS.glob("*.py")
             for _, name in module_level_prompts(path.read_text(encoding="utf-8"))}
    assert {"QA", "CONDENSE", "CITATION_PROMPTS", "TITLE_PROMPT", "RERANK",
            "REACT_SYSTEM_TEMPLATE", "FAITHFULNESS_PROMPT"} <= found


def allowed_layers() -> set[str]:
    """The modules of the prompts layer and of every layer below it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = [[m.strip() for m in layer.replace("|", ":").split(":")]
              for layer in config["tool"]["importlinter"]["contracts"][0]["layers"]]
    here = next(i for i, layer in enumerate(layers) if "ragcore.prompts" in layer)
    return {m for layer in layers[here:] for m in layer}


def ragcore_imports(path: Path) -> set[str]:
    """The ragcore modules ``path`` imports, relative imports resolved."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
    return {n for n in names if n == "ragcore" or n.startswith("ragcore.")}


@pytest.mark.parametrize("path", sorted(PROMPTS.glob("*.py")), ids=lambda p: p.name)
def test_each_prompt_module_imports_nothing_above_its_layer(path):
    allowed = allowed_layers()
    above = {name for name in ragcore_imports(path)
             if not any(name == m or name.startswith(m + ".") for m in allowed)}
    assert above == set(), f"{path.name} imports {sorted(above)}, above ragcore.prompts' layer"
