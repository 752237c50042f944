"""A saved reply reads as it did when made (issue 66's fifth walk): the model's judgment of its
claim is kept with it. The walk's reply "The SSDF recommends protecting all components of the
software from tampering and unauthorized access." was shown with its source "states this"; the
app restarted, the saved chat opened again read "Not confirmed by the passages", checked anew
without the model (the checked reply was cached only in the app's process). AppTest, a scripted
model that judges as the packaged one does (``first_token_logprobs``)."""

from __future__ import annotations

import math

from streamlit.testing.v1 import AppTest
from test_app_pages import APP, TIMEOUT, app_env, open_page  # noqa: F401 (fixture)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms import FakeLLM
from ragcore.workspace import Workspace

PAGE_8 = ("Using the SSDF helps organizations to meet the following secure software development "
          "recommendations:\n• Organizations should ensure that their people, processes, and "
          "technology are prepared to perform secure software development.\n• Organizations "
          "should protect all components of their software from tampering and unauthorized "
          "access.\n")
QUESTION = "What does the SSDF recommend for protecting the software?"
REPLY = ("The SSDF recommends protecting all components of the software from tampering and "
         "unauthorized access.")


class Judging(FakeLLM):
    """A scripted model that says "Yes" when asked whether a passage states a claim."""

    def __init__(self) -> None:
        super().__init__(default=REPLY, model="judging")
        self.judged = 0

    def first_token_logprobs(self, messages, top=10):
        self.judged += 1
        return {"Yes": math.log(0.999), "No": math.log(0.001)}


def _reply(at: AppTest) -> tuple[str, list[str]]:
    reply = at.chat_message[1]
    return reply.markdown[0].value, [e.label for e in reply.expander]


def test_a_reply_the_model_judged_reads_the_same_when_the_chat_is_opened_again(
        app_env, tmp_path, monkeypatch):
    from webapp import state
    from webapp.answers import citing

    citing._CITATIONS.clear()  # no reply checked in this process yet
    root = app_env(tmp_path / "ws")
    (root / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    (tmp_path / "ssdf.txt").write_text(PAGE_8, encoding="utf-8")
    Workspace(root, embedder=FakeEmbedder()).ingest("docs", [tmp_path / "ssdf.txt"])
    llm = Judging()
    monkeypatch.setattr(state, "current_llm", lambda: llm)
    at = open_page("chat")
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, [e.value for e in at.exception]
    made, titles = _reply(at)
    assert llm.judged and made.startswith(REPLY) and "[1]" in made, made
    assert any(t.endswith("· states this") for t in titles), titles

    citing._CITATIONS.clear()  # the app started again: its checked replies are gone
    judged = llm.judged
    reopened = AppTest.from_file(APP, default_timeout=TIMEOUT)
    reopened.query_params["chat"] = at.query_params["chat"]
    reopened.run()
    reopened.switch_page("pages/chat.py").run()
    assert not reopened.exception, [e.value for e in reopened.exception]
    assert _reply(reopened) == (made, titles)
    assert llm.judged == judged  # what the model said was kept: it is not asked again


def test_a_reply_just_written_is_judged_though_a_saved_one_said_the_same(app_env, tmp_path,
                                                                         monkeypatch):
    """The walk asked again what a saved chat had asked, and the model wrote the same words:
    the check cached for the saved reply, made without a judge, stood for the new one."""
    from webapp import state
    from webapp.answers import citing

    citing._CITATIONS.clear()
    root = app_env(tmp_path / "ws")
    (root / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    (tmp_path / "ssdf.txt").write_text(PAGE_8, encoding="utf-8")
    Workspace(root, embedder=FakeEmbedder()).ingest("docs", [tmp_path / "ssdf.txt"])
    monkeypatch.setattr(state, "current_llm", lambda: FakeLLM(default=REPLY))  # cannot judge
    at = open_page("chat")
    at.chat_input[0].set_value(QUESTION).run()
    assert _reply(at)[0].startswith("**Not confirmed by the passages:**")
    llm = Judging()
    monkeypatch.setattr(state, "current_llm", lambda: llm)
    next(b for b in at.sidebar.button if b.label == "New chat").click().run()
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, [e.value for e in at.exception]
    made, titles = _reply(at)
    assert llm.judged and made.startswith(REPLY) and "[1]" in made, made


class InPrompt(Judging):
    """A model still holding the prompt that wrote its reply (the packaged one's cache)."""

    def prompt_of(self, answer):
        from ragcore.types import Message

        return [Message("system", "Answer from the passages."),
                Message("user", f"Passages:\n{PAGE_8}\nQuestion: {QUESTION}\nAnswer:")]

    def first_token_logprobs(self, messages, top=10):
        self.judged += 1
        yes = 0.9 if "Question:" in messages[-1].content else 0.2  # in the prompt, or afresh
        return {"Yes": math.log(yes), "No": math.log(1 - yes)}


def test_a_judgment_asked_in_the_reply_s_prompt_is_given_back_without_that_prompt():
    from ragcore.grounding.judge import IN_PROMPT, judge_claim
    from webapp.chat.kept_judge import KeptJudge

    llm = InPrompt()
    recorder = KeptJudge(llm)
    live = judge_claim(recorder, PAGE_8, REPLY, answer=REPLY)
    assert live.way == IN_PROMPT and live.share > 0.8
    asked = llm.judged
    again = judge_claim(KeptJudge(kept=recorder.kept()), PAGE_8, REPLY, answer=REPLY)
    assert again == live and llm.judged == asked  # the same answer, the model not asked
