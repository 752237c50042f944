"""The conversation benchmark's run and figures, with a scripted model and the fake embedder in
place of the packaged ones (the real run takes minutes)."""

from __future__ import annotations

import pytest

from benchmarks.llm import bench_conversation as bench
from ragcore.chat import refers_back
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.fake import FakeLLM
from ragcore.llms.local.pace import Pace
from ragcore.workspace import Workspace


class _Engine:
    """What the benchmark reads of the packaged model's engine: its pace."""

    def __init__(self) -> None:
        self.pace = Pace()


def _reply(messages) -> str:
    if "rewrite" in messages[0].content:
        return "How much is GM investing to build electric vehicles?"
    return "The speech says so, and it gives the figure in the passage. " * 6


@pytest.fixture
def scripted(monkeypatch):
    def build(root, corpus):
        workspace = Workspace(root / "ws", embedder=FakeEmbedder())
        workspace.ingest("docs", [corpus / name for name in bench.DOCUMENTS])
        llm = FakeLLM(default=_reply, context_window=2048, num_output=384)
        llm._engine = _Engine()
        llm.first_token_logprobs = lambda messages: None
        return workspace, llm

    monkeypatch.setattr(bench, "build", build)


def test_the_questions_mix_follow_ups_and_turn_two_is_one():
    kinds = [bool(refers_back(q)) for q in bench.QUESTIONS]
    assert len(bench.QUESTIONS) == 20 and sum(kinds) == 8
    assert kinds[:2] == [False, True]  # turn 2: a rewrite, then the answer


def test_a_scripted_conversation_reads_flat_prompts_and_rewrites_only_follow_ups(
        scripted, corpus_dir):
    turns, _ = bench.converse(corpus_dir, bench.QUESTIONS[:bench.QUICK_TURNS])
    follow_ups = [t for t in turns[1:] if t.follow_up]
    assert all("condense" in t.prompt_tokens for t in follow_ups)
    assert not any("condense" in t.prompt_tokens for t in turns if not t.follow_up)
    assert turns[1].searched == "How much is GM investing to build electric vehicles?"
    rows = {row.metric: row for row in bench.summary_rows(turns, [[1.0], [1.0]])}
    flat = rows["largest follow-up's prompt tokens / turn 2's"]
    assert flat.ok, flat
    assert rows["rewrites: follow-ups rewritten / standalone questions rewritten"].value == len(
        follow_ups)
    assert len(bench.turn_rows(turns)) == 2 * len(turns)
