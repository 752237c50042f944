"""Seed 000 (LlamaIndex deep dive), "Loading": SimpleDirectoryReader over input_files."""

import shutil

import pytest

from ragcore.compat.core import SimpleDirectoryReader


def test_seed_reads_one_named_file(in_data_folder):
    # The seed's essay path, holding a real text from the corpus.
    (in_data_folder / "paul_graham").mkdir()
    shutil.copy(in_data_folder / "state_of_the_union.txt",
                in_data_folder / "paul_graham" / "paul_graham_essay1.txt")

    reader = SimpleDirectoryReader(
        input_files=["./data/paul_graham/paul_graham_essay1.txt"]
    )
    documents = reader.load_data()
    documents[0]

    assert len(documents) == 1
    metadata = documents[0].metadata
    assert metadata["file_name"] == "paul_graham_essay1.txt"
    assert metadata["file_type"] == "text/plain"
    assert metadata["file_size"] > 30_000
    assert documents[0].id_ == documents[0].doc_id
    assert "State of the Union" in documents[0].text or "Madam Speaker" in documents[0].text


def test_reader_takes_llamaindex_arguments(in_data_folder):
    documents = SimpleDirectoryReader("./data", required_exts=[".txt"]).load_data(
        show_progress=True, num_workers=2
    )
    assert [d.metadata["file_name"] for d in documents] == ["state_of_the_union.txt"]
    assert len(SimpleDirectoryReader("data", recursive=True).load_data()) == 2


def test_reader_refuses_like_llamaindex_or_names_the_ragcore_way(in_data_folder):
    with pytest.raises(ValueError, match="does not exist"):
        SimpleDirectoryReader(input_files=["./data/missing.txt"])
    with pytest.raises(ValueError, match="input_dir or input_files"):
        SimpleDirectoryReader()
    with pytest.raises(ValueError, match="by extension"):
        SimpleDirectoryReader("data", file_extractor={".txt": object()})
    with pytest.raises(ValueError, match="detects each text file's encoding"):
        SimpleDirectoryReader("data", encoding="latin-1")
    with pytest.raises(TypeError, match="unexpected keyword"):
        SimpleDirectoryReader("data", no_such_option=1)
