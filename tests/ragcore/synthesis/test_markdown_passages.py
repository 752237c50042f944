"""A Markdown source's inline HTML never reaches the model: the Rust book's '<span
class="filename">Filename: src/main.rs</span>' is read as "Filename: src/main.rs" in the answer
prompt (the packaged model once copied "<span" into an answer), while the stored passage keeps
the file's text as written (its offsets open it in the document) and code keeps its HTML."""

from __future__ import annotations

from pathlib import Path

from ragcore.chunking.sentence import SentenceSplitter
from ragcore.llms import FakeLLM
from ragcore.present.citations import Segment, passage_segments
from ragcore.present.passage.markup import render_segments
from ragcore.readers.files import load_file
from ragcore.synthesis import ResponseMode, Synthesizer
from ragcore.types import Node, ScoredNode

CHAPTER = "rust_book/src/ch03-04-comments.md"
SPAN = '<span class="filename">Filename: src/main.rs</span>'


def _passages(path: Path, chunk_size: int = 120) -> tuple[str, list[Node]]:
    """The file's text as stored, and its passages as the index makes them."""
    documents = load_file(path)
    nodes = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=0).get_nodes_from_documents(
        documents)
    return documents[0].text, nodes


def _prompt(nodes: list[Node], mode: ResponseMode = ResponseMode.COMPACT) -> str:
    llm = FakeLLM()
    scored = [ScoredNode(n, score=1.0) for n in nodes]
    Synthesizer(llm, response_mode=mode, not_found_gate=None).synthesize(
        "Where do comments go?", scored).text
    return "\n".join(m.content for call in llm.calls for m in call)


def test_a_rust_book_span_reaches_the_prompt_and_the_view_as_its_text(corpus_dir: Path):
    text, nodes = _passages(corpus_dir / CHAPTER)
    held = [n for n in nodes if SPAN in n.text]
    assert held, "the chapter's passages hold the span"
    for node in held:  # stored as written: the offsets still find the passage in the file
        assert text[node.start_char:node.end_char] == node.text
    prompt = _prompt(held)
    assert "Filename: src/main.rs" in prompt
    assert "<span" not in prompt and "</span>" not in prompt
    assert "Comments can also be placed at the end of lines containing code" in prompt
    shown = render_segments(passage_segments(held[0], []), "markdown")
    assert "Filename: src/main.rs" in shown and "&lt;span" not in shown


def test_html_in_a_code_block_reaches_the_prompt_as_written(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Pages\n\nA page names its file:\n\n<span class=\"filename\">Filename: index.html"
        "</span>\n\n```html\n<span class=\"x\">kept</span> <b>bold</b>\n```\n\n"
        "Text with `<span>` in a code span and <kbd>Ctrl</kbd> keys.\n", encoding="utf-8")
    text, nodes = _passages(page, chunk_size=400)
    assert len(nodes) == 1 and nodes[0].text in text
    for mode in (ResponseMode.COMPACT, ResponseMode.REFINE, ResponseMode.SIMPLE_SUMMARIZE,
                 ResponseMode.TREE_SUMMARIZE, ResponseMode.ACCUMULATE):
        prompt = _prompt(nodes, mode)
        assert "Filename: index.html\n" in prompt and "<span class=\"filename\">" not in prompt
        assert '<span class="x">kept</span> <b>bold</b>' in prompt  # code, as written
        assert "`<span>` in a code span and Ctrl keys" in prompt


def test_a_passage_cut_inside_a_code_block_keeps_its_html(tmp_path: Path):
    code = "\n".join(f'<p class="row">row {i} of the generated table</p>' for i in range(40))
    page = tmp_path / "table.md"
    page.write_text("# Table\n\nThe page the script writes:\n\n```html\n" + code
                    + "\n```\n\nAnd that is the whole page the script writes for you.\n",
                    encoding="utf-8")
    _, nodes = _passages(page, chunk_size=120)
    last = nodes[-1]  # from inside the block, past its closing fence, to the prose after it
    assert "```html" not in last.text and '<p class="row">row 39' in last.text
    prompt = _prompt([last])
    assert '<p class="row">row 39 of the generated table</p>' in prompt
    assert "And that is the whole page" in prompt and "```html" not in prompt


def test_other_files_reach_the_prompt_as_written():
    node = Node("Type <b>bold</b> in the HTML.", metadata={"file_name": "notes.txt"})
    assert "Type <b>bold</b> in the HTML." in _prompt([node])
    shown = render_segments([Segment(node.text, "passage")], "text")
    assert "&lt;b&gt;" in shown
