"""The conversation benchmark's run and figures, with a scripted model and the fake embedder in
place of the packaged ones (the real run takes minutes)."""

from __future__ import annotations

import pytest

from benchmarks.llm import bench_conversation as bench
from ragcore.chat import refers_back
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.fake import FakeLLM
from ragcore.llms.local.pace import Pace
from ragcore.types import Message
from ragcore.workspace import Workspace


class _Engine:
    """What the benchmark reads of the packaged model's engine: its pace."""

    def __init__(self) -> None:
        self.pace = Pace()
        self._loaded_at = 0.0  # never reloads


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
    # Issue 65: what of the answer's prompt a slot holding the last one can reuse, and the reply.
    opening = len(bench.rendered([Message("system", "You are a helpful assistant chatting")]))
    assert all(opening <= t.shared < len(t.answer_prompt) for t in turns[1:]), [
        (t.shared, len(t.answer_prompt)) for t in turns]
    assert rows["answer prompt's opening shared with the last turn's, median of turns 2-8"].value
    assert all(t.answer.startswith("The speech says so") for t in turns)


def test_the_shared_opening_is_counted_in_tokens_up_to_the_first_difference():
    assert bench.shared_prefix([1, 2, 3, 4], [1, 2, 5, 4, 6]) == 2
    assert bench.shared_prefix([], [1]) == 0
    first = bench.rendered([Message("system", "Be brief."), Message("user", "Hi?")])
    again = bench.rendered([Message("system", "Be brief."), Message("user", "Hello?")])
    assert 0 < bench.shared_prefix(first, again) < len(first)


def test_a_turn_over_the_target_is_timed_again_first_in_a_fresh_chat():
    # Issue 65: a slow later turn is the chat's length or its question's kind; its answer
    # first in a fresh chat tells which.
    def turn(whole, fresh=None):
        return bench.Turn("q", "", "q", {"context chat": 400}, whole=whole, fresh=fresh)

    alone = bench.Turn("q", "", "q", {"context chat": 300}, whole=38.0, read=250, written=30)
    turns = [turn(20.0), turn(20.0), turn(24.0), turn(40.0, fresh=alone), turn(10.0)]
    assert [number for number, _ in bench.over_target(turns)] == [4]
    note = bench.turn_rows(turns)[7].note
    assert "first in a fresh chat 38.0 s (1.90x turn 2; this turn 1.05x it; read 250 anew" in note
    assert "wrote 30)" in note


def test_what_the_check_read_is_its_one_token_passes():
    turn = bench.Turn("q", "", "q", {"context chat": 400}, passes=[
        {"prompt_n": 300, "cache_n": 5, "predicted_n": 40},  # the answer
        {"prompt_n": 45, "cache_n": 300, "predicted_n": 1}])  # the judge, in its prompt
    assert turn.check_read == 45


def test_the_history_an_answer_carries_leaves_out_the_question_and_the_replys_opening():
    earlier = [Message("user", "How much is Ford investing?"), Message("assistant", "$11 billion")]
    asked = [Message("system", "passages"), *earlier, Message("user", "And GM?")]
    assert bench.carried_history(asked) == earlier
    assert bench.carried_history([*asked, Message("assistant", "**")]) == earlier
    assert bench.carried_history([]) == []
