"""The README's "Coming from LlamaIndex" table names every LlamaIndex name these examples use."""

import ast
import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parent
README = SEEDS.parents[1] / "README.md"


def compat_names() -> set[str]:
    names = set()
    for path in SEEDS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "ragcore.compat"):
                names |= {alias.name for alias in node.names}
    return names


def test_every_llamaindex_name_used_in_the_seeds_is_in_the_readme_table():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Coming from LlamaIndex"):]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    names = compat_names()
    assert len(names) > 40
    missing = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", table))
    assert not missing, f"add these to the README's Coming from LlamaIndex table: {missing}"
