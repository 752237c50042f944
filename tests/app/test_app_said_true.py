"""What a newcomer's walk found untrue on screen (issue 66), each checked as a person sees it:
a why answered with a sentence of the passage that states what was asked; "nearest to your
question" only under a refusal; an error's own words shown as written in its banner; counts
never "file(s)"; passage excerpts as plain text; a trace whose shares add up; Regenerate under
the last reply, saying what it keeps, and Edit saying how an earlier reply is asked again.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from test_app_chat_controls import UKRAINE, ask, saved
from test_app_people import built_workspace, button, docs_ws, open_page  # noqa: F401 (fixtures)

from ragcore.present.grounded import EXPLAINED_LEAD, NEAREST_LEAD
from ragcore.present.markers import AnswerCheck
from ragcore.present.support import NEAREST
from ragcore.types import Node, ScoredNode

# The three passages the walk's Chat page read for the why below (The Rust Programming
# Language, ch. 14.1, as the search cut them: "…" stands for the sentences left out).
OVERRIDE = ("That is\nwhy the default `opt-level` for the `release` profile is `3`. … ```toml\n"
            "[profile.dev]\nopt-level = 1\n``` … This code overrides the default setting of "
            "`0`. … Now when we run `cargo build`,\nCargo will use the defaults for the `dev` "
            "profile plus our customization to\n`opt-level`.")
DEFAULTS = ("```toml\n[profile.dev]\nopt-level = 0 … [profile.release]\nopt-level = 3\n``` … "
            "The default `opt-level` for `dev` is therefore `0`. … When you\u2019re\nready to "
            "release your code, it\u2019s best to spend more time compiling. … You\u2019ll only\n"
            "compile in release mode once, but you\u2019ll run the compiled program many times,"
            "\nso release mode trades longer compile time for code that runs faster.")
EXAMPLE = ("For example, here are the default\nvalues for the `opt-level` setting for the `dev` "
           "and `release` profiles:\n\n<span class=\"filename\">Filename: Cargo.toml</span>")
WHY = "Why is the default opt-level for the dev profile 0?"
WHY_REPLY = ("The default `opt-level` for the `dev` profile is `0` because it is the lowest "
             "optimization level, which is useful for development and debugging.")


def checked(reply: str, question: str, passages: tuple[str, ...]):
    nodes = [ScoredNode(Node(text, node_id=f"n{i}", metadata={"file_name": "ch14-01.md"}),
                        0.9 - i / 10) for i, text in enumerate(passages)]
    return AnswerCheck()(reply, nodes, question=question)


def test_a_why_quotes_the_sentence_stating_what_was_asked_from_the_passage_it_cites():
    """The walk: "Now when we run cargo build, Cargo will use the defaults for the dev
    profile..." (no 0 in it, the first of equal shares) was quoted for why dev's default is 0,
    while another passage says "The default opt-level for dev is therefore 0"."""
    answer = checked(WHY_REPLY, WHY, (OVERRIDE, DEFAULTS, EXAMPLE))
    assert answer.text.startswith(
        f"{EXPLAINED_LEAD} \u201cThe default `opt-level` for `dev` is therefore `0`."), answer.text
    assert "Now when we run" not in answer.text
    cited = answer.listing.shown[0]
    assert cited.number == 1 and cited.scored.node.text == DEFAULTS
    (start, end), = cited.use.spans  # the sentences marked in [1] are the ones quoted
    assert DEFAULTS[start:end].startswith("The default `opt-level` for `dev` is therefore")


def test_nearest_to_your_question_is_said_only_under_a_refusal():
    answer = checked(WHY_REPLY, WHY, (OVERRIDE, DEFAULTS, EXAMPLE))
    assert NEAREST_LEAD not in answer.text  # the why is explained, not refused
    notes = [s.use.note for s in (*answer.listing.shown, *answer.listing.hidden)]
    assert NEAREST not in notes, notes
    refused = checked("NIST has about 1,000 employees [1].", "How many employees does NIST have?",
                      ("NIST is a non-regulatory agency of the U.S. Department of Commerce. The "
                       "agency was founded in 1901.",))
    assert NEAREST_LEAD in refused.text  # a refusal still says which passage is nearest
    assert refused.listing.shown[0].use.note == NEAREST


def _error_banners() -> None:
    from ragcore.errors import ConfigError
    from webapp import shell

    path = "/work/ragcore/chat/__init__.py"
    for exc in (ImportError(f"cannot import name 'x' from 'ragcore.chat' ({path})"),
                FileNotFoundError(2, "No such file or directory", path),
                ConfigError(f"chunk_size must be an int in {path}, got *two*")):
        shell.show_error(exc)


def test_an_error_banner_shows_the_errors_words_as_written():
    """The walk: a banner read "ragcore/chat/init.py", its underscores eaten by Markdown bold."""
    from ragcore.present.passage.markup import render_markdown

    at = AppTest.from_function(_error_banners, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 3
    for banner in at.error:
        drawn = render_markdown(banner.value)  # as the browser draws the banner's Markdown
        assert "/work/ragcore/chat/__init__.py" in drawn, drawn
        assert "<strong>" in drawn and drawn.count("<strong>") == 1  # only "What to do:"
    assert "got *two*" in render_markdown(at.error[2].value)


def _written_strings(path):
    """The string literals of a Python file a person may read (f-strings' text too), without
    its docstrings."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def test_counts_are_written_singular_or_plural_never_with_a_bracketed_s():
    """The walk: 'file(s)' in the CLI's report and the summaries. Every string the app, the
    CLI and the library write: no 'file(s)', 'batch(es)' (a web address's 'http(s)' aside)."""
    import re
    from pathlib import Path

    bracketed = re.compile(r"[A-Za-z]\((?:s|es|ies)\)")
    root = Path(__file__).resolve().parents[2]
    found = [f"{path.relative_to(root)}: {text!r}"
             for folder in ("ragcore", "webapp", "pages") for path in (root / folder).rglob("*.py")
             for text in _written_strings(path)
             if bracketed.search(text.replace("http(s)", "https"))]
    assert not found, "\n".join(found)


def test_an_ingest_report_and_a_tree_summary_count_in_words():
    from ragcore.present.format import counted
    from ragcore.present.how_made import made_summary
    from ragcore.workspace.ingest.report import FileOutcome, IngestReport

    assert [counted(1, "file"), counted(3, "file"), counted(2, "summary", "summaries"),
            counted(1234, "passage")] == ["1 file", "3 files", "2 summaries", "1,234 passages"]
    one = IngestReport("docs", files=[FileOutcome(path="a.txt", status="indexed", chunks=1)])
    assert one.summary().startswith("1 file: 1 indexed (1 passage), "), one.summary()
    trace = {"llm_calls": [{"purpose": p} for p in ("tree level 1 chunk 1", "tree root")]}
    assert made_summary("tree_summarize", trace).startswith("1 summary over 1 level, then ")


MARKDOWN = ("## Release profiles\n\nUse **cargo** with `--release`:\n\n- fast code\n- small "
            "binaries\n\n```toml\n[profile.dev]\nopt-level = 0\n``` … See [the book](https://"
            "doc.rust-lang.org/book/) and <span class=\"filename\">Filename: Cargo.toml</span>")
READ = ("Release profiles Use cargo with --release: \u2022 fast code \u2022 small binaries "
        "[profile.dev] opt-level = 0 … See the book and Filename: Cargo.toml")


def _passages_found(texts: tuple[str, ...]) -> None:
    import streamlit as st

    from ragcore.types import Node, ScoredNode
    from webapp.chat.evidence import passages_found

    st.markdown(passages_found([ScoredNode(Node(text, metadata={"file_name": "ch14.md"}), 0.8)
                                for text in texts]))


def _visible(markdown: str) -> str:
    """What a person reads of ``markdown`` as the browser draws it: its text, tags aside."""
    import html
    import re

    from ragcore.present.passage.markup import render_markdown

    drawn = render_markdown(markdown)
    assert "<h1>" not in drawn and "<h2>" not in drawn and "<ul>" not in drawn, drawn
    inline = re.sub(r"</?(?:strong|em|code|a)\b[^>]*>", "", drawn)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def test_passage_excerpts_read_as_plain_text():
    """The walk: "## Heading", "**bold**", backticks and list markers shown as written in the
    passages listed while an answer is made (and a passage opening with a heading drawn as one);
    the Query page's retriever comparison and the CLI list passages the same way."""
    import io

    from ragcore.cli.render import write_passages
    from webapp.answers.retriever_view import passage_line

    at = AppTest.from_function(_passages_found, args=((MARKDOWN, DEFAULTS),),
                               default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _visible(at.markdown[0].value)
    assert READ in shown, shown
    assert "The default opt-level for dev is therefore 0." in shown, shown
    for mark in ("##", "**", "`", "- fast", "<span", "](https"):
        assert mark not in shown, mark
    scored = ScoredNode(Node(MARKDOWN, metadata={"file_name": "ch14_profiles.md"}), 0.8)
    assert _visible(passage_line(scored)) == f"0.800 ch14_profiles.md: {READ}"
    out = io.StringIO()
    write_passages(out, [scored], width=1000)
    assert out.getvalue().splitlines()[1].strip() == READ


def _query_trace():
    """A trace shaped like the walk's Query page answer: a search, a span choice holding the
    model's one call, the answer's check between stages."""
    import time

    from ragcore.trace import Trace

    trace = Trace()
    with trace.stage("retrieve", top_k=4):
        time.sleep(0.02)
    with trace.stage("span choice"):
        time.sleep(0.02)
        started = time.perf_counter()
        time.sleep(0.06)
        trace.record_llm_call("span choice", [], "Alabama", time.perf_counter() - started)
    time.sleep(0.05)  # the answer checked: no stage
    with trace.stage("not-found gate"):
        time.sleep(0.01)
    return trace


def test_the_query_pages_trace_adds_up_and_says_what_it_counted():
    """The walk: stage shares of 45 % and 39 % beside others (the call inside "span choice"
    counted twice), and "1 LLM call" beside a 10.4 s call within a 42.9 s total."""
    from ragcore.present.trace_view import stage_rows, work_metrics, work_summary

    trace = _query_trace()
    for form in (trace, trace.to_dict()):  # live, and from a saved chat
        rows = stage_rows(form)
        by_name = {row["stage"]: row for row in rows}
        assert by_name["llm: span choice"]["share"] == "within span choice"
        shares = [int(row["share"].rstrip(" %")) for row in rows[:-1]
                  if row["share"].endswith("%")]
        assert sum(shares) == 100, rows
        assert by_name["between the stages"]["seconds"] >= 0.04  # the check's time is said
        total = rows[-1]
        assert total["stage"] == "total" and total["share"] == "100 %"
        counted = [r["seconds"] for r in rows[:-1] if r["share"].endswith("%")]
        assert abs(sum(counted) - total["seconds"]) <= 0.01 * len(counted), rows
        figures = work_metrics(form)
        assert figures["Seconds"] == total["seconds"] < sum(s.seconds for s in trace.stages)
        assert figures["LLM calls"] == 1 and 0.05 < figures["Seconds in LLM calls"] < 0.1
        said = work_summary(form)
        call = trace.llm_calls[0].seconds
        assert said.startswith(f"1 LLM call ({call:.2f} s) · "), said
        assert said.endswith(f" · {total['seconds']:.2f} s in all"), said


def test_regenerate_under_the_last_reply_and_an_earlier_one_asked_again_with_edit(docs_ws):
    """Decided: Regenerate under the last reply only, as chat apps offer it; what it and Edit
    say is true: the reply replaced is kept, and an earlier question is asked again, as it is,
    with Edit."""
    from webapp.chat.chat_controls import EDIT_HELP, REGENERATE_HELP

    at = ask(open_page("chat"), UKRAINE)
    ask(at, "What did it say about jobs?")
    [again] = [b for b in at.button if b.label == "Regenerate"]
    assert again.key == "regenerate_3" and again.help == REGENERATE_HELP
    assert "This reply is kept" in REGENERATE_HELP
    edit = at.button(key="edit_0")
    assert edit.help == EDIT_HELP and "or send it as it is" in EDIT_HELP
    before = saved(docs_ws, at)["messages"]
    edit.click().run()
    button(at, "Send edited question").click().run()  # the first question, unchanged
    assert not at.exception, [e.value for e in at.exception]
    messages = saved(docs_ws, at)["messages"]
    assert [m["content"] for m in messages][0] == UKRAINE and len(messages) == 2
    assert messages[0]["versions"] == [before]  # the first reply and the turn after: kept
