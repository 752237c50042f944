"""One offline answerer behind every way of asking (issue 19): the Query page, the Chat page,
each chat mode that searches (condense_plus_context, context, condense_question), the ReAct
agent's final answer and the CLI give the same short answer, in bold, over the same passages;
the simple chat mode says it needs a language model.

A real corpus file (A Scandal in Bohemia), a factoid question and the packaged embedding model,
loaded once for the module (with the fake embedder's vectors the answerer's short answers are
mostly wrong, so agreeing on them would prove little); the same search in every path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.cli import main
from ragcore.llms.extractive.backend import CHAT_NEEDS_MODEL, ExtractiveLLM
from ragcore.llms.extractive.answer import LABEL, short_answer_of
from ragcore.memory import ChatMemory
from ragcore.workspace import Workspace

APP = str(Path(__file__).resolve().parents[4] / "app.py")
STORY = "a-scandal-in-bohemia.xhtml"
QUESTION = "What street is Briony Lodge in?"
TOP_K, SEARCH = 4, "hybrid"  # as the app's simple view and the CLI's defaults search
CHAT_MODES = ("condense_plus_context", "context", "condense_question", "react")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory, corpus_dir) -> Path:
    root = tmp_path_factory.mktemp("same-answerer") / "ws"
    ws = Workspace(root)
    story = corpus_dir / "sherlock_holmes_xhtml" / STORY
    upload = ws.save_upload("stories", story.name, story.read_bytes())
    assert ws.ingest("stories", [upload]).failed == 0
    return root


@pytest.fixture(scope="module")
def index(built):
    return Workspace(built).load_index("stories")


@pytest.fixture(scope="module")
def expected(index) -> str:
    """The Query engine's answer (what the Query page runs): its short answer, in bold."""
    engine = index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=TOP_K,
                                   retrieval_mode=SEARCH)
    text = engine.query(QUESTION).text
    assert_short_answer_then_its_quote(text)
    return short_answer_of(text)


def assert_short_answer_then_its_quote(text: str) -> None:
    """Line 1: the label and a bold short answer; line 2: the quote it comes from."""
    first, quote = text.split("\n")[:2]
    short = short_answer_of(text)
    assert first.startswith(LABEL) and short and first.endswith(f"**{short}**"), text
    assert quote.startswith("- ") and short.lower() in quote.lower(), text


@pytest.mark.parametrize("mode", CHAT_MODES)
def test_every_chat_mode_that_searches_gives_the_same_short_answer(index, expected, mode):
    engine = index.as_chat_engine(chat_mode=mode, llm=ExtractiveLLM(), similarity_top_k=TOP_K,
                                  retrieval_mode=SEARCH)
    text = engine.chat(QUESTION, ChatMemory.from_llm(ExtractiveLLM())).text
    assert_short_answer_then_its_quote(text)
    assert short_answer_of(text) == expected


def test_the_simple_chat_mode_says_it_needs_a_model(index):
    engine = index.as_chat_engine(chat_mode="simple", llm=ExtractiveLLM())
    assert engine.chat(QUESTION, ChatMemory.from_llm(ExtractiveLLM())).text == CHAT_NEEDS_MODEL


def test_the_cli_gives_the_same_short_answer_and_its_score_on_a_line_of_its_own(
        built, index, expected, tmp_path, capsys):
    root = tmp_path / "ws"
    shutil.copytree(built, root)
    code = main(["--workspace", str(root), "query", QUESTION, "--index", "stories", "--llm",
                 "extractive", "--top-k", str(TOP_K), "--retrieval", SEARCH],
                embedder=index.embedder)
    out = capsys.readouterr().out
    assert code == 0
    assert_short_answer_then_its_quote(out)
    assert short_answer_of(out) == expected
    assert "[score" not in out  # the score is stated out of band, then said in words
    stated = [line for line in out.splitlines() if line.startswith("Answer score ")]
    assert len(stated) == 1


@pytest.fixture
def app_ws(built, tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.delenv("RAGCORE_EMBEDDER", raising=False)
    root = tmp_path / "ws"
    shutil.copytree(built, root)
    (root / "app-preferences.json").write_text('{"advanced": false}')
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


def test_the_query_and_chat_pages_show_the_same_short_answer(app_ws, expected):
    query = AppTest.from_file(APP, default_timeout=90).run()
    query.switch_page("pages/query.py").run()
    query.text_input(key="query_question").input(QUESTION).run()
    chat = AppTest.from_file(APP, default_timeout=90).run()
    chat.switch_page("pages/chat.py").run()
    chat.chat_input[0].set_value(QUESTION).run()
    assert not query.exception and not chat.exception
    for shown in (query.markdown[0].value, chat.chat_message[1].markdown[0].value):
        assert shown.split("\n")[0] == f"{LABEL}: **{expected}**"
        assert shown.split("\n")[1].endswith(")")  # the quote, marked with its source [1]
