"""Seed 000, "TextNode": SentenceSplitter().get_nodes_from_documents(documents)."""

from ragcore.compat.core import SimpleDirectoryReader
from ragcore.compat.core.node_parser import SentenceSplitter


def test_seed_splits_documents_into_linked_nodes(in_data_folder):
    documents = SimpleDirectoryReader("data").load_data()

    parser = SentenceSplitter()

    nodes = parser.get_nodes_from_documents(documents)

    assert len(nodes) > len(documents)
    by_doc = {d.doc_id: d for d in documents}
    for node in nodes:
        text = by_doc[node.ref_doc_id].text
        assert text[node.start_char:node.end_char] == node.get_content()
    linked = [n for n in nodes if n.next_id is not None]
    assert linked and all(n.id_ == n.node_id for n in nodes)
