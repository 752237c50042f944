"""A sentence embedded for one question is not embedded again for the next
(``embeddings.kept_vectors``): the engines' sentence selection and check read kept vectors."""

from __future__ import annotations

import numpy as np

from ragcore.embeddings import FakeEmbedder
from ragcore.embeddings.kept_vectors import KeptVectors
from ragcore.index import VectorStoreIndex
from ragcore.types import Document


class Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_batch(self, texts):
        self.embedded += list(texts)
        return super().embed_batch(texts)


def test_only_texts_not_embedded_before_are_embedded():
    kept, model = KeptVectors(), Counting()
    first = kept.embed_batch("m", ["a b", "c d"], model.embed_batch)
    again = kept.embed_batch("m", ["c d", "e f", "a b"], model.embed_batch)
    assert sorted(model.embedded) == ["a b", "c d", "e f"]
    np.testing.assert_allclose(again[2], first[0])
    np.testing.assert_allclose(again[0], first[1])
    np.testing.assert_allclose(again[1], np.asarray(FakeEmbedder().embed_batch(["e f"]))[0])


def test_another_model_embeds_its_own_and_the_oldest_go_first():
    kept, model = KeptVectors(max_kept=2), Counting()
    kept.embed_batch("m", ["a", "b"], model.embed_batch)
    kept.embed_batch("other", ["a"], model.embed_batch)  # not m's vector
    kept.embed_batch("m", ["b"], model.embed_batch)  # kept ("a" of m went out first)
    kept.embed_batch("m", ["a"], model.embed_batch)
    assert model.embedded == ["a", "b", "a", "a"]


def test_a_second_question_over_the_same_passages_embeds_none_of_their_sentences_again():
    model = Counting()
    index = VectorStoreIndex.from_documents(
        [Document(text="The keeper lights the lamp at dusk. The tower is 42 metres tall. "
                       "Ships pass the rocks at night.", doc_id="lighthouse")], embedder=model)
    from ragcore.engines.from_index import _IndexEmbedder

    sentences = ["The keeper lights the lamp at dusk.", "Ships pass the rocks at night."]
    _IndexEmbedder(index).embed_batch(sentences)
    model.embedded.clear()
    _IndexEmbedder(index).embed_batch(sentences)
    assert model.embedded == []
