"""The Streamlit app, page by page, driven headless with AppTest over real corpus files.

Most tests use the fake embedder (RAGCORE_EMBEDDER=fake) and the extractive backend
(RAGCORE_LLM=extractive) so they run in seconds; tests/test_app_real_model.py uses the real model.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import socket
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90


@pytest.fixture(scope="module")
def built_workspace(tmp_path_factory, corpus_dir) -> Path:
    """A workspace with index 'docs' (a speech and a PEP), built once for the module."""
    root = tmp_path_factory.mktemp("built") / "ws"
    ws = Workspace(root, embedder=FakeEmbedder())
    report = ws.ingest(
        "docs",
        [
            corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
            corpus_dir / "python_peps" / "pep-0020.rst",
        ],
    )
    assert report.failed == 0
    return root


@pytest.fixture
def app_env(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")

    def use(root: Path) -> Path:
        monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
        # These tests drive every control: the Advanced switch is on (tests/test_app_people.py
        # covers the simple view a new user sees).
        root.mkdir(parents=True, exist_ok=True)
        (root / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
        return root

    return use


@pytest.fixture
def empty_ws(app_env, tmp_path) -> Path:
    return app_env(tmp_path / "empty-ws")


@pytest.fixture
def docs_ws(app_env, built_workspace, tmp_path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(built_workspace, root)
    return app_env(root)


def open_page(page: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r} in {[b.label for b in at.button]}"
    return matches[0]


def finish_jobs(at: AppTest, root: Path) -> AppTest:
    """Wait for the background jobs a click started (ingest runs outside the script), rerun."""
    from ragcore.workspace.jobs.runner import runner_for

    assert runner_for(root).wait_idle(timeout=TIMEOUT)
    return at.run()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(root: Path, **values) -> None:
    path = root / "settings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(values)
    path.write_text(json.dumps(data))


# -- start and navigation --------------------------------------------------------------------


def test_start_page_says_what_to_do_and_which_backend_answers(empty_ws):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "Extractive" in at.info[0].value and "Settings" in at.info[0].value
    assert any("Upload your documents" in m.value for m in at.markdown)
    assert str(empty_ws) in at.caption.values[-1]


def test_start_page_lists_indexes_and_every_page_opens(docs_ws):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert at.dataframe[0].value["index"].tolist() == ["docs"]
    titles = {}
    for page in ("upload", "indexes", "query", "chat", "settings", "home"):
        open_page(page, at)
        titles[page] = at.title[0].value
    assert titles["upload"] == "Upload documents"
    assert titles["indexes"].endswith("Indexes")
    assert titles["query"].endswith("Ask your documents")
    assert titles["chat"].endswith("Chat with your documents")
    assert titles["settings"].endswith("Settings")


def test_a_page_opened_before_the_navigation_registers_it_and_renders(docs_ws):
    # A server's first run may start on a page's URL without app.py (Streamlit's legacy
    # pages/ mode): the page registers the app's navigation itself and shows normally.
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    del at.session_state["navigation_ready"]
    open_page("query", at)
    assert at.title[0].value == "Ask your documents"
    assert at.session_state["navigation_ready"] is True


# -- upload ----------------------------------------------------------------------------------


def test_upload_reports_each_file_and_reupload_updates(empty_ws, corpus_dir):
    at = open_page("upload")
    at.text_input[0].set_value("papers")
    speech = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_bytes()
    at.file_uploader[0].set_value(
        [
            ("../../speech.txt", speech, "text/plain"),
            ("pep 20.rst", (corpus_dir / "python_peps" / "pep-0020.rst").read_bytes(), "text/rst"),
            ("broken.pdf", b"", "application/pdf"),
        ]
    ).run()
    button(at, "Index 3 files").click().run()
    finish_jobs(at, empty_ws)
    assert not at.exception
    table = at.dataframe[0].value.set_index("file")
    assert table.loc["speech.txt", "result"].startswith("indexed: ")
    assert table.loc["speech.txt", "passages"] > 5
    assert table.loc["broken.pdf", "result"].startswith("failed: ")
    assert "empty" in table.loc["broken.pdf", "result"]
    assert "1 failed" in at.warning[0].value
    uploads = sorted(p.name for p in (empty_ws / "uploads" / "papers").iterdir())
    assert uploads == ["broken.pdf", "pep 20.rst", "speech.txt"]  # sanitized, inside the workspace

    at.file_uploader[0].set_value(("speech.txt", speech, "text/plain")).run()
    button(at, "Index 1 file").click().run()
    finish_jobs(at, empty_ws)
    assert at.dataframe[0].value["result"].tolist() == ["unchanged, skipped"]


def test_upload_refuses_a_bad_index_name_in_plain_words(empty_ws):
    at = open_page("upload")
    at.text_input[0].set_value("!!!")
    at.file_uploader[0].set_value(("a.txt", b"Some text about owls.", "text/plain")).run()
    assert button(at, "Index 1 file").disabled  # until the name can be used
    assert any("needs at least one letter or digit" in c.value for c in at.caption)
    assert not (empty_ws / "uploads").exists()
    at.text_input[0].set_value("Dossiers été 2024").run()
    assert not button(at, "Index 1 file").disabled
    assert any("Dossiers-ete-2024" in c.value for c in at.caption)


# -- indexes ---------------------------------------------------------------------------------


def test_indexes_page_shows_stats_documents_chunks_and_pictures(docs_ws):
    at = open_page("indexes")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Files"] == "2" and int(metrics["Passages"]) > 10 and int(metrics["Tokens"]) > 1000
    assert any("Embedding model:** `fake-embedder`" in m.value for m in at.markdown)
    shown = [c.value for c in at.caption] + at.dataframe[0].value["created"].tolist()
    assert not [v for v in shown if re.search(r"\d{4}-\d\d-\d\dT", v)]  # no ISO stamps
    files = at.dataframe[1].value["file"].tolist()
    assert files == ["state_of_the_union.txt", "pep-0020.rst"]
    assert len(at.get("vega_lite_chart")) == 3  # histogram, documents by size, embedding map
    at.toggle[0].set_value(True).run()
    texts = [t.value for t in at.text]
    assert texts[0].startswith("Madam Speaker") and len(texts[0]) > 200  # whole, not cut off
    positions = [c.value for c in at.caption if c.value.startswith("Passage ")]
    total = int(positions[0].split(" of ")[1].split(" ")[0])
    assert total > 40 and positions[0].startswith(f"Passage 1 of {total} · characters 0–")
    assert len(positions) == 40  # a long document is shown a batch at a time
    at.selectbox[-1].set_value(41).run()
    positions = [c.value for c in at.caption if c.value.startswith("Passage ")]
    assert positions[0].startswith(f"Passage 41 of {total}") and len(positions) == total - 40


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_file_ingested_within_the_same_second_shows_at_once(app_env, tmp_path, corpus_dir):
    # The app's caches once keyed on one-second stamps: a file ingested in the same second as
    # the state the page had shown stayed invisible.
    root = app_env(tmp_path / "ws")
    ws = Workspace(root, embedder=FakeEmbedder())
    (tmp_path / "note.txt").write_text("A short note about owls.")
    (tmp_path / "more.txt").write_text("Another note, about bats.")
    ws.ingest("docs", [tmp_path / "note.txt"])
    at = open_page("indexes")  # the first run is slow; later runs take a fraction of a second
    time.sleep(1 - time.time() % 1)  # start at a fresh second, so the steps below share it
    ws.ingest("docs", [tmp_path / "more.txt"])
    at.run()
    assert metrics(at)["Files"] == "2"
    tokens = int(metrics(at)["Tokens"])
    ws.ingest("docs", [corpus_dir / "python_peps" / "pep-0020.rst"])
    at.run()
    assert metrics(at)["Files"] == "3" and int(metrics(at)["Tokens"]) > tokens + 100
    assert at.dataframe[0].value["files"].tolist() == [3]
    sizes = at.get("vega_lite_chart")[1].proto.SerializeToString()  # documents by size
    assert b"pep-0020.rst" in sizes and b"more.txt" in sizes
    assert at.dataframe[1].value["file"].tolist() == ["note.txt", "more.txt", "pep-0020.rst"]


def test_an_index_deleted_and_made_again_shows_its_new_files(app_env, tmp_path):
    root = app_env(tmp_path / "ws")
    ws = Workspace(root, embedder=FakeEmbedder())
    for name, text in (("owls.txt", "Owls hunt at night."), ("bats.txt", "Bats echolocate.")):
        (tmp_path / name).write_text(text)
    ws.ingest("docs", [tmp_path / "owls.txt"])
    at = open_page("indexes")
    assert at.dataframe[1].value["file"].tolist() == ["owls.txt"]
    ws.delete_index("docs")
    ws.ingest("docs", [tmp_path / "bats.txt"])  # the same steps: the same index revision
    at.run()
    assert at.dataframe[1].value["file"].tolist() == ["bats.txt"]
    at.toggle[0].set_value(True).run()
    assert [t.value for t in at.text] == ["Bats echolocate."]


def test_deleting_a_document_asks_for_confirmation(docs_ws):
    at = open_page("indexes")
    at.selectbox[1].set_value(at.selectbox[1].options[1]).run()  # the PEP
    button(at, "Delete…").click().run()
    assert "Delete **pep-0020.rst**" in at.warning[0].value
    button(at, "Yes, delete it").click().run()
    assert not at.exception
    assert at.dataframe[1].value["file"].tolist() == ["state_of_the_union.txt"]
    assert at.dataframe[0].value["files"].tolist() == [1]  # the overview is not stale
    assert {m.label: m.value for m in at.metric}["Files"] == "1"


def test_rename_then_delete_index(docs_ws):
    at = open_page("indexes")
    at.text_input[0].set_value("speeches").run()
    button(at, "Rename").click().run()
    assert at.dataframe[0].value["index"].tolist() == ["speeches"]
    assert button(at, "Delete this index").disabled
    at.checkbox[0].check().run()
    button(at, "Delete this index").click().run()
    assert not at.exception
    assert "no index yet" in at.info[0].value
    assert not (docs_ws / "indexes" / "speeches").exists()


def test_damaged_index_gives_a_readable_error(docs_ws):
    (docs_ws / "indexes" / "docs" / "manifest.json").write_text("{not json")
    at = open_page("indexes")
    assert at.error, "expected an error message"
    assert "What to do" in at.error[0].value
    assert "Traceback" not in at.error[0].value


# -- query -----------------------------------------------------------------------------------


def passage_blocks(at: AppTest) -> list:
    """The passages shown (not the anchors the answer's [1] [2] markers link to)."""
    return [h for h in at.get("html") if not h.proto.body.startswith("<span id=")]


def ask(at: AppTest, question: str) -> AppTest:
    """A new question is typed and Enter pressed (which asks); the same one is asked again."""
    if at.text_input[0].value != question:
        at.text_input[0].set_value(question).run()
    else:
        button(at, "Ask").click().run()
    assert not at.exception
    return at


def test_query_answers_with_sources_highlighted_and_a_trace(docs_ws):
    at = ask(open_page("query"), "What did the speech say about Ukraine and Putin?")
    answer = at.markdown[0].value
    assert answer.startswith("Extractive answer")
    labels = source_expanders(at)
    assert labels[0].startswith("[1] state_of_the_union.txt · ")
    assert " your question · score " in labels[0]  # how close the search found it (Advanced)
    quoted = [label for label in labels if "· quoted in the answer" in label]
    assert quoted and any("<mark" in h.proto.body for h in at.get("html"))  # marked in place
    stages = at.dataframe[0].value["stage"].tolist()
    assert stages[:2] == ["embed query", "retrieve"] and "llm: qa" in stages
    assert any(e.label.startswith("Extractive step 1: qa") for e in at.expander)
    assert {m.label: m.value for m in at.metric}["Extractive steps"] == "1"


def test_query_response_mode_is_chosen_from_the_list(docs_ws):
    at = open_page("query")
    radio = at.radio[0]
    assert "refine" in radio.options and "tree_summarize" in radio.options
    radio.set_value("refine")
    ask(at, "What is the state of the union?")
    assert "Mode **refine**" in at.caption.values[0]
    assert int({m.label: m.value for m in at.metric}["Extractive steps"]) > 1
    at.radio[0].set_value("no_text")
    ask(at, "What is the state of the union?")
    assert {m.label: m.value for m in at.metric}["LLM calls"] == "0"


def test_query_postprocessors_apply_and_bad_options_are_explained(docs_ws):
    at = open_page("query")
    at.sidebar.multiselect[0].set_value(["keywords"]).run()
    ask(at, "What did the president say about Europe?")
    assert "no words are given" in at.error[0].value
    at.sidebar.text_input[0].set_value("Ukraine").run()
    at.sidebar.slider[0].set_value(10).run()
    ask(at, "What did the president say about Europe?")
    passages = [h.proto.body for h in passage_blocks(at)]
    assert passages and all("Ukraine" in body for body in passages)
    assert "postprocess: KeywordNodePostprocessor" in at.dataframe[0].value["stage"].tolist()


def test_query_searches_by_keywords_or_both_with_the_choice_explained(docs_ws):
    at = open_page("query")
    search = at.sidebar.selectbox[1]
    assert search.label == "Search by" and search.value == "hybrid"
    assert search.options == ["meaning and keywords", "meaning", "keywords"]
    search.set_value("keyword").run()
    assert any("acronyms" in c.value for c in at.sidebar.caption)
    ask(at, "What did the speech say about Ukraine and Putin?")
    assert at.dataframe[0].value["stage"].tolist()[0] == "keyword search"
    assert all("Ukraine" in h.proto.body or "Putin" in h.proto.body for h in passage_blocks(at))
    at.sidebar.selectbox[1].set_value("hybrid").run()
    ask(at, "What did the speech say about Ukraine and Putin?")
    assert at.dataframe[0].value["stage"].tolist()[:4] == [
        "embed query", "retrieve", "keyword search", "fuse"]
    # Fused scores are on another scale: the cutoff is offered for a search by meaning only.
    assert "Similarity cutoff" not in at.sidebar.multiselect[0].options
    assert any("cutoff would remove every passage" in c.value for c in at.sidebar.caption)
    at.sidebar.selectbox[1].set_value("similarity").run()
    assert "Similarity cutoff" in at.sidebar.multiselect[0].options


def flat(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def marked_texts(at: AppTest) -> list[str]:
    return [html.unescape(m) for h in at.get("html")
            for m in re.findall(r"<mark[^>]*>(.*?)</mark>", h.proto.body, re.S)]


def source_expanders(at: AppTest) -> list[str]:
    return [e.label for e in at.expander if e.label.startswith("[")]


def test_query_marks_only_what_the_extractive_answer_quotes(docs_ws):
    at = open_page("query")
    # The second answer's passages hold "Tonight, Danielle—we are.": most of its words are in
    # the answer, which does not quote it; the old 60 %-of-words rule marked it.
    for question in ["What did the speech say about Ukraine and Putin?",
                     "What did he say about COVID?"]:
        ask(at, question)
        answer = flat(at.markdown[0].value)
        marks = marked_texts(at)
        # a quoted sentence may be marked in segments (its short answer bold inside it)
        assert marks and all(flat(m) in answer for m in marks if re.search(r"\w", m)), marks
        labels = source_expanders(at)
        assert any(label.endswith("· quoted in the answer") for label in labels)


def test_query_hides_sources_below_the_relevance_floor_until_asked(docs_ws):
    at = open_page("query")
    at.sidebar.selectbox[1].set_value("keyword").run()
    at.sidebar.slider[0].set_value(8).run()
    ask(at, "What did the speech say about the Russian stock market?")
    total = int(next(t.label for t in at.tabs if t.label.startswith("Sources"))[9:-1])
    shown = source_expanders(at)
    assert 1 <= len(shown) < total and len(passage_blocks(at)) == len(shown)
    hidden = total - len(shown)
    assert [t.label for t in at.main.toggle] == [
        f"Show {hidden} more source{'' if hidden == 1 else 's'} the search found (weaker matches)"]
    at.main.toggle[0].set_value(True).run()
    everything = source_expanders(at)
    assert everything[: len(shown)] == shown
    assert sorted(int(label[1:label.index("]")]) for label in everything) == list(
        range(1, total + 1))
    ask(at, "What did the speech say about the Russian stock market?")
    assert source_expanders(at) == shown  # a new answer starts with weak sources hidden again


def test_query_generation_mode_shows_no_sources(docs_ws):
    at = open_page("query")
    at.radio[0].set_value("generation")
    ask(at, "What did the speech say about Ukraine and Putin?")
    assert source_expanders(at) == [] and not at.get("html") and not at.main.toggle
    assert any("answers from the model alone" in c.value for c in at.caption)
    assert any(t.label == "Sources (0)" for t in at.tabs)


def test_compare_modes_side_by_side(docs_ws):
    at = open_page("query")
    at.text_input[0].set_value("What is the state of the union?").run()
    at.multiselect[0].set_value(["compact", "refine", "no_text"]).run()
    button(at, "Compare").click().run()
    assert not at.exception
    table = at.dataframe[-1].value.set_index("mode")
    assert table.index.tolist() == ["compact", "refine", "no_text"]
    assert table.loc["no_text", "LLM calls"] == 0 and table.loc["refine", "Extractive steps"] >= 1
    assert (table["status"] == "ok").all()


# -- chat ------------------------------------------------------------------------------------


def chat(at: AppTest, message: str) -> AppTest:
    at.chat_input[0].set_value(message).run()
    assert not at.exception
    return at


def test_chat_answers_with_sources_and_is_saved_and_restored(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    roles = [m.name for m in at.chat_message]
    assert roles == ["user", "assistant"]
    reply = at.chat_message[1].markdown[0].value
    assert reply.startswith("Extractive answer")
    chat_id = at.query_params["chat"]
    # a quote carries its source's marker, linked to that source's place under the reply
    assert re.search(rf"\[\[1\]\]\(#{chat_id}_1-source-1\)", reply)
    assert any(c.value == "Sources (4)" for c in at.chat_message[1].caption)
    titles = [e.label for e in at.chat_message[1].expander]
    assert titles[0].startswith("[1] ") and titles[0].endswith("quoted in the answer")
    assert re.search(r" · search: (close to|somewhat close to|far from) your question · ",
                     titles[0])  # how close the search found it (Advanced)
    assert (docs_ws / "chats" / f"{chat_id}.json").exists()
    assert {b.label for b in at.download_button} == {"Export as Markdown", "Export as JSON"}

    reopened = AppTest.from_file(APP, default_timeout=TIMEOUT)
    reopened.query_params["chat"] = chat_id  # a browser refresh keeps the URL
    reopened.run()
    open_page("chat", reopened)
    assert [m.name for m in reopened.chat_message] == ["user", "assistant"]
    assert f"[[1]](#{chat_id}_1-source-1)" in reopened.chat_message[1].markdown[0].value
    other = open_page("chat")  # another browser session, no link: a chat of its own
    assert len(other.chat_message) == 0 and "chat" not in other.query_params
    saved = [b for b in other.sidebar.button if b.key == f"open_{chat_id}"]
    assert len(saved) == 1  # the saved chat is listed, to open
    saved[0].click().run()
    assert [m.name for m in other.chat_message] == ["user", "assistant"]


def test_a_new_session_never_writes_into_a_chat_another_session_has_open(docs_ws):
    first = chat(open_page("chat"), "What did the speech say about Ukraine?")
    second = chat(open_page("chat"), "What does the Zen of Python say about beauty?")
    assert second.query_params["chat"] != first.query_params["chat"]
    chats = {p.stem: json.loads(p.read_text()) for p in (docs_ws / "chats").glob("*.json")}
    questions = {i: [m["content"] for m in c["messages"] if m["role"] == "user"]
                 for i, c in chats.items()}
    assert questions == {first.query_params["chat"]: ["What did the speech say about Ukraine?"],
                         second.query_params["chat"]: [
                             "What does the Zen of Python say about beauty?"]}
    chat(first, "And about its people?")  # the first session's chat goes on where it was
    assert [m.name for m in first.chat_message] == ["user", "assistant"] * 2


def test_a_stale_chat_link_is_explained_and_a_new_chat_opens(docs_ws):
    chat(open_page("chat"), "What did the speech say about Ukraine?")
    stale = AppTest.from_file(APP, default_timeout=TIMEOUT)
    stale.query_params["chat"] = "20200101-000000-abcdef"
    stale.run()
    open_page("chat", stale)
    assert "could not be opened" in stale.warning[0].value
    assert "no saved chat" in stale.warning[0].value.lower()
    assert len(stale.chat_message) == 0


def test_chat_mode_explained_and_condensed_question_shown(docs_ws):
    at = open_page("chat")
    at.sidebar.selectbox[1].set_value("condense_question").run()
    assert any("standalone question" in c.value for c in at.sidebar.caption)
    chat(at, "What did the speech say about Ukraine?")
    chat(at, "What did it say about its people?")
    assert len(at.chat_message) == 4
    assert any("Standalone question" in m.value for m in at.markdown)


def test_chat_searches_by_both_and_saves_the_choice(docs_ws):
    at = open_page("chat")
    at.sidebar.selectbox[2].set_value("hybrid").run()
    assert any("fused" in c.value for c in at.sidebar.caption)
    chat(at, "What did the speech say about Ukraine?")
    stages = at.dataframe[0].value["stage"].tolist()
    assert "keyword search" in stages and "fuse" in stages
    saved = json.loads((docs_ws / "chats" / f"{at.query_params['chat']}.json").read_text())
    assert saved["settings"]["retrieval_mode"] == "hybrid"


def test_chat_hides_sources_below_the_relevance_floor_and_keeps_the_search_mode(docs_ws):
    at = open_page("chat")
    at.sidebar.selectbox[2].set_value("keyword").run()
    at.sidebar.slider[0].set_value(8).run()
    chat(at, "What did the speech say about the Russian stock market?")
    total = int(next(c.value for c in at.caption if c.value.startswith("Sources"))[9:-1])

    def labels():
        return [e.label for e in at.expander if re.match(r"\[\d\] ", e.label)]

    def source_html():  # not the reply's Copy button or the scroll to the new question
        return [h for h in at.get("html")
                if "rc-copy" not in h.proto.body and "rc-asked" not in h.proto.body]

    shown = labels()
    # each shown source: the anchor its marker links to, and its passage
    assert 1 <= len(shown) < total and len(source_html()) == 2 * len(shown)
    assert any("· quoted in the answer" in label for label in shown)
    assert at.toggle[0].label.startswith(f"Show {total - len(shown)} more source")
    at.toggle[0].set_value(True).run()
    assert len(labels()) == total and len(source_html()) == 2 * total
    saved = json.loads((docs_ws / "chats" / f"{at.query_params['chat']}.json").read_text())
    assert saved["messages"][1]["trace"]["retrieval_mode"] == "keyword"


def test_chat_react_mode_shows_reasoning_steps(docs_ws):
    at = open_page("chat")
    at.sidebar.selectbox[1].set_value("react").run()
    chat(at, "What did the speech say about inflation?")
    steps = [t.value for t in at.text if t.value.startswith("Step ")]
    assert steps and "Action: " in steps[0]


def test_new_chat_and_clear(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    button(at, "New chat").click().run()
    assert len(at.chat_message) == 0 and "chat" not in at.query_params
    chat(at, "What about jobs?")
    assert len(at.chat_message) == 2
    saved = [b.label for b in at.sidebar.button if b.key and b.key.startswith("open_")]
    assert len(saved) == 2
    cleared = docs_ws / "chats" / f"{at.query_params['chat']}.json"
    assert len(json.loads(cleared.read_text())["messages"]) == 2
    button(at, "Clear").click().run()
    button(at, "Yes, clear").click().run()  # Clear asks first
    assert len(at.chat_message) == 0
    assert json.loads(cleared.read_text())["messages"] == []  # the saved copy is cleared too


def test_unreachable_llm_keeps_history_and_offers_retry(docs_ws, monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM")
    write_settings(docs_ws, llm_backend="extractive")
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    write_settings(docs_ws, llm_backend="ollama", ollama_url=f"http://127.0.0.1:{closed_port()}",
                   ollama_model="llama3")
    chat(at, "And about jobs?")
    assert "could not be reached" in at.error[0].value
    assert [m.name for m in at.chat_message] == ["user", "assistant", "user"]
    saved = json.loads((docs_ws / "chats" / f"{at.query_params['chat']}.json").read_text())
    assert len(saved["messages"]) == 2  # the failed turn is not saved

    write_settings(docs_ws, llm_backend="extractive")
    button(at, "Retry").click().run()
    assert not at.exception and not at.error
    assert [m.name for m in at.chat_message] == ["user", "assistant", "user", "assistant"]


# -- settings --------------------------------------------------------------------------------


def test_settings_test_connection_explains_an_unreachable_server(docs_ws):
    at = open_page("settings")
    at.radio[0].set_value("ollama").run()
    at.text_input[0].set_value(f"http://127.0.0.1:{closed_port()}").run()
    button(at, "Test connection").click().run()
    assert "could not be reached" in at.error[0].value
    at.text_input(key="llms.ollama.model").set_value("llama3").run()
    button(at, "Save settings").click().run()
    assert "Ollama llama3" in at.success[0].value
    saved = json.loads((docs_ws / "settings.json").read_text())
    assert saved["llm_backend"] == "ollama" and saved["llms"]["ollama"]["model"] == "llama3"


def test_settings_keep_an_api_key_for_the_session_only(docs_ws):
    at = open_page("settings")
    at.radio[0].set_value("openai").run()
    at.text_input[1].set_value("sk-test-123").run()
    at.text_input(key="llms.openai.model").set_value("gpt-4o-mini").run()
    button(at, "Save settings").click().run()
    assert not at.exception and at.success
    assert "sk-test-123" not in (docs_ws / "settings.json").read_text()
    assert at.session_state["session_api_key"] == {"llms.openai.api_key": "sk-test-123"}


def test_changing_the_embedding_model_of_a_filled_index_is_refused(docs_ws):
    at = open_page("settings")
    at.radio[1].set_value("ollama").run()
    at.text_input[-2].set_value("nomic-embed-text").run()  # embedding model (before folder)
    button(at, "Save settings").click().run()
    button(at, "Change its embedding model").click().run()
    assert not at.exception
    assert "re-indexing" in at.error[0].value
