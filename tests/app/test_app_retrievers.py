"""The advanced retrievers in the app: the Query page's "Retriever" choice (offered when it can
run, the others listed with the reason), their traces, and the side-by-side comparison of
retrievers; offline (extractive) and with a language model on a real loopback Ollama server."""

from __future__ import annotations

import pytest
from support.loopback import Reply, loopback  # noqa: F401
from streamlit.testing.v1 import AppTest

from ragcore.engines.by_name import CHOICES
from test_app_pages import (  # noqa: F401 (fixtures)
    app_env, ask, built_workspace, button, docs_ws, open_page,
)

QUESTION = "What did the speech say about Ukraine and Putin?"


def retriever_box(at: AppTest):
    return next(s for s in at.sidebar.selectbox if s.label == "Retriever")


def choose(at: AppTest, label: str) -> AppTest:
    name = next(n for n, choice in CHOICES.items() if choice.label == label)
    retriever_box(at).set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def stages(at: AppTest) -> list[str]:
    return at.dataframe[0].value["stage"].tolist()


def test_offline_the_retrievers_that_run_are_offered_and_the_others_say_why(docs_ws):
    at = open_page("query")
    assert retriever_box(at).options == [
        "Standard", "Auto-merging", "Sentence window", "Router", "Sub-questions"]
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.startswith("Not available now: Query fusion, HyDE, LLM rerank: needs a "
                            "language model") for c in captions)
    assert any("Not available now: Cross-encoder rerank" in c for c in captions)

    ask(choose(at, "Sentence window"), QUESTION)
    assert "sentence windows" in stages(at)
    replaced = at.dataframe[0].value.set_index("stage").loc[
        "postprocess: MetadataReplacementPostProcessor", "details"]
    assert "texts replaced=" in replaced
    assert any("retriever **Sentence window**" in c.value for c in at.caption)

    ask(choose(at, "Auto-merging"), QUESTION)
    assert "auto-merge" in stages(at)

    ask(choose(at, "Router"), QUESTION)
    assert "route" in stages(at)
    assert any(m.value == "**Router's choice**" for m in at.markdown)


def test_simple_view_has_no_retriever_choice(docs_ws):
    (docs_ws / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    at = open_page("query")
    assert not [s for s in at.sidebar.selectbox if s.label == "Retriever"]


def test_compare_retrievers_shows_each_ones_passages_scores_and_answer(docs_ws):
    at = open_page("query")
    at.text_input[0].set_value(QUESTION).run()  # Enter: the Answer tab answers it too
    picker = next(m for m in at.multiselect if m.label == "Retrievers to compare")
    assert picker.value == ["standard", "auto_merging", "sentence_window"]
    button(at, "Compare retrievers").click().run()
    assert not at.exception
    table = at.dataframe[-1].value.set_index("retriever")
    assert table.index.tolist() == ["Standard", "Auto-merging", "Sentence window"]
    assert (table["status"] == "ok").all() and (table["passages"] > 0).all()
    # offline no language model runs: the table counts extractive steps, not "LLM calls"
    assert "LLM calls" not in table.columns and (table["Extractive steps"] >= 1).all()
    passages = [m.value.replace("\\_", "_")  # the file name shown as written, its "_" escaped
                for m in at.markdown if m.value.startswith("1. `")]
    assert len(passages) == 3 and all("state_of_the_union.txt" in p for p in passages)
    answers = [m.value for m in at.markdown if m.value.startswith("Extractive answer")]
    assert len(answers) == 1 + 3  # the Answer tab's (Enter asked), then one per retriever


@pytest.fixture
def model_ws(docs_ws, loopback, monkeypatch):  # noqa: F811
    monkeypatch.setenv("RAGCORE_LLM", "ollama:llama3.1")
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", loopback.ollama_url)
    return docs_ws


def test_with_a_language_model_fusion_hyde_and_rerank_run_and_are_traced(
        model_ws, loopback):  # noqa: F811
    at = open_page("query")
    assert retriever_box(at).options == [
        "Standard", "Auto-merging", "Sentence window", "Query fusion", "HyDE", "LLM rerank",
        "Router", "Sub-questions"]

    loopback.queue(Reply(text="Russian invasion of Ukraine\nsanctions on Russia\nNATO allies"),
                   Reply(text="Putin invaded Ukraine."))
    ask(choose(at, "Query fusion"), QUESTION)
    assert stages(at)[0] == "llm: generate queries" and "fuse queries" in stages(at)
    assert any("sanctions on Russia" in m.value for m in at.markdown)

    loopback.queue(Reply(text="Doc: 3, Relevance: 9\nDoc: 1, Relevance: 4"),
                   Reply(text="Putin invaded Ukraine."))
    ask(choose(at, "LLM rerank"), QUESTION)
    assert "llm: rerank 1-12" in stages(at) and "postprocess: LLMRerank" in stages(at)
    rerank = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    assert rerank["passage"].tolist() == [3, 1] and rerank["relevance"].tolist() == [9.0, 4.0]
    assert next(t.label for t in at.tabs if t.label.startswith("Sources")) == "Sources (2)"

    loopback.queue(Reply(text="The president condemned Putin's attack on Ukraine."),
                   Reply(text="Putin invaded Ukraine."))
    ask(choose(at, "HyDE"), QUESTION)
    assert stages(at)[:2] == ["llm: hypothetical answer", "embed hypothetical answer"]
    assert any("condemned Putin's attack" in c.value for c in at.caption)



def test_chat_searches_with_the_chosen_retriever_and_shows_what_it_did(docs_ws):
    at = open_page("chat")
    box = retriever_box(at)
    assert box.options == ["Standard", "Auto-merging", "Sentence window"]  # no router here
    choose(at, "Sentence window")
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception
    stages = at.dataframe[-1].value["stage"].tolist()
    assert "sentence windows" in stages
    assert "postprocess: MetadataReplacementPostProcessor" in stages
    choose(at, "Auto-merging")
    at.chat_input[0].set_value("And what about jobs?").run()
    assert "auto-merge" in at.dataframe[-1].value["stage"].tolist()
