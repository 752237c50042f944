"""Uploads whose names clean up alike are stored apart; the same name replaces its upload."""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.files import MAX_FILENAME_LENGTH, upload_name

# Different names a browser may send that all clean up to "a_b.txt" (or "passwd", "x...x.txt").
HOSTILE_GROUPS = [
    ["a:b.txt", "a?b.txt", "a*b.txt", "a|b.txt", "a\x00b.txt", "a\x1fb.txt", 'a"b.txt',
     "a<b.txt", "a_b.txt"],
    ["../../etc/passwd", "passwd.", " passwd", "passwd "],
    ["e\u0301t\u00e9.txt", "\u00e9t\u00e9.txt"],  # decomposed and composed accents
    ["x" * 200 + "1.txt", "x" * 200 + "2.txt", "x" * 117 + ".txt"],  # alike once cut to length
    ["a_b-1f0f1e95.txt"],  # shaped like a tagged name: tagged too
]


@pytest.fixture
def workspace(tmp_path):
    return Workspace(tmp_path / "ws", embedder=FakeEmbedder())


@pytest.mark.parametrize("names", HOSTILE_GROUPS)
def test_names_that_clean_up_alike_get_distinct_stored_names(names):
    stored = [upload_name(n) for n in names]
    assert len(set(stored)) == len(names), stored
    assert all(len(s) <= MAX_FILENAME_LENGTH and "/" not in s for s in stored)
    assert [upload_name(n) for n in names] == stored  # stable: the same name, the same file


def test_hostile_uploads_keep_each_others_content(workspace):
    names = [n for group in HOSTILE_GROUPS for n in group]
    paths = [workspace.save_upload("up", name, f"content {i}".encode())
             for i, name in enumerate(names)]
    assert len(set(paths)) == len(names)
    for i, path in enumerate(paths):
        assert path.read_bytes() == f"content {i}".encode()
        assert path.parent == workspace.upload_dir("up")


def test_a_safe_name_is_kept_and_uploading_it_again_replaces_it(workspace):
    first = workspace.save_upload("up", "plan.txt", b"first")
    again = workspace.save_upload("up", "plan.txt", b"second")
    assert first == again and first.name == "plan.txt"
    assert again.read_bytes() == b"second"
    assert workspace.save_upload("up", "C:\\docs\\plan.txt", b"third") == first  # same name


def test_an_unsafe_name_uploaded_again_replaces_only_its_own_upload(workspace):
    colon = workspace.save_upload("up", "a:b.txt", b"colon 1")
    mark = workspace.save_upload("up", "a?b.txt", b"question")
    assert workspace.save_upload("up", "a:b.txt", b"colon 2") == colon
    assert colon.read_bytes() == b"colon 2" and mark.read_bytes() == b"question"
    assert colon.suffix == ".txt" and colon.name.startswith("a_b-")
