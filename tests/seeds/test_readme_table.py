"""The "Coming from LlamaIndex" table (docs/llamaindex.md) names every LlamaIndex name these
examples use."""

import ast
import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parent
PAGE = SEEDS.parents[1] / "docs" / "llamaindex.md"


def compat_names() -> set[str]:
    names = set()
    for path in SEEDS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "ragcore.compat"):
                names |= {alias.name for alias in node.names}
    return names


def test_every_llamaindex_name_used_in_the_seeds_is_in_the_table():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Coming from LlamaIndex"):]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    names = compat_names()
    assert len(names) > 40
    missing = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", table))
    assert not missing, f"add these to docs/llamaindex.md's Coming from LlamaIndex table: {missing}"
