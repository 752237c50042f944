"""The packaged model's latest exchanges: a question about an answer it wrote is asked in that
answer's own prompt, its cue line replaced, so its slot reads only the question."""

from __future__ import annotations

import pytest

from ragcore.grounding.judge import IN_PROMPT, WINDOW, judge_claim
from ragcore.llms import local_models
from ragcore.llms.base import complete
from ragcore.llms.local import LocalLLM
from ragcore.llms.local.exchanges import Exchanges
from ragcore.llms.local.pace import Pace
from ragcore.prompts.answer import asked_instead
from ragcore.types import Message

needs_models = pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                                  reason="the packaged models are installed by `make install`")

ASKED = [Message("system", "Answer from the passage."),
         Message("user", "Passage: The bridge opened in 1867.\nQuestion: When did it open?\n"
                         "Answer:"),
         Message("assistant", "**")]


def test_the_prompt_of_an_answer_is_what_was_read_without_the_prefill():
    kept = Exchanges()
    kept.keep(ASKED, "1867**. The bridge opened in 1867.")
    assert kept.prompt_of("**1867**. The bridge opened in 1867.") == ASKED[:2]
    kept.keep(ASKED[:2], "It opened in 1867.")
    assert kept.prompt_of("It opened in 1867.") == ASKED[:2]


def test_an_answer_it_did_not_write_or_no_longer_keeps_gets_none():
    kept = Exchanges(kept=2)
    kept.keep(ASKED, "1867**. The bridge opened in 1867.")
    assert kept.prompt_of("**1868**. The bridge opened in 1868.") is None
    assert kept.prompt_of("   ") is None
    kept.keep(ASKED, "A.")
    kept.keep(ASKED, "B.")  # the first is evicted
    assert kept.prompt_of("**1867**. The bridge opened in 1867.") is None
    assert kept.prompt_of("**B**.") is not None  # emphasis and spacing do not count


def test_a_question_asked_instead_of_the_cue_keeps_every_line_before_it():
    asked = asked_instead(ASKED[:2], "Is it so? Reply Yes or No.")
    assert asked[0] == ASKED[0]
    assert asked[1].content == ("Passage: The bridge opened in 1867.\nQuestion: When did it "
                                "open?\nIs it so? Reply Yes or No.")


class _Judge:
    """first_token_logprobs recording what it read; prompt_of only when ``remembers``."""

    def __init__(self, remembers: bool):
        self.read: list[list[Message]] = []
        self.remembers = remembers

    def first_token_logprobs(self, messages, *, top=10):
        self.read.append(list(messages))
        return {"Yes": -0.1, "No": -2.5}

    def prompt_of(self, answer):
        return list(ASKED[:2]) if self.remembers else None


def test_the_judge_asks_in_the_answers_prompt_when_the_model_wrote_it_else_afresh():
    remembering = _Judge(remembers=True)
    judged = judge_claim(remembering, "The bridge opened in 1867.", "**1867**.",
                         answer="**1867**. The bridge opened in 1867.")
    assert judged.way == IN_PROMPT and judged.share > 0.9
    last = remembering.read[0][-1].content
    assert last.startswith("Passage: The bridge") and "Claim: **1867**." in last
    assert "Answer:" not in last  # the cue gave way to the question
    forgetting = _Judge(remembers=False)
    assert judge_claim(forgetting, "The bridge opened in 1867.", "**1867**.",
                       answer="**1867**.").way == WINDOW
    assert judge_claim(remembering, "The bridge opened in 1867.", "**1867**.").way == WINDOW


@pytest.mark.slow
@needs_models
def test_the_packaged_model_judges_its_own_answer_in_its_prompt():
    llm = LocalLLM("qwen2.5-coder-1.5b", num_output=24)
    messages = [Message("system", "You answer from the passage in a few words."),
                Message("user", "Passage: " + " ".join(["The old stone bridge over the river "
                                                        "opened to carts in 1867."] * 12)
                        + "\nQuestion: When did the bridge open?\nAnswer:"),
                Message("assistant", "**")]
    answer = "**" + complete(llm, messages)
    claim = answer.split(".")[0] + "."
    assert judge_claim(llm, messages[1].content, claim).way == WINDOW
    judged = judge_claim(llm, messages[1].content, claim, answer=answer)
    assert judged.way == IN_PROMPT and judged.share > 0.5
    # (what it saves, the passage read again, is measured by benchmarks/grounding/judge_llm)


def test_a_reply_is_kept_read_to_its_end_or_as_far_as_it_was_read():
    closed = []

    class Engine:
        exchanges = Exchanges()
        pace, threads = Pace(), 1  # not timed: only num_output caps the reply

        def stream(self, body, finished=None):
            try:
                yield from ("1867", "**. It opened", " in 1867.")
            finally:
                closed.append(True)

    llm = object.__new__(LocalLLM)  # the stream path alone: no model loaded
    llm._engine = Engine()
    llm.num_output, llm.temperature, llm.stop = 24, 0.0, ()
    assert "".join(llm.stream(ASKED)) == "1867**. It opened in 1867."
    assert llm.prompt_of("**1867**. It opened in 1867.") == ASKED[:2]
    stopped = llm.stream([*ASKED[:1], Message("user", "Another question"), ASKED[2]])
    assert next(stopped) == "1867"
    stopped.close()  # the engine's stream is closed at once; the reply kept as far as read
    assert closed == [True, True]
    # a reply ended after its short answer is judged in its own prompt too
    assert llm.prompt_of("**1867**") == [*ASKED[:1], Message("user", "Another question")]
