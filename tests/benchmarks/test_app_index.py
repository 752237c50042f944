"""The check's benchmarks index their files as the app does: where the checkout lives does not
move a chunk border (the unseen tune half's replay read 26/43 right at one folder, 27/43 at
another, from the same recorded answers), and a change to how files are split builds anew."""

from __future__ import annotations

from pathlib import Path

from benchmarks.answers import corpus_index
from benchmarks.answers.corpus_index import app_index

TEXT = "\n\n".join(f"Paragraph {n}: the heron stands in the reeds of the river and waits "
                   f"for the fish that swim past at dusk, {n} times a night." for n in range(40))


def _chunks(folder: Path, tmp_path: Path) -> list[str]:
    folder.mkdir(parents=True)
    (folder / "herons.md").write_text(TEXT)
    index = app_index([folder / "herons.md"], tmp_path / f"cache-{len(folder.parts)}")
    return [node.text for doc in index.ref_doc_ids() for node in index.nodes_for_doc(doc)]


def test_the_checkout_s_folder_does_not_move_chunk_borders(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    near = _chunks(tmp_path / "a", tmp_path)
    far = _chunks(tmp_path / "a-folder-with-a-much-longer-name" / "and" / "deeper" / "still"
                  / "than-the-first", tmp_path)
    assert len(near) > 3 and near == far


def test_a_change_to_the_code_that_splits_files_builds_the_index_anew(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    (tmp_path / "herons.md").write_text(TEXT)
    app_index([tmp_path / "herons.md"], tmp_path / "cache")
    monkeypatch.setattr(corpus_index, "_NODE_CODE", ("readers", "cards"))  # chunking changed
    app_index([tmp_path / "herons.md"], tmp_path / "cache")
    assert len(list((tmp_path / "cache").iterdir())) == 2
