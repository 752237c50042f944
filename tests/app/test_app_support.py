"""The app's non-UI logic: readable errors, cited-passage highlighting, corpus pictures."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ragcore.present.citations import (
    Segment,
    passage_segments,
    segments_to_html,
    surrounding_text,
)
from ragcore.present.quotes import quoted_spans, sentence_spans
from ragcore.present.corpus_map import (
    PALETTE, legend_colours, legend_groups, picture_corpus, project_2d, sample_indices,
    shorten_middle, token_histogram,
)
from ragcore.present.explain import explain_error
from ragcore.errors import (
    IndexFormatError,
    LLMConnectionError,
    LLMTimeoutError,
    LLMStatusError,
    ReaderError,
    WorkspaceError,
)
from ragcore.types import Node

# --- explain -------------------------------------------------------------------------------


def test_unreachable_server_says_to_start_it_or_switch_backend():
    exc = LLMConnectionError("cannot connect to http://127.0.0.1:9 (model llama3)")
    text = str(explain_error(exc))
    assert "could not be reached" in text
    assert "127.0.0.1:9" in text
    assert "ollama serve" in text and "Extractive (offline)" in text


def test_a_reply_past_its_time_limit_says_which_limits_to_change_not_to_start_the_server():
    exc = LLMTimeoutError("Ollama at http://127.0.0.1:11434 (model llama3.1) had not finished "
                          "its reply when the time limit of 600 s ran out", seconds=600.0)
    text = str(explain_error(exc))
    assert "took too long" in text and "600 s" in text
    assert "time limit per reply" in text and "reply cap" in text
    assert "could not be reached" not in text and "ollama serve" not in text


def test_missing_model_and_bad_key_get_specific_advice():
    assert "ollama pull" in str(explain_error(LLMStatusError("model 'x' not found", 404)))
    assert "API key" in str(explain_error(LLMStatusError("unauthorized", 401)))


def test_reader_error_names_the_file_not_the_full_path_and_keeps_the_hint():
    exc = ReaderError("/tmp/up/empty.pdf", "the file is empty", "upload the original PDF")
    explanation = explain_error(exc)
    assert explanation.message.startswith("empty.pdf: The file is empty")
    assert explanation.action == "Upload the original PDF."


def test_damaged_index_and_unknown_errors_are_readable():
    assert "Delete the index" in str(explain_error(IndexFormatError("bad manifest")))
    assert str(explain_error(WorkspaceError("no index named 'x'"))) == "No index named 'x'."
    text = str(explain_error(KeyError("boom")))
    assert "unexpected" in text and "Traceback" not in text


# --- citations -----------------------------------------------------------------------------


def test_sentence_spans_trim_and_cover_every_sentence():
    text = "  First one. Second (really)! Third?\nFourth line without stop"
    sentences = [text[s:e] for s, e in sentence_spans(text)]
    assert sentences == ["First one.", "Second (really)!", "Third?", "Fourth line without stop"]


def test_sentence_spans_keep_wrapped_lines_and_abbreviations_in_one_sentence():
    text = "Tabs should be used solely to remain\n   consistent, e.g. with old code.\n\n- An item"
    sentences = [text[s:e] for s, e in sentence_spans(text)]
    assert sentences == [
        "Tabs should be used solely to remain\n   consistent, e.g. with old code.", "- An item"]


def test_quoted_spans_mark_quotes_only_not_sentences_sharing_the_words():
    passage = (
        "Zero trust assumes no implicit trust. Assets are protected individually. "
        "The weather was pleasant that day."
    )
    answer = "Zero trust assumes NO implicit   trust; instead assets are individually protected."
    cited = [passage[s:e] for s, e in quoted_spans(passage, answer)]
    assert cited == ["Zero trust assumes no implicit trust."]  # the look-alike is not marked


def _doc_nodes():
    doc = "Alpha beta gamma delta. Epsilon zeta eta theta. Iota kappa lambda mu. Nu xi omicron."
    spans = [(0, 47), (40, 70), (64, len(doc))]
    nodes = [
        Node(doc[s:e], node_id=f"n{i}", ref_doc_id="d", start_char=s, end_char=e)
        for i, (s, e) in enumerate(spans)
    ]
    nodes[0].next_id, nodes[1].prev_id = "n1", "n0"
    nodes[1].next_id, nodes[2].prev_id = "n2", "n1"
    return doc, {n.node_id: n for n in nodes}


def test_surrounding_text_cuts_chunk_overlap_by_offsets():
    doc, nodes = _doc_nodes()
    before, after = surrounding_text(nodes["n1"], nodes.get, chars=1000)
    assert before + nodes["n1"].text + after == doc
    short_before, short_after = surrounding_text(nodes["n1"], nodes.get, chars=12)
    assert short_before.startswith("… ") and short_after.endswith(" …")


def test_passage_segments_mark_cited_sentences_inside_context():
    _, nodes = _doc_nodes()
    text = nodes["n1"].text
    start = text.index("Iota")
    segments = passage_segments(nodes["n1"], [(start, start + 21)], lookup=nodes.get)
    kinds = [s.kind for s in segments]
    assert kinds[0] == "context" and kinds[-1] == "context"
    assert [s.text for s in segments if s.kind == "cited"] == ["Iota kappa lambda mu."]
    assert "".join(s.text for s in segments if s.kind != "context") == text


def test_html_rendering_escapes_document_text():
    html = segments_to_html([Segment("<script>alert(1)</script> & <b>", "cited")])
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html and "<mark" in html


# --- corpus pictures -----------------------------------------------------------------------


def test_projection_separates_two_clusters_and_is_deterministic():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 0.05, (20, 16)) + np.eye(16)[0]
    b = rng.normal(0, 0.05, (20, 16)) + np.eye(16)[1]
    points = project_2d(np.vstack([a, b]))
    assert points.shape == (40, 2)
    assert np.sign(points[:20, 0]).sum() * np.sign(points[20:, 0]).sum() < 0  # opposite sides
    assert np.array_equal(points, project_2d(np.vstack([a, b])))
    assert project_2d(np.ones((1, 4))).tolist() == [[0.0, 0.0]]
    with pytest.raises(ValueError, match="2-D"):
        project_2d(np.ones(3))


def test_sampling_and_histogram_cover_all_values():
    assert sample_indices(5, 10).tolist() == [0, 1, 2, 3, 4]
    picked = sample_indices(1000, 7)
    assert picked[0] == 0 and picked[-1] == 999 and len(picked) == 7
    hist = token_histogram([10, 11, 50, 200], bins=4)
    assert sum(hist["chunks"]) == 4 and hist["start"][0] == 10
    assert token_histogram([]) == {"tokens": [], "start": [], "chunks": []}


def test_picture_corpus_groups_by_file_and_maps_every_chunk():
    nodes = [
        Node("one two three", metadata={"file_name": "a.txt"}),
        Node("four five six seven eight", metadata={"file_name": "b.pdf", "page": 1}),
        Node("nine", metadata={"file_name": "b.pdf", "page": 2}),
    ]
    picture = picture_corpus(nodes, np.eye(3, 8, dtype=np.float32))
    assert picture.documents["document"][0] == "b.pdf"
    assert picture.documents["chunks"] == [2, 1]
    assert picture.embedding_map["document"] == ["a.txt", "b.pdf", "b.pdf"]
    assert picture.embedding_map["group"] == ["a.txt", "b.pdf", "b.pdf"]
    assert picture.mapped_count == 3 and sum(picture.histogram["chunks"]) == 3
    with pytest.raises(ValueError, match="align"):
        picture_corpus(nodes, np.eye(2, 8))


def test_the_map_legend_gives_every_file_its_own_colour_and_a_readable_name():
    files = [f"file-{i:02d}.txt" for i in range(30) for _ in range(30 - i)]  # file-00 most
    groups = legend_groups(files)
    kept = sorted(set(groups) - {"other files (11)"})
    assert len(kept) == len(PALETTE) - 1 and "file-18.txt" in kept and "file-19.txt" not in kept
    assert groups[-1] == "other files (11)"
    domain, colours = legend_colours(groups)
    assert domain[-1] == "other files (11)" and domain[0] == "file-00.txt"
    assert len(set(colours)) == len(colours) == len(PALETTE)  # no colour repeats
    few = legend_groups(["a.pdf", "b.pdf"])
    assert few == ["a.pdf", "b.pdf"] and len(set(legend_colours(few)[1])) == 2
    long = "Rapport-annuel-de-la-commission-des-finances-2024-version-finale.pdf"
    short = shorten_middle(long)
    assert len(short) == 44 and short.startswith("Rapport-annuel") and short.endswith("finale.pdf")
    twins = [long, long.replace("finances", "comptes")]  # alike once shortened: kept whole
    assert shorten_middle(twins[0]) == shorten_middle(twins[1])
    assert legend_groups(twins) == twins


def test_the_app_shows_no_emoji_that_needs_an_emoji_font():
    # Where no emoji font is installed an emoji renders as a missing glyph: Material icons
    # (":material/name:") or plain words instead.
    emoji = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
    root = Path(__file__).resolve().parents[2]
    sources = [root / "app.py", *sorted((root / "pages").glob("*.py")),
               *sorted((root / "webapp").rglob("*.py"))]
    found = [f"{path.name}:{number}: {line.strip()}" for path in sources
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if emoji.search(line)]
    assert not found
