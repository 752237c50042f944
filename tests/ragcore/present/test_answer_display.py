"""How the offline answer is shown (issue 19), pure parts: the score, stated out of band in the
trace notes (issue 32), put in words; the label line without a marker and the quote line with
one; the quoted sentence marked in its passage with the short answer emphasised inside it; list
items quoted as "  - item" lines found; and the CLI's score line."""

from __future__ import annotations

import io
import re

from ragcore.llms.extractive import answer as extractive_answer
from ragcore.llms.extractive.answer import LABEL, label_line
from ragcore.present.answer_score import (
    not_found_threshold,
    ranked_with,
    score_note,
    score_sentence,
    stated_score,
)
from ragcore.present.citations import Segment, passage_segments, segments_to_html
from ragcore.present.markers import mark_answer
from ragcore.present.passage.markup import render_segments
from ragcore.present.quotes import answer_spans, quoted_spans
from ragcore.present.support import cite
from ragcore.trace import Trace
from ragcore.types import Node

HOLMES = ("I had seen little of Holmes lately. To Sherlock Holmes she is always the woman, "
          "Irene Adler. I have seldom heard him mention her under any other name.")
OTHER = "Irene Adler was born in New Jersey. She sang at La Scala."
ANSWER = (label_line("**Irene Adler**")
          + "\n- To Sherlock Holmes she is always the woman, Irene Adler.")
FUNCTIONS = ("The Core consists of five concurrent and continuous Functions:\n\n"
             "- Identify\n- Protect\n- Detect\n- Respond\n- Recover\n\n"
             "Together they give a strategic view of the lifecycle.")
LIST_ANSWER = (label_line("quoted from the documents, best match first:")
               + "\n- The Core consists of five concurrent and continuous Functions:"
               + "\n  - Identify\n  - Protect\n  - Detect\n  - Respond\n  - Recover")


def words_streamed(text: str) -> list[str]:
    """Chunks as ExtractiveLLM.stream gives them: word by word."""
    return re.findall(r"\s*\S+", text)


# -- the score -------------------------------------------------------------------------------


def test_the_label_line_states_no_score_and_the_trace_notes_do():
    assert ANSWER.split("\n")[0] == f"{LABEL}: **Irene Adler**"
    assert stated_score(scored_trace(0.82)) == 0.82
    assert stated_score(Trace()) is None and stated_score(None) is None


def test_an_answer_saved_with_its_score_in_the_text_gives_both_back():
    old = f"{LABEL} [score 0.82]: **Irene Adler**\n- To Sherlock Holmes she is always the woman."
    assert extractive_answer.split_old_score(old) == (
        f"{LABEL}: **Irene Adler**\n- To Sherlock Holmes she is always the woman.", 0.82)
    assert extractive_answer.split_old_score(ANSWER) == (ANSWER, None)
    assert extractive_answer.split_old_score("Zero trust [score 0.5]: not ours") == (
        "Zero trust [score 0.5]: not ours", None)  # not our label: left as it is


def scored_trace(score: float) -> Trace:
    trace = Trace()
    trace.notes["answer_score"] = score
    return trace


def test_the_score_is_stated_in_words_with_the_not_found_threshold():
    assert score_sentence(0.82, 0.35) == (
        "Answer score 0.82 — the answerer says “not found” under 0.35")
    assert score_sentence(0.82) == "Answer score 0.82"
    assert score_sentence(None, 0.35) == ""


def by_model(embedder) -> float:
    """A stand-in for the answerer's threshold: one for a trained model, one for words."""
    return 0.42 if embedder is not None and embedder.model_name == "trained" else 0.3


def test_the_threshold_is_the_one_of_the_model_the_answerer_ranked_with(monkeypatch):
    monkeypatch.setattr(extractive_answer, "not_found_threshold", by_model, raising=False)
    assert ranked_with("trained", "hybrid") == "trained"
    assert ranked_with("trained", "keyword") is None  # a keyword search loads no model
    assert not_found_threshold("trained") == 0.42 and not_found_threshold(None) == 0.3
    assert score_note(0.82, "trained").endswith("under 0.42")
    assert score_note(None, "trained") == ""
    monkeypatch.delattr(extractive_answer, "not_found_threshold")
    monkeypatch.setattr(extractive_answer, "NOT_FOUND_THRESHOLD", 0.35, raising=False)
    assert not_found_threshold("trained") == 0.35  # a single threshold, if that is all it has
    monkeypatch.delattr(extractive_answer, "NOT_FOUND_THRESHOLD")
    assert not_found_threshold("trained") is None and score_note(0.82, None) == "Answer score 0.82"


# -- markers ---------------------------------------------------------------------------------


def test_the_quote_line_carries_the_marker_and_the_label_line_none():
    shown = ANSWER
    citations = cite(shown, [OTHER, HOLMES], extractive=True)
    marked = mark_answer(shown, [OTHER, HOLMES], citations.sources)
    first, quote = marked.text.split("\n")
    assert first == f"{LABEL}: **Irene Adler**"  # shares "Irene Adler" with both: no marker
    assert quote == "- To Sherlock Holmes she is always the woman, Irene Adler. [1]"
    assert marked.order == (1,)


def test_a_quoted_list_marks_its_lead_in():
    citations = cite(LIST_ANSWER, [FUNCTIONS], extractive=True)
    marked = mark_answer(LIST_ANSWER, [FUNCTIONS], citations.sources).text.split("\n")
    assert marked[1].endswith("Functions: [1]") and marked[2] == "  - Identify"


# -- the quoted span and the short answer in the passage -------------------------------------


def test_exactly_the_quoted_sentence_is_cited_and_the_short_answer_found_inside_it():
    holmes, other = cite(ANSWER, [HOLMES, OTHER], extractive=True).sources
    assert [HOLMES[a:b] for a, b in holmes.spans] == [
        "To Sherlock Holmes she is always the woman, Irene Adler."]
    assert [HOLMES[a:b] for a, b in holmes.answer_spans] == ["Irene Adler"]
    # the other passage names Irene Adler too, but the answer quotes none of its sentences
    assert other.spans == () and other.answer_spans == ()


def test_the_short_answer_outside_the_quote_is_not_emphasised():
    passage = "Irene Adler sang. " + HOLMES
    quoted = quoted_spans(passage, ANSWER)
    spans = answer_spans(passage, "Irene Adler", quoted)
    assert len(spans) == 1 and spans[0][0] > len("Irene Adler sang. ")


def test_the_label_line_is_never_a_quote():
    heading = "# The Framework Core\n\nThe Framework Core has five Functions."
    answer = (label_line("**The Framework Core**")
              + "\n- The Framework Core has five Functions.")
    (use,) = cite(answer, [heading], extractive=True).sources
    assert [heading[a:b] for a, b in use.spans] == ["The Framework Core has five Functions."]


def test_list_items_quoted_as_indented_lines_are_found():
    (use,) = cite(LIST_ANSWER, [FUNCTIONS], extractive=True).sources
    assert [FUNCTIONS[a:b] for a, b in use.spans] == [
        "The Core consists of five concurrent and continuous Functions:",
        "Identify", "Protect", "Detect", "Respond", "Recover"]


def test_short_items_alone_are_not_quotes():
    passage = "Steps:\n\n- Identify\n- Protect\n\nNothing else here is quoted at all."
    answer = label_line("quoted from the documents, best match first:") + \
        "\n- Another lead-in sentence from elsewhere:\n  - Identify\n  - Protect"
    assert quoted_spans(passage, answer) == []  # no longer quote of this answer in the passage


def test_the_short_answer_is_bold_inside_the_highlight():
    node = Node(HOLMES)
    use = cite(ANSWER, [HOLMES], extractive=True).sources[0]
    segments = passage_segments(node, use.spans, answer=use.answer_spans)
    assert [(s.kind, s.text) for s in segments] == [
        ("passage", "I had seen little of Holmes lately. "),
        ("cited", "To Sherlock Holmes she is always the woman, "),
        ("answer", "Irene Adler"),
        ("cited", "."),
        ("passage", " I have seldom heard him mention her under any other name."),
    ]
    html = segments_to_html(segments)
    assert '<mark style="background:#F6AD55;font-weight:800;">Irene Adler</mark>' in html


def test_the_short_answer_is_bold_in_a_rendered_markdown_passage():
    segments = [Segment("- To Sherlock Holmes she is always ", "cited"),
                Segment("_the_ woman", "answer"), Segment(".", "cited")]
    html = render_segments(segments, "markdown")
    assert "<li>" in html and "<em>" in html  # still rendered as Markdown
    assert re.search(r'<mark style="background:#F6AD55;font-weight:800;">the</mark>', html)
    assert not re.search("[\ue010-\ue017]", html)  # no sentinel leaks into the page


# -- the CLI ---------------------------------------------------------------------------------


class Streamed(list):
    """A streamed reply: its chunks, its text once drained and its trace (as a Response has)."""

    def __init__(self, chunks, trace: Trace | None = None) -> None:
        super().__init__(chunks)
        self.trace = trace or Trace()

    @property
    def text(self) -> str:
        return "".join(self)


def test_the_cli_prints_the_answer_then_the_score_of_the_trace_on_its_own_line(monkeypatch):
    from ragcore.cli.render import write_answer

    monkeypatch.setattr(extractive_answer, "not_found_threshold", by_model, raising=False)
    out = io.StringIO()
    write_answer(out, Streamed(words_streamed(ANSWER), scored_trace(0.82)), ranked_with="trained")
    assert out.getvalue().splitlines() == [
        f"{LABEL}: **Irene Adler**",
        "- To Sherlock Holmes she is always the woman, Irene Adler.",
        "Answer score 0.82 — the answerer says “not found” under 0.42",
    ]
    plain = io.StringIO()
    write_answer(plain, Streamed(["A model's ", "answer."]))
    assert plain.getvalue() == "A model's answer.\n"


# -- Open in document ------------------------------------------------------------------------


def test_open_in_document_shows_the_short_answer_bold_inside_the_quoted_sentence():
    from webapp.indexes.document_view import document_segments

    document = "Chapter I.\n\n" + HOLMES + "\n\nChapter II."
    node = Node(HOLMES, start_char=document.index(HOLMES))
    use = cite(ANSWER, [HOLMES], extractive=True).sources[0]
    segments = document_segments(document, node, use.spans, use.answer_spans)
    assert [s.kind for s in segments] == ["context", "passage", "cited", "answer", "cited",
                                          "passage", "context"]
    assert next(s.text for s in segments if s.kind == "answer") == "Irene Adler"


def test_a_pdf_page_tints_the_short_answer_deeper_than_its_sentence():
    from PIL import Image

    from ragcore.present.passage.page_boxes import Rect
    from webapp.indexes.document_view import highlighted

    page = Image.new("RGB", (100, 40), "white")
    sentence, answer = Rect(0, 10, 100, 20), Rect(60, 10, 90, 20)
    image = highlighted(page, [sentence], [sentence], [answer])
    cited, short = image.getpixel((20, 15)), image.getpixel((75, 15))
    assert sum(short) < sum(cited) < 3 * 255  # both tinted, the short answer deeper
    assert image.getpixel((75, 20)) != short  # and underlined


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_shows_the_short_answer_in_bold():
    from ragcore.cli.render import BOLD, PLAIN, terminal_bold, write_answer

    out = Terminal()
    write_answer(out, Streamed(words_streamed(ANSWER)))
    assert out.getvalue().startswith(f"{LABEL}: {BOLD}Irene Adler{PLAIN}\n- To Sherlock")
    split = ["a *", "*b", "*", "* c **d"]  # "**" cut between chunks
    assert "".join(terminal_bold(split)) == f"a {BOLD}b{PLAIN} c {BOLD}d{PLAIN}"
    assert "".join(terminal_bold(["2 * 3 = 6*"])) == "2 * 3 = 6*"


def test_the_cli_marks_the_quote_with_the_source_numbered_first(tmp_path, fake_embedder,
                                                                 capsys):
    from ragcore.cli import main

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "garden.txt").write_text("Tomatoes need sun, water and patience. Basil likes "
                                     "warmth.", encoding="utf-8")
    (docs / "holmes.txt").write_text(HOLMES, encoding="utf-8")
    workspace = ["--workspace", str(tmp_path / "ws")]
    assert main([*workspace, "ingest", str(docs), "--index", "notes"], embedder=fake_embedder) == 0
    capsys.readouterr()
    assert main([*workspace, "query", "Who is always the woman to Sherlock Holmes?", "--index",
                 "notes", "--llm", "extractive"], embedder=fake_embedder) == 0
    lines = capsys.readouterr().out.splitlines()
    quote = next(line for line in lines if line.startswith("- "))
    assert quote.endswith(". [1]") and "[score" not in lines[0]
    assert "  [1] holmes.txt (score" in "\n".join(lines)
    assert next(line for line in lines if line.startswith("  [1] ")).endswith(
        "quoted in the answer")
