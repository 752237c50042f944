"""The Query page as people use it (issue 18): Enter asks, answers carry [1] [2] markers that
match the numbered sources, what the answer did with each source instead of scores, the offline
trace and comparison in plain words, and "Open in document". AppTest, fake embedder, the
extractive backend."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90
QUESTION = "What did the speech say about Ukraine and Putin?"


@pytest.fixture(scope="module")
def built_workspace(tmp_path_factory, corpus_dir) -> Path:
    root = tmp_path_factory.mktemp("evidence") / "ws"
    ws = Workspace(root, embedder=FakeEmbedder())
    speech = corpus_dir / "state_of_the_union" / "state_of_the_union.txt"
    upload = ws.save_upload("docs", speech.name, speech.read_bytes())
    assert ws.ingest("docs", [upload]).failed == 0
    return root


def use_workspace(monkeypatch, built_workspace, tmp_path, *, advanced: bool) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    shutil.copytree(built_workspace, root)
    (root / "app-preferences.json").write_text(f'{{"advanced": {str(advanced).lower()}}}')
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


@pytest.fixture
def simple_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    return use_workspace(monkeypatch, built_workspace, tmp_path, advanced=False)


@pytest.fixture
def advanced_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    return use_workspace(monkeypatch, built_workspace, tmp_path, advanced=True)


def query_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/query.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def enter(at: AppTest, question: str) -> AppTest:
    """Type the question and press Enter (no click on Ask)."""
    at.text_input(key="query_question").input(question).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sources(at: AppTest) -> list[str]:
    return [e.label for e in at.expander if e.label.startswith("[")]


def test_enter_in_the_question_box_asks(simple_ws):
    at = enter(query_page(), QUESTION)
    assert at.markdown[0].value.startswith("Extractive answer")
    assert sources(at)


def test_the_answer_carries_markers_that_match_the_numbered_sources(simple_ws):
    at = enter(query_page(), QUESTION)
    answer = at.markdown[0].value
    # each marker links to its source: [[1]](#query-source-1)
    used = sorted({int(n) for n in re.findall(r" \[\[(\d+)\]\]\(#query-source-\1\)", answer)})
    assert used and used == list(range(1, len(used) + 1))  # numbered in order of first use
    labels = sources(at)
    for number in used:  # each marker names a listed source the answer quoted
        label = next(label for label in labels if label.startswith(f"[{number}] "))
        assert label.endswith("quoted in the answer")
    first_quote = answer.split("\n- ")[1]
    assert re.search(r"\. \[\[1\]\]\(#query-source-1\)$", first_quote), first_quote
    anchors = [h.proto.body for h in at.get("html") if "query-source-" in h.proto.body]
    assert anchors[0].startswith('<span id="query-source-1"></span>')  # and the click script
    assert len(anchors) == len(labels)


def test_sources_say_what_the_answer_did_with_them_and_hide_the_search(simple_ws):
    """A search's closeness is no word on support (issue 66: "strong match" on a bibliography
    entry): without Advanced a source's title says what the answer did with it."""
    at = enter(query_page(), QUESTION)
    labels = sources(at)
    assert labels and all(label.endswith(("· quoted in the answer",
                                          "· found by the search, not quoted"))
                          for label in labels), labels
    assert not any("score" in label or "search:" in label for label in labels)


def test_advanced_shows_the_score_beside_the_searchs_word(advanced_ws):
    at = enter(query_page(), QUESTION)
    assert all(re.search(r"search: (close|somewhat close|far from).* · score \d\.\d{3}", label)
               for label in sources(at))


def test_the_offline_trace_counts_extractive_steps_not_llm_calls(advanced_ws):
    at = enter(query_page(), QUESTION)
    assert [m.label for m in at.metric] == ["Extractive steps", "Seconds"]
    titles = [e.label for e in at.expander if not e.label.startswith("[")]
    assert titles and all(t.startswith("Extractive step") for t in titles)
    assert not any("LLM call" in t or "tokens" in t for t in titles)


def test_offline_compare_says_why_every_mode_gives_the_same_answer(advanced_ws):
    at = query_page()
    at.text_input(key="query_question").set_value(QUESTION)
    at.multiselect[0].set_value(["compact", "refine", "tree_summarize"]).run()
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception
    assert any("The modes differ only in how they ask a language model" in i.value for i in at.info)
    table = at.dataframe[-1].value
    assert "LLM calls" not in table.columns and (table["Extractive steps"] >= 1).all()
    assert not any("LLM call" in c.value or "tokens" in c.value for c in at.caption)


def test_open_in_document_shows_the_passage_in_its_text_and_offers_the_file(simple_ws):
    at = enter(query_page(), QUESTION)
    next(b for b in at.button if b.label == "Open in document").click().run()
    assert not at.exception, [e.value for e in at.exception]
    downloads = [d for d in at.get("download_button")]
    assert downloads and "state_of_the_union.txt" in downloads[0].proto.label
    frames = [f.proto for f in at.get("iframe")]
    assert frames and 'id="rc-passage-start"' in frames[0].srcdoc
