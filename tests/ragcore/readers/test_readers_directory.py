"""SimpleDirectoryReader: which files a folder scan picks, options, ids and metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.errors import ConfigError
from ragcore.readers import SimpleDirectoryReader
from ragcore.types import MetadataMode


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "a.txt": "alpha\n",
        "b.md": "# Bravo\n",
        "c.csv": "k,v\nx,1\n",
        "image.png": "not really a png",
        ".hidden.txt": "hidden\n",
        ".git/config.txt": "git internals\n",
        "sub/d.txt": "delta\n",
        "sub/e.log": "echo\n",
        "sub/deeper/f.md": "# Foxtrot\n",
        "drafts/g.txt": "golf draft\n",
        "~$lock.docx": "office lock file",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _names(reader: SimpleDirectoryReader, root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in reader.iter_files()]


def test_flat_scan_lists_every_visible_file_sorted(tree: Path):
    # Any extension: load_file decides by content ("image.png" here holds text).
    names = _names(SimpleDirectoryReader(input_dir=tree), tree)
    assert names == ["a.txt", "b.md", "c.csv", "image.png"]


def test_recursive_scan_skips_hidden_folders(tree: Path):
    reader = SimpleDirectoryReader(input_dir=tree, recursive=True)
    assert _names(reader, tree) == [
        "a.txt", "b.md", "c.csv", "drafts/g.txt", "image.png", "sub/d.txt", "sub/deeper/f.md",
        "sub/e.log",
    ]


def test_hidden_files_can_be_included(tree: Path):
    reader = SimpleDirectoryReader(input_dir=tree, exclude_hidden=False, required_exts=[".txt"])
    assert _names(reader, tree) == [".hidden.txt", "a.txt"]


def test_exclude_globs_match_names_paths_and_folders(tree: Path):
    patterns = ["*.md", "drafts", "sub/e.*"]
    reader = SimpleDirectoryReader(input_dir=tree, recursive=True, exclude=patterns)
    assert _names(reader, tree) == ["a.txt", "c.csv", "image.png", "sub/d.txt"]
    patterns = ["**/deeper/*", "sub/*.txt"]
    reader = SimpleDirectoryReader(input_dir=tree, recursive=True, exclude=patterns)
    assert "sub/deeper/f.md" not in _names(reader, tree)
    assert "sub/d.txt" not in _names(reader, tree)


def test_required_exts_accept_any_spelling_and_unknown_types(tree: Path):
    reader = SimpleDirectoryReader(input_dir=tree, recursive=True, required_exts=["MD", ".log"])
    assert _names(reader, tree) == ["b.md", "sub/deeper/f.md", "sub/e.log"]
    reader = SimpleDirectoryReader(input_dir=tree, required_exts=["png"])
    (doc,) = reader.load_data()
    assert doc.text == "not really a png"


def test_num_files_limit_caps_the_list(tree: Path):
    reader = SimpleDirectoryReader(input_dir=tree, recursive=True, num_files_limit=2)
    assert _names(reader, tree) == ["a.txt", "b.md"]
    assert len(reader.load_data()) == 2


def test_input_files_are_read_exactly_in_order(tree: Path):
    reader = SimpleDirectoryReader(
        input_files=[tree / "sub" / "d.txt", str(tree / "a.txt"), tree / "sub" / "d.txt"]
    )
    docs = reader.load_data()
    assert [d.text for d in docs] == ["delta\n", "alpha\n"]
    assert reader.failures == []


def test_missing_input_file_is_a_failure_not_a_crash(tree: Path):
    reader = SimpleDirectoryReader(input_files=[tree / "a.txt", tree / "missing.txt", tree / "sub"])
    docs = reader.load_data()
    assert [d.text for d in docs] == ["alpha\n"]
    assert [Path(e.path).name for e in reader.failures] == ["missing.txt", "sub"]


def test_ids_are_stable_paths_by_default_and_random_on_request(tree: Path):
    first = SimpleDirectoryReader(input_dir=tree).load_data()
    again = SimpleDirectoryReader(input_dir=tree).load_data()
    assert [d.doc_id for d in first] == [d.doc_id for d in again]
    assert first[0].doc_id == str((tree / "a.txt").resolve())
    random_ids = SimpleDirectoryReader(input_dir=tree, filename_as_id=False).load_data()
    assert not {d.doc_id for d in random_ids} & {d.doc_id for d in first}


def test_file_metadata_and_excluded_keys_options(tree: Path):
    reader = SimpleDirectoryReader(
        input_files=[tree / "a.txt"],
        file_metadata=lambda path: {"category": "letters", "stem": path.stem},
        excluded_embed_metadata_keys=["file_path", "file_size"],
        excluded_llm_metadata_keys=[],
    )
    (doc,) = reader.load_data()
    assert doc.metadata["category"] == "letters" and doc.metadata["stem"] == "a"
    assert doc.excluded_embed_metadata_keys == ["file_path", "file_size"]
    assert doc.excluded_llm_metadata_keys == []
    embedded = doc.metadata_str(MetadataMode.EMBED)
    assert "creation_date" in embedded and "file_path" not in embedded


def test_progress_is_reported_per_file(tree: Path):
    calls = []
    reader = SimpleDirectoryReader(input_dir=tree)
    reader.load_data(progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_failures_reset_on_each_load(tree: Path):
    (tree / "empty.txt").write_bytes(b"")
    reader = SimpleDirectoryReader(input_dir=tree)
    reader.load_data()
    assert len(reader.failures) == 1
    (tree / "empty.txt").write_text("now it has text\n")
    reader.load_data()
    assert reader.failures == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of input_dir"),
        ({"input_dir": ".", "input_files": ["a"]}, "not both"),
        ({"input_dir": "/no/such/folder"}, "does not exist"),
        ({"input_files": "a.txt"}, "must be a list of paths"),
        ({"input_files": []}, "is empty"),
        ({"input_dir": ".", "exclude": "*.md"}, "list of strings"),
        ({"input_dir": ".", "required_exts": []}, "must list extensions"),
        ({"input_dir": ".", "num_files_limit": 0}, "positive integer"),
        ({"input_dir": ".", "num_files_limit": True}, "positive integer"),
    ],
)
def test_bad_options_say_what_to_do(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        SimpleDirectoryReader(**kwargs)


def test_input_dir_that_is_a_file(tree: Path):
    with pytest.raises(ConfigError, match="is not a folder"):
        SimpleDirectoryReader(input_dir=tree / "a.txt")


def test_real_corpus_folders(corpus_dir: Path):
    peps = SimpleDirectoryReader(
        input_dir=corpus_dir / "python_peps", required_exts=[".rst"], num_files_limit=5
    )
    docs = peps.load_data()
    assert [d.metadata["file_name"] for d in docs] == sorted(d.metadata["file_name"] for d in docs)
    assert len(docs) == 5 and all(d.text.startswith("PEP: ") for d in docs)
    book = SimpleDirectoryReader(
        input_dir=corpus_dir / "rust_book", recursive=True,
        exclude=["SOURCE.md", "LICENSE*", "COPYRIGHT"], num_files_limit=4
    )
    docs = book.load_data()
    assert len(docs) == 4 and all(d.metadata["file_type"] == "text/markdown" for d in docs)
    assert book.failures == []
    stories = SimpleDirectoryReader(
        input_dir=corpus_dir / "sherlock_holmes_xhtml", exclude=["*.md"]
    )
    files = stories.iter_files()
    assert len(files) == 17 and sum(p.suffix == ".xhtml" for p in files) == 16  # + core.css
