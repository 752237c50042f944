"""The packaged model's latest exchanges: a question about an answer it wrote goes as the next
turn of that exchange, so its slot reads only the question."""

from __future__ import annotations

import pytest

from ragcore.grounding.judge import FOLLOW_UP, WINDOW, judge_claim
from ragcore.llms.base import complete
from ragcore.llms.local import LocalLLM
from ragcore.llms.local.exchanges import Exchanges
from ragcore.types import Message
from ragcore.llms import local_models

needs_models = pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                                  reason="the packaged models are installed by `make install`")

ASKED = [Message("system", "Answer from the passage."),
         Message("user", "Passage: The bridge opened in 1867.\nQuestion: When did it open?"),
         Message("assistant", "**")]


def test_a_follow_up_is_the_exchange_then_the_question_the_reply_after_its_prefill():
    kept = Exchanges()
    kept.keep(ASKED, "1867**. The bridge opened in 1867.")
    follow = kept.follow_up("**1867**. The bridge opened in 1867.", "Is that stated?")
    assert [m.role for m in follow] == ["system", "user", "assistant", "user"]
    assert follow[2].content == "**1867**. The bridge opened in 1867."
    assert follow[3] == Message("user", "Is that stated?")
    without_prefill = ASKED[:2]
    kept.keep(without_prefill, "It opened in 1867.")
    assert kept.follow_up("It opened in 1867.", "Q?")[2] == Message("assistant",
                                                                     "It opened in 1867.")


def test_an_answer_it_did_not_write_or_no_longer_keeps_gets_none():
    kept = Exchanges(kept=2)
    kept.keep(ASKED, "1867**. The bridge opened in 1867.")
    assert kept.follow_up("**1868**. The bridge opened in 1868.", "Q?") is None
    assert kept.follow_up("   ", "Q?") is None
    kept.keep(ASKED, "A.")
    kept.keep(ASKED, "B.")  # the first is evicted
    assert kept.follow_up("**1867**. The bridge opened in 1867.", "Q?") is None
    assert kept.follow_up("**B**.", "Q?") is not None  # emphasis and spacing do not count


class _Judge:
    """first_token_logprobs recording what it read; follow_up only when ``remembers``."""

    def __init__(self, remembers: bool):
        self.read: list[list[Message]] = []
        self.remembers = remembers

    def first_token_logprobs(self, messages, *, top=10):
        self.read.append(list(messages))
        return {"Yes": -0.1, "No": -2.5}

    def follow_up(self, answer, question):
        return [*ASKED[:2], Message("assistant", answer), Message("user", question)] \
            if self.remembers else None


def test_the_judge_follows_up_when_the_model_wrote_the_answer_else_asks_afresh():
    remembering = _Judge(remembers=True)
    judged = judge_claim(remembering, "The bridge opened in 1867.", "**1867**.",
                         answer="**1867**. The bridge opened in 1867.")
    assert judged.way == FOLLOW_UP and judged.share > 0.9
    assert remembering.read[0][-1].role == "user" and "**1867**." in remembering.read[0][-1].content
    forgetting = _Judge(remembers=False)
    assert judge_claim(forgetting, "The bridge opened in 1867.", "**1867**.",
                       answer="**1867**.").way == WINDOW
    assert "The bridge opened in 1867." in forgetting.read[0][-1].content
    assert judge_claim(remembering, "The bridge opened in 1867.", "**1867**.").way == WINDOW


@pytest.mark.slow
@needs_models
def test_the_packaged_model_judges_its_own_answer_as_the_next_turn():
    llm = LocalLLM("qwen2.5-coder-1.5b", num_output=24)
    messages = [Message("system", "You answer from the passage in a few words."),
                Message("user", "Passage: " + " ".join(["The old stone bridge over the river "
                                                        "opened to carts in 1867."] * 12)
                        + "\nQuestion: When did the bridge open?"),
                Message("assistant", "**")]
    answer = "**" + complete(llm, messages)
    claim = answer.split(".")[0] + "."
    assert judge_claim(llm, messages[1].content, claim).way == WINDOW
    followed = judge_claim(llm, messages[1].content, claim, answer=answer)
    assert followed.way == FOLLOW_UP and followed.share > 0.5
    # (what it saves, the passage read again, is measured by benchmarks/grounding/judge_llm)


@pytest.mark.slow
@needs_models
def test_a_follow_up_that_would_overflow_the_window_is_asked_afresh():
    llm = LocalLLM("smollm2-135m", context_window=256, num_output=32)
    long_reply = "The bridge opened to carts and walkers in 1867. " * 40
    llm._engine.exchanges.keep(ASKED, long_reply)
    assert llm.follow_up("**" + long_reply, "Is that stated?") is None
    llm._engine.exchanges.keep(ASKED, "1867**. It opened in 1867.")
    assert llm.follow_up("**1867**. It opened in 1867.", "Is that stated?") is not None
