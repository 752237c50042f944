"""The wall between training and held-out data: the answerer's training code imports nothing
from ``benchmarks`` and names no held-out file, and its data folder holds training files only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"
sys.path.insert(0, str(REPO))  # training/ is a folder of the checkout, not the package

from training.answerer.squad import DATA, TRAINING_FILES  # noqa: E402


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_training_code_imports_nothing_from_benchmarks():
    sources = sorted(TRAINING.rglob("*.py"))
    assert sources, "no training modules found"
    wrong = {str(p.relative_to(REPO)): sorted(n for n in _imported(p)
                                              if n.split(".")[0] == "benchmarks")
             for p in sources}
    assert not {p: names for p, names in wrong.items() if names}


def test_training_code_names_no_heldout_file():
    for path in sorted(TRAINING.rglob("*.py")):
        assert "heldout" not in path.read_text(encoding="utf-8").lower(), path


def test_data_folder_holds_the_training_files_and_nothing_held_out():
    files = {p.name for p in DATA.iterdir()}
    assert set(TRAINING_FILES) <= files
    assert not [name for name in files if "heldout" in name]
