"""Every Python example in the README and the docs/ pages runs, and every shell example names a
real command. The README is short and links its details to docs/ pages; their examples are the
ones it moved there, so they are run as its own are."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _name(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


def _python_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


EXAMPLES = [(page, index) for page in PAGES for index in range(len(_python_blocks(page)))]


def test_readme_has_python_examples():
    assert _python_blocks(README), "README.md should show at least one Python example"


def test_readme_is_short_and_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, "README.md is for newcomers: at most 250 lines"
    first_block = text.split("```")[1]
    assert "make run" in first_block and "make test" in first_block, "set-up commands come first"
    missing = [_name(p) for p in PAGES[1:] if f"({_name(p)}" not in text]
    assert not missing, f"link these docs pages from README.md: {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("page, index", EXAMPLES,
                         ids=[f"{_name(page)}-{index + 1}" for page, index in EXAMPLES])
def test_readme_python_example_runs(page, index, tmp_path, corpus_dir, monkeypatch):
    # Examples refer to the corpus as "../shared/corpus" (relative to the repo) and write to
    # ./workspace-like folders: run them from a copy of that layout inside tmp_path.
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "shared").mkdir()
    os.symlink(corpus_dir, tmp_path / "shared" / "corpus")
    monkeypatch.chdir(repo)
    code = _python_blocks(page)[index]
    exec(compile(code, f"{_name(page)} python block {index + 1}", "exec"),
         {"__name__": "__readme__"})


def _cli_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
        lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
        found += [(_name(page), line) for line in lines if line.startswith("ragcore ")]
    return found


def test_readme_cli_examples_use_real_commands_and_options():
    import shlex

    from ragcore.cli import build_parser

    lines = _cli_lines()
    assert any(name == "README.md" for name, _ in lines), "README.md should show CLI examples"
    parser = build_parser()
    for name, line in lines:
        try:
            parser.parse_args(shlex.split(line)[1:])
        except SystemExit as exc:  # argparse exits on an unknown command or option
            raise AssertionError(f"{name} example does not parse: {line}") from exc
