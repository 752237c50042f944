"""Index names people would type (issue 13): display names over safe folder names."""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.files import validate_name
from ragcore.workspace.names import display_name, folder_name, name_problem, set_display_name


@pytest.mark.parametrize("typed, folder", [
    ("Dossiers été 2024", "Dossiers-ete-2024"),
    ("  contracts  ", "contracts"),
    ("Q3 / Q4 reports!", "Q3-Q4-reports"),
    ("Señor Müller's notes", "Senor-Muller-s-notes"),
    ("日本語", "index-"),  # no Latin letters: a name made from a hash of the typed one
    ("---", ""),
])
def test_folder_names_are_safe_and_readable(typed, folder):
    if folder == "index-":
        assert folder_name(typed).startswith("index-") and len(folder_name(typed)) == 16
    else:
        assert folder_name(typed) == folder
    if folder:
        assert validate_name(folder) == folder


def test_problems_are_said_in_plain_words():
    assert name_problem("Dossiers été", []) is None
    assert name_problem("   ", []) == "Type a name for the new index."
    assert name_problem("日本語", []) is None
    assert "letter or digit" in name_problem("--- ?", [])
    assert "already exists" in name_problem("dossiers ÉTÉ", ["Dossiers  été"])  # shown names
    assert name_problem("Dossiers-ete", ["Dossiers été"]) is None  # it gets a folder of its own
    assert "keep it to 80" in name_problem("x" * 81, [])


def test_the_typed_name_is_kept_in_the_record_and_shown(tmp_path):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    folder = folder_name("Dossiers été 2024")
    ws.create_index(folder)
    assert display_name(ws, folder) == folder  # nothing typed yet: the folder name
    set_display_name(ws, folder, "Dossiers  été 2024")
    assert display_name(Workspace(tmp_path / "ws"), folder) == "Dossiers été 2024"
    assert display_name(ws, "missing") == "missing"


def test_a_typed_name_finds_the_index_shown_by_it_before_a_folder_of_that_name(tmp_path):
    """"Alpha" renamed "Delta" keeps folder Alpha; a new "Alpha" gets Alpha-2 and a later
    "Alpha-2" gets Alpha-2-2: each typed name finds the index people see under it."""
    from ragcore.workspace.names import free_folder, rename_index, resolve_index

    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder(dim=8))

    def make(typed: str) -> str:
        folder = free_folder(ws, typed)
        ws.create_index(folder)
        set_display_name(ws, folder, typed)
        return folder

    old = make("Alpha")
    rename_index(ws, old, "Delta")
    alpha, alpha_2 = make("Alpha"), make("Alpha-2")
    assert (old, alpha, alpha_2) == ("Alpha", "Alpha-2", "Alpha-2-2")
    assert resolve_index(ws, "alpha") == alpha
    assert resolve_index(ws, "Alpha-2") == alpha_2
    assert resolve_index(ws, "Delta") == old
    assert resolve_index(ws, "Alpha-2-2") == alpha_2  # a folder name still finds its index
    assert resolve_index(ws, "Gamma") == "Gamma"  # a new index's folder
