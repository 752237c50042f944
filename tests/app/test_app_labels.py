"""Every label is true of what is on screen (issue 66), headless with AppTest and as plain
functions: the passages waiting for the model are not said to be read; the warning about
sentences marked (not in the documents) needs a marked sentence; a reply stopped before its
first word is not said to be unconfirmed; a passage opening with a Markdown heading is drawn as
text; no score without Advanced; Settings shows the Ollama address the app was started with,
and its largest file agrees with the uploads the app takes.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from test_app_pages import app_env, built_workspace, docs_ws, open_page  # noqa: F401
from test_settings_setup import workspace  # noqa: F401 (fixture)

from ragcore.chat import CHAT_MODE_DESCRIPTIONS
from ragcore.present import format as fmt
from ragcore.present.markers import AnswerCheck
from ragcore.types import Node, ScoredNode
from webapp.chat.chat_modes import MODE_LINES

PASSAGE = ("The keepers recommend lighting the lamp between 18:00 and 06:00 in winter. "
           "The tower is 42 metres tall.")


def _live_turn(states: list) -> None:
    from ragcore.chat import Checked, Reading
    from ragcore.types import Node, ScoredNode
    from webapp.chat import turn_view

    sources = [ScoredNode(Node("The tower is 42 metres tall.", metadata={"file_name": "a.txt"}),
                           0.8), ScoredNode(Node("The lamp is lit at dusk."), 0.7)]
    turn = turn_view.open_live_turn(stop=False)
    turn_view.show_passages(turn, sources)
    told = {"wait": Reading(2, 12, None, 1.0, waiting=True), "read": Reading(2, 12, None, 2.0)}
    turn_view.follow(turn, [*(told[name] for name in states), Checked("", None)])


def headings(at: AppTest) -> list[str]:
    return [m.value.split("\n\n")[0] for m in at.markdown
            if m.value.startswith("**Passages found")]


def test_passages_waiting_in_line_are_not_said_to_be_read():
    at = AppTest.from_function(_live_turn, args=(["wait"],), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert headings(at) == ["**Passages found (2)**, to be read by the model when your turn "
                            "comes:"]
    assert [c.value for c in at.caption if "Waiting in line" in c.value]
    at = AppTest.from_function(_live_turn, args=(["wait", "read"],), default_timeout=60).run()
    assert headings(at) == ["**Passages found (2)**, being read by the model:"]


def _listing(marked: bool) -> None:
    from types import SimpleNamespace

    from ragcore.present.sources import SourceListing
    from webapp.answers.citing import render_listing

    listing = SourceListing(shown=(), verdict=SimpleNamespace(label="partly"), marked=marked)
    render_listing(listing, lambda source, first: None, toggle_key="t", advanced=False)


def test_the_warning_about_marked_sentences_needs_a_marked_sentence():
    at = AppTest.from_function(_listing, args=(False,), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning  # a list, a "Follow the conversation" reply: nothing marked
    at = AppTest.from_function(_listing, args=(True,), default_timeout=60).run()
    assert at.warning[0].value.startswith("Some of this answer is not in the documents")


def test_a_partly_supported_answer_says_whether_a_sentence_is_marked():
    checked = AnswerCheck()(
        "The keepers light the lamp between 18:00 and 06:00 in winter. The tower was painted "
        "red in 1890.", [ScoredNode(Node(PASSAGE), 0.9)],
        question="When do the keepers light the lamp?")
    assert checked.listing.marked == ("(not in the documents)" in checked.text), checked.text


def test_a_reply_stopped_before_its_first_word_is_not_said_to_be_unconfirmed():
    for stopped in ("…", " …", ""):
        checked = AnswerCheck()(stopped, [ScoredNode(Node(PASSAGE), 0.9)],
                                question="When do the keepers light the lamp?")
        assert "Not confirmed" not in checked.text and checked.text == stopped.strip(), stopped
        assert not checked.listing.marked


def test_a_passage_opening_with_a_heading_is_shown_as_text():
    preview = fmt.passage_preview("# History of the program\n\nIt began in 1994.\n", 300)
    assert preview == "History of the program It began in 1994."
    assert fmt.passage_preview("1. First\n2. Second", 300) == "1\\. First 2. Second"
    assert fmt.passage_preview("> quoted", 300) == "quoted"  # its mark dropped (test_app_said_true)
    assert fmt.passage_preview("word " * 100, 30).endswith(" …")


def test_an_unexpected_errors_text_is_shown_as_written():
    """A file name's "__init__" lost its underscores to Markdown bold in the error banner: the
    explanation keeps the error's words, the banner escapes them (test_app_said_true)."""
    from ragcore.present.explain import explain_error

    said = explain_error(ImportError(
        "cannot import name 'x' from 'ragcore.chat' (/work/main/ragcore/chat/__init__.py)"))
    assert "(/work/main/ragcore/chat/__init__.py))." in said.message
    assert fmt.literal_markdown("a *b* `c` [d]") == "a \\*b\\* \\`c\\` \\[d\\]"


def test_a_source_shows_its_score_only_under_advanced():
    scored = ScoredNode(Node("x", metadata={"file_name": "a.pdf", "page": 3}), 0.81234)
    assert fmt.source_label(1, scored) == "1. a.pdf · page 3"
    assert fmt.source_label(1, scored, advanced=True) == "1. a.pdf · page 3 · score 0.812"


def test_settings_show_the_ollama_the_app_was_started_with(workspace, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", "10.9.8.7:11500")
    at = open_page("settings")
    at.radio(key="llm_backend").set_value("ollama").run()
    assert at.text_input(key="llms.ollama.url").value == "http://10.9.8.7:11500"


def test_the_largest_file_agrees_with_the_uploads_the_app_takes(workspace):  # noqa: F811
    at = open_page("settings")
    largest = next(n for n in at.number_input if n.label == "Largest file (MB)")
    said = " ".join(c.value for c in at.caption)
    assert largest.value == 1024
    assert "limited to 200 MB each." not in said  # beside 1024: which one holds?
    assert "a larger limit here applies only to folders indexed from the command line" in said
    largest.set_value(100).run()
    said = " ".join(c.value for c in at.caption)
    assert "up to 200 MB, so this limit applies" in said


def _agent_steps(advanced: bool) -> None:
    from webapp.chat import turn_view
    from webapp.session import session

    session.advanced_choice = advanced
    turn_view.saved_steps({"notes": {"reasoning": [
        {"thought": "I should search.", "action": "search_documents",
         "action_input": {"input": "tides"}, "observation": "The Moon raises tides."},
        {"thought": "I know.", "answer": "The Moon."}]}})


def test_an_agents_steps_say_what_its_tool_does_and_its_name_only_under_advanced():
    at = AppTest.from_function(_agent_steps, args=(False,), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(m.value for m in at.markdown).replace("**", "")  # labels in bold
    assert "Searching the documents for: tides" in shown and "search_documents" not in shown
    at = AppTest.from_function(_agent_steps, args=(True,), default_timeout=60).run()
    assert "Action: search_documents" in "\n".join(m.value for m in at.markdown).replace("**", "")


def _mode_choice(advanced: bool) -> None:
    from webapp.chat.chat_modes import mode_select

    mode_select("condense_plus_context", advanced=advanced, key="mode")


def test_a_chat_modes_description_says_it_once():
    """With Advanced on, the people's line and the technical one were shown one after the
    other, saying the same thing twice."""
    for advanced in (False, True):
        at = AppTest.from_function(_mode_choice, args=(advanced,), default_timeout=60).run()
        said = [c.value for c in at.caption]
        lines = {*MODE_LINES.values(), *CHAT_MODE_DESCRIPTIONS.values()}
        assert len(said) == 1 and said[0] in lines, said


def test_the_indexes_page_says_in_a_persons_words_what_an_index_holds(docs_ws):  # noqa: F811
    """With Advanced off: no embedding model's name, no "component 1", no PDF pages where there
    is no PDF, "no saved chats" rather than "0 saved chat(s)", a job's time in seconds."""
    (docs_ws / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    at = open_page("indexes")
    said = " ".join([*(m.value for m in at.markdown), *(c.value for c in at.caption)])
    assert "Embedding model" not in said and "fake-embedder" not in said
    assert "embedding model" not in at.dataframe[0].value.columns
    assert [t.label for t in at.tabs][:3] == ["Documents", "Pictures", "Jobs"]
    files = next(m for m in at.metric if m.label == "Files")
    assert not files.proto.help  # two text files: no "(one per PDF page)"
    box = next(c for c in at.checkbox if c.label.startswith("I understand"))
    assert "files and no saved chats for good" in box.label
    charts = [c.proto.spec for c in at.get("vega_lite_chart")]
    assert charts and not any("component 1" in spec for spec in charts)


def test_the_upload_page_keeps_where_the_index_is_kept_under_advanced(workspace):  # noqa: F811
    """With Advanced off: no store choice, the folder a new index will have said in the future
    tense (nothing is saved yet), and the button counts files as the job's title does."""
    at = open_page("upload")
    at.text_input[0].set_value("Notes été")
    at.file_uploader[0].set_value(("a.txt", b"Some text about owls.", "text/plain")).run()
    assert "Where to keep the index" not in [s.label for s in at.selectbox]
    said = " ".join(c.value for c in at.caption)
    assert "It will be saved in the folder “Notes-ete”." in said, said
    assert "passages to embed" not in said and "Saved in" not in said
    assert [b.label for b in at.button if b.label.startswith("Index")] == ["Index 1 file"]


def test_settings_without_advanced_name_no_digest_or_embedding_model(workspace):  # noqa: F811
    """The newcomer read "instruct model", "SHA-256 ... digest", "make install",
    "sentence-transformers" and "Embeddings" with Advanced off."""
    at = open_page("settings")
    said = " ".join([*(c.value for c in at.caption), *(r.label for r in at.radio),
                     *(o for r in at.radio for o in [*r.options, *r.proto.captions]),
                     *(s.value for s in at.subheader)])
    for word in ("instruct", "SHA-256", "digest", "make install", "sentence-transformers",
                 "Embeddings", "Embedding model"):
        assert word not in said, word
    assert "Largest file (MB)" in [n.label for n in at.number_input]
    assert not at.exception


def test_a_jobs_outcome_counts_files_without_a_bracketed_plural():
    from types import SimpleNamespace

    from webapp.indexes.jobs_view import short_outcome

    job = SimpleNamespace(state="done", summary="", error="",
                          report={"files": [{}], "indexed": 1, "chunks": 229})
    assert short_outcome(job) == "done · 1 of 1 file new or changed, 229 passages"
    job.report = {"files": [{}, {}, {}], "indexed": 3, "chunks": 1200}
    assert short_outcome(job) == "done · 3 of 3 files new or changed, 1,200 passages"


def test_the_indexes_page_counts_a_pdf_s_pages_and_a_text_file_as_what_they_are(
        app_env, tmp_path):  # noqa: F811
    # Issue 66: one 59-page PDF and one .txt file were "60 documents (one per PDF page)".
    from pathlib import Path

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace

    root = app_env(tmp_path / "ws")
    notes = tmp_path / "notes.txt"
    notes.write_text("Owls hunt at night and sleep by day.", encoding="utf-8")
    pdf = Path(__file__).resolve().parents[1] / "data" / "gzip-manpage.pdf"
    Workspace(root, embedder=FakeEmbedder()).ingest("mixed", [pdf, notes])
    at = open_page("indexes")
    files = next(m for m in at.metric if m.label == "Files")
    assert files.value == "2"
    assert files.proto.help == "Read as 6 pages of 1 PDF and 1 other file."
    assert "documents" not in at.dataframe[0].value.columns
    rows = at.dataframe[1].value.set_index("file")["read as"]
    assert rows["gzip-manpage.pdf"] == "6 pages" and rows["notes.txt"] == "the whole file"


def test_top_k_s_help_says_the_sources_may_list_more_passages(docs_ws):  # noqa: F811
    # Issue 66: "Passages to retrieve (top-k) 4" above "Sources (5)", a document's card added.
    for page in ("query", "chat"):
        at = open_page(page)
        top_k = next(s for s in at.slider if s.label == "Passages to retrieve (top-k)")
        assert "may list a few more than this" in top_k.proto.help and "card" in top_k.proto.help
