"""Every Python example in the README runs, and every shell example names a real command."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _python_blocks() -> list[str]:
    return BLOCK.findall(README.read_text(encoding="utf-8"))


def test_readme_has_python_examples():
    assert _python_blocks(), "README.md should show at least one Python example"


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_python_example_runs(index, tmp_path, corpus_dir, monkeypatch):
    # Examples refer to the corpus as "../shared/corpus" (relative to the repo) and write to
    # ./workspace-like folders: run them from a copy of that layout inside tmp_path.
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "shared").mkdir()
    os.symlink(corpus_dir, tmp_path / "shared" / "corpus")
    monkeypatch.chdir(repo)
    code = _python_blocks()[index]
    exec(compile(code, f"README.md python block {index + 1}", "exec"), {"__name__": "__readme__"})


def _cli_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("ragcore ")]


def test_readme_cli_examples_use_real_commands_and_options():
    import shlex

    from ragcore.cli import build_parser

    lines = _cli_lines()
    assert lines, "README.md should show CLI examples"
    parser = build_parser()
    for line in lines:
        try:
            parser.parse_args(shlex.split(line)[1:])
        except SystemExit as exc:  # argparse exits on an unknown command or option
            raise AssertionError(f"README example does not parse: {line}") from exc
