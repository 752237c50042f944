"""How the offline answer is shown in the app (issue 19), headless with AppTest: the bold short
answer first and the quote line with its [1] marker, no "[score" in the answer (Query page,
chat, saved chat, export, Copy), the score stated under Advanced, and the short answer bold
inside the quoted sentence of the source's passage.

The answerer here is a stand-in that replies in the answer format of issue 19 (a short answer on
the label line, then the one sentence it comes from, found in the passages of the prompt) and
states its score in the turn's notes, as the real one does since issue 32: these tests check how
the app shows that format, whatever the real answerer picks (tests/test_same_answerer.py runs the
real one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ragcore.llms.extractive.backend as extractive
import ragcore.llms.extractive.answer as extractive_answer
from ragcore.llms.extractive.answer import LABEL, NOT_FOUND, label_line
from ragcore.present.quotes import sentence_spans
from ragcore.workspace import Workspace
from ragcore.workspace.chats import export_markdown
from test_evidence_query_page import built_workspace, use_workspace  # noqa: F401 (fixture)

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90
QUESTION = "Who sought to shake the foundations of the free world?"
SHORT = "Vladimir Putin"
FIRST_LINE = f"{LABEL}: **{SHORT}**"
ANSWER_MARK = '<mark style="background:#F6AD55;font-weight:800;">'


def contract_reply(request, *, max_sentences: int = 3, embedder=None, notes=None) -> str:
    """A reply in the issue 19 format: the short answer, then the sentence it comes from (of the
    request's passages, or its answer so far); its score goes to ``notes``."""
    parts = [request.existing_answer, *request.passages] if request is not None else []
    text = "\n\n".join(p for p in parts if p)
    text = re.sub(".*" + re.escape(LABEL) + ".*", "", text)  # refine's answer so far
    found = (text[a:b] for a, b in sentence_spans(text) if SHORT in text[a:b])
    sentence = next(found, None)
    if sentence is None:
        return NOT_FOUND
    if notes is not None:
        notes["answer_score"] = 0.82
    return label_line(f"**{SHORT}**") + "\n- " + " ".join(sentence.split())


def stand_in(monkeypatch) -> None:
    monkeypatch.setattr(extractive, "extractive_reply", contract_reply)
    monkeypatch.setattr(extractive_answer, "not_found_threshold", lambda embedder=None: 0.35,
                        raising=False)


@pytest.fixture
def simple_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    stand_in(monkeypatch)
    return use_workspace(monkeypatch, built_workspace, tmp_path, advanced=False)


@pytest.fixture
def advanced_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    stand_in(monkeypatch)
    return use_workspace(monkeypatch, built_workspace, tmp_path, advanced=True)


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ask(page: str) -> AppTest:
    at = open_page(page)
    if page == "query":
        at.text_input(key="query_question").input(QUESTION).run()
    else:
        at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                     + [c.value for c in at.code])


def passages(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html") if "rc-passage" in h.proto.body
            or "border-left" in h.proto.body]


def test_the_query_page_shows_the_short_answer_then_its_marked_quote_without_the_score(
        simple_ws):
    at = ask("query")
    first, quote = at.markdown[0].value.split("\n")
    assert first == FIRST_LINE
    assert quote.startswith("- Six days ago, Russia’s Vladimir Putin sought to shake")
    assert quote.endswith(" [[1]](#query-source-1)")
    assert "[score" not in shown_text(at) and "Answer score" not in shown_text(at)
    source = passages(at)[0]  # the quoted sentence marked, the short answer bold inside it
    assert f"{ANSWER_MARK}{SHORT}</mark>" in source.replace("Russia’s ", "")


def test_advanced_states_the_score_and_the_comparison_leaves_it_out(advanced_ws):
    at = ask("query")
    assert at.markdown[0].value.split("\n")[0] == FIRST_LINE
    stated = [m.value for m in at.markdown if m.value.startswith("Answer score")]
    assert stated == ["Answer score 0.82 — the answerer says “not found” under 0.35"]
    at.multiselect[0].set_value(["compact", "refine"]).run()
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception
    answers = [m.value for m in at.markdown if m.value.startswith(LABEL)]
    assert len(answers) == 3 and all("[score" not in a for a in answers)
    assert any(c.value.endswith(f"· {stated[0]}") for c in at.caption)


def test_a_chat_reply_is_shown_saved_and_exported_without_the_score(simple_ws):
    at = ask("chat")
    reply = at.chat_message[1].markdown[0].value
    chat_id = at.query_params["chat"]
    assert reply.split("\n")[0] == FIRST_LINE
    assert reply.split("\n")[1].endswith(f" [[1]](#{chat_id}_1-source-1)")
    assert "[score" not in shown_text(at) and "Answer score" not in shown_text(at)
    saved = json.loads((simple_ws / "chats" / f"{chat_id}.json").read_text())
    assert saved["messages"][1]["content"].split("\n")[0] == FIRST_LINE
    assert saved["messages"][1]["trace"]["answer_score"] == 0.82
    assert saved["messages"][1]["trace"]["not_found_under"] == 0.35
    exported = export_markdown(Workspace(simple_ws).load_chat(chat_id))
    assert FIRST_LINE in exported and "[score" not in exported


def test_the_chat_states_the_score_under_how_this_answer_was_made(advanced_ws):
    at = ask("chat")
    details = next(e for e in at.chat_message[1].expander
                   if e.label == "How this answer was made")
    assert any(m.value == "Answer score 0.82 — the answerer says “not found” under 0.35"
               for m in details.markdown)
    assert "[score" not in at.chat_message[1].markdown[0].value


def test_a_chat_saved_with_the_score_in_its_text_opens_without_it(advanced_ws):
    at = ask("chat")
    path = advanced_ws / "chats" / f"{at.query_params['chat']}.json"
    saved = json.loads(path.read_text())
    reply = saved["messages"][1]  # as versions before issue 32 saved it: the score in the text
    reply["content"] = reply["content"].replace(f"{LABEL}:", f"{LABEL} [score 0.82]:", 1)
    for key in ("answer_score", "not_found_under"):
        reply["trace"].pop(key)
    reply["trace"]["notes"].pop("answer_score")
    path.write_text(json.dumps(saved))
    reopened = AppTest.from_file(APP, default_timeout=TIMEOUT)
    reopened.query_params["chat"] = at.query_params["chat"]  # a refresh keeps the URL
    reopened.run()
    reopened.switch_page("pages/chat.py").run()
    at = reopened
    assert at.chat_message[1].markdown[0].value.split("\n")[0] == FIRST_LINE
    details = next(e for e in at.chat_message[1].expander
                   if e.label == "How this answer was made")
    assert any(m.value == "Answer score 0.82" for m in details.markdown)
