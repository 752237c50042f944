"""Seed 001 (llama_index source code analysis) 4.4: persist to disk, load back; insert
documents one by one into an empty index; delete a document."""

import pytest

from ragcore.compat.core import SimpleDirectoryReader
from ragcore.compat.core import VectorStoreIndex
from ragcore.compat.core import StorageContext, load_index_from_storage

pytestmark = pytest.mark.slow


@pytest.fixture
def documents(in_data_folder):
    return SimpleDirectoryReader("data").load_data()


def test_seed_persist_and_load(documents, tmp_path):
    index = VectorStoreIndex.from_documents(documents)
    persist_dir = str(tmp_path / "persist_dir")

    # save
    index.storage_context.persist(persist_dir=persist_dir)

    # load
    storage_context = StorageContext.from_defaults(persist_dir=persist_dir)
    index = load_index_from_storage(storage_context)

    assert sorted(index.ref_doc_info) == sorted(d.doc_id for d in documents)
    assert len(index.docstore.docs) == len(index)
    answer = index.as_query_engine().query("What does the Zen of Python say?")
    assert "is better than" in answer.response
    assert answer.source_nodes[0].node.metadata["file_name"] == "pep-0020.rst"


def test_seed_insert_documents_one_by_one(documents):
    index = VectorStoreIndex([])
    for doc in documents:
        index.insert(doc)

    assert sorted(index.ref_doc_ids()) == sorted(d.doc_id for d in documents)


def test_seed_delete_document(documents):
    index = VectorStoreIndex(documents)
    index.delete_ref_doc(documents[0].id_)

    assert index.ref_doc_ids() == [documents[1].doc_id]
    assert all(n.ref_doc_id == documents[1].doc_id for n in index.docstore.docs.values())


def test_update_ref_doc_replaces_a_document(documents):
    index = VectorStoreIndex.from_documents(documents)
    before = len(index)
    documents[1].text = "Simple is better than complex."
    index.update_ref_doc(documents[1])
    info = index.ref_doc_info[documents[1].doc_id]
    assert len(info.node_ids) == 1 and len(index) < before
