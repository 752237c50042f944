"""LlamaIndex's starter example (docs: "Starter Tutorial"), as written there: load ``data``,
index it, query it, persist the index and load it back on the next run."""

import os.path

import pytest

from ragcore.compat.core import (
    VectorStoreIndex,
    SimpleDirectoryReader,
    StorageContext,
    load_index_from_storage,
)

pytestmark = pytest.mark.slow


def starter() -> object:
    # check if storage already exists
    PERSIST_DIR = "./storage"
    if not os.path.exists(PERSIST_DIR):
        # load the documents and create the index
        documents = SimpleDirectoryReader("data").load_data()
        index = VectorStoreIndex.from_documents(documents)
        # store it for later
        index.storage_context.persist(persist_dir=PERSIST_DIR)
    else:
        # load the existing index
        storage_context = StorageContext.from_defaults(persist_dir=PERSIST_DIR)
        index = load_index_from_storage(storage_context)

    # Either way we can now query the index
    query_engine = index.as_query_engine()
    response = query_engine.query("What did the president say about Ukraine?")
    print(response)
    return response, index


def test_starter_builds_then_loads_and_answers_from_the_files(in_data_folder, capsys):
    first, built = starter()
    assert (in_data_folder.parent / "storage").is_dir()
    second, loaded = starter()

    assert type(loaded).__name__ == "VectorStoreIndex" and loaded.path is not None
    assert len(loaded) == len(built)
    for response in (first, second):
        assert "Ukraine" in response.response
        assert response.source_nodes
        assert response.source_nodes[0].node.metadata["file_name"] == "state_of_the_union.txt"
    assert first.response == second.response
    printed = capsys.readouterr().out
    assert printed.count("Ukraine") >= 2


def test_starter_without_persistence(in_data_folder):
    documents = SimpleDirectoryReader("data").load_data()
    index = VectorStoreIndex.from_documents(documents)
    query_engine = index.as_query_engine()
    response = query_engine.query("What are the first aphorisms of the Zen of Python?")
    print(response)

    assert "Beautiful is better than ugly" in str(response)
