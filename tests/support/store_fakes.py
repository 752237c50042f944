"""Test helpers for the store, index and ingestion tests: a tiny deterministic splitter."""

from __future__ import annotations

from typing import Any, Sequence

from ragcore.types import Document, Node


class ParagraphSplitter:
    """One node per blank-line-separated paragraph, with exact offsets and stable ids."""

    def __init__(self, *, chunk_size: int = 100) -> None:
        self.chunk_size = chunk_size
        self.calls = 0

    def settings(self) -> dict[str, Any]:
        return {"chunk_size": self.chunk_size}

    def get_nodes_from_documents(self, documents: Sequence[Document], **_: Any) -> list[Node]:
        self.calls += 1
        nodes: list[Node] = []
        for doc in documents:
            position = 0
            parts = [p for p in doc.text.split("\n\n") if p.strip()]
            for number, part in enumerate(parts):
                start = doc.text.index(part, position)
                position = start + len(part)
                nodes.append(
                    Node(
                        text=part,
                        node_id=f"{doc.doc_id}#{number}",
                        ref_doc_id=doc.doc_id,
                        start_char=start,
                        end_char=position,
                        metadata=dict(doc.metadata),
                    )
                )
        return nodes


def animal_docs() -> list[Document]:
    """Three small documents on clearly different topics."""
    return [
        Document(
            text="Cats purr when they are content.\n\nKittens chase string and yarn.",
            doc_id="cats.txt",
            metadata={"file_name": "cats.txt", "topic": "pets", "year": 2020},
        ),
        Document(
            text="The stock market fell sharply today.\n\nBond yields rose as investors sold.",
            doc_id="markets.txt",
            metadata={"file_name": "markets.txt", "topic": "finance", "year": 2022},
        ),
        Document(
            text="Rust has ownership and borrowing.\n\nThe borrow checker rejects dangling "
            "references.",
            doc_id="rust.md",
            metadata={"file_name": "rust.md", "topic": "programming", "year": 2024},
        ),
    ]
