"""SentenceTransformerRerank with a real cross-encoder: a tiny BERT built offline in the test
(random weights, a small vocabulary), saved with ``save_pretrained`` and loaded by
sentence-transformers' ``CrossEncoder`` the way a downloaded model folder is."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.errors import ConfigError
from ragcore.retrieval.rerank import SentenceTransformerRerank, load_cross_encoder
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

pytestmark = pytest.mark.slow  # imports torch and transformers (~10 s)

WORDS = ("the a of and to in is what who did say about president speech nation ukraine putin "
         "russia sanctions jobs economy python style guide zen beautiful ugly rust ownership "
         "borrow memory safety").split()


@pytest.fixture(scope="module")
def cross_encoder_dir(tmp_path_factory) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    BertTokenizer(str(vocab)).save_pretrained(folder)
    torch.manual_seed(14)
    config = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=128, num_labels=1, initializer_range=1.0)
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def passages(corpus_dir) -> list[ScoredNode]:
    speech = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    paragraphs = [p for p in speech.split("\n\n") if len(p) > 80][:8]
    return [ScoredNode(Node(p, node_id=f"p{i}"), 0.5 - i / 100) for i, p in enumerate(paragraphs)]


def test_reorders_by_the_cross_encoders_own_scores_and_keeps_top_n(cross_encoder_dir,
                                                                   corpus_dir):
    nodes = passages(corpus_dir)
    question = "What did the president say about Putin and Ukraine?"
    expected = load_cross_encoder(str(cross_encoder_dir)).predict(
        [(question, n.node.text) for n in nodes])
    order = sorted(range(len(nodes)), key=lambda i: -expected[i])
    assert order != list(range(len(nodes)))  # the model does reorder these passages

    rerank = SentenceTransformerRerank(model=cross_encoder_dir, top_n=3,
                                       keep_retrieval_score=True)
    trace = Trace()
    kept = rerank.postprocess_traced(nodes, question, trace)
    assert [n.node.node_id for n in kept] == [f"p{i}" for i in order[:3]]
    assert [n.score for n in kept] == pytest.approx([float(expected[i]) for i in order[:3]])
    assert kept[0].node.metadata["retrieval_score"] == nodes[order[0]].score
    assert [row["passage"] for row in trace.notes["rerank"]] == [i + 1 for i in order]
    assert rerank.postprocess_nodes(nodes, query_str=question) == kept


def test_llamaindex_spelling_and_a_missing_model_folder(tmp_path, corpus_dir, cross_encoder_dir):
    from ragcore.compat.core.postprocessor import SentenceTransformerRerank as Compat

    rerank = Compat(model=str(cross_encoder_dir), top_n=2)
    assert len(rerank.postprocess_nodes(passages(corpus_dir), query_str="jobs")) == 2
    missing = SentenceTransformerRerank(model=tmp_path / "nothing-here", top_n=2)
    with pytest.raises(ConfigError, match="not a folder on this machine"):
        missing.postprocess(passages(corpus_dir), "jobs")
    with pytest.raises(ConfigError, match="top_n"):
        SentenceTransformerRerank(model=cross_encoder_dir, top_n=0)
