"""Words and screens for people (issue 57), in a real Chromium: an answer reads like an answer
(nothing of the trace under it outside Advanced), the chat modes are shown named for people, a
marker [1] opens its source in view, "Open in document" marks on the PDF page the sentence that
states the answer (not its neighbour), the first screen is drawn within seconds while the packaged
model loads, and an upload's estimate, progress bar and result count the same passages.

The answering model is the loopback Ollama server of tests/support/loopback.py and the embedder
the fake one, except where the packaged model's load is the point. The PDF is written here.
Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from support.loopback import LoopbackServer, Reply
from test_browser_chat_progress import slow_app  # noqa: F401 (the slow one-slot app)
from test_browser import (  # noqa: F401 (the page fixture)
    WORK_TIMEOUT_MS, _go, _require_browser, _shot, _upload, _wait_idle, page, start_app,
    stop_app,
)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms import local_models
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LINES = ["Notes on the program",
         "The project began in 1994 at a small university lab in Helsinki.",
         "The source code is freely available [23].",
         "The program is about 2000 lines of C++ and builds in under a minute.",
         "It runs on Linux, BSD and macOS without changes."]
STATED = 3  # the line holding the answer's words; the one before it shares the verdict's window
QUESTION = "How many lines of C++ is the program?"
REPLY = "The program is about 2000 lines of C++."
TRACE_WORDS = ("Answered from", "Support judged by", "asked whether each passage", "llama3.1",
               "MiniLM", "qwen", "does not ask for a summary")
PEOPLE_MODES = ["Answer from the documents", "Follow the conversation",
                "Let an agent search step by step", "Just the model, no documents"]


def write_pdf(path: Path, lines: list[str], *, leading: int = 28) -> Path:
    """A one-page PDF with ``lines`` in Helvetica 12, each on its own line (no package needed)."""
    def escaped(line: str) -> str:
        return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    content = f"BT /F1 12 Tf {leading} TL 72 720 Td " + " ".join(
        f"({escaped(line)}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    path.write_bytes(bytes(out))
    return path


def text_lines(image) -> list[tuple[int, int]]:
    """The rows (top, bottom) of each line of dark text in ``image``, top to bottom."""
    grey = image.convert("L")
    width, height = grey.size
    pixels = grey.load()
    inked = [any(pixels[x, y] < 110 for x in range(width)) for y in range(height)]
    lines, start = [], None
    for y, ink in enumerate([*inked, False]):
        if ink and start is None:
            start = y
        elif not ink and start is not None:
            lines.append((start, y))
            start = None
    return lines


def orange_rows(image) -> set[int]:
    """The rows of ``image`` holding the orange tint of the words the answer used."""
    rgb = image.convert("RGB")
    width, height = rgb.size
    pixels = rgb.load()
    return {y for y in range(height) for x in range(0, width, 2)
            if (lambda r, g, b: r > 200 and r - b > 55 and g - b > 20)(*pixels[x, y])}


def test_an_answer_reads_like_an_answer_and_its_evidence_is_the_stated_sentence(
        page, tmp_path):  # noqa: F811
    from PIL import Image
    from playwright.sync_api import expect

    _require_browser()
    root = tmp_path / "ws"
    pdf = write_pdf(tmp_path / "program.pdf", LINES)
    Workspace(root, embedder=FakeEmbedder()).ingest("notes", [pdf])
    page.set_viewport_size({"width": 1400, "height": 640})  # the sources below the fold
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY) for _ in range(12)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            page.goto(f"{url}/chat")
            sidebar = page.get_by_test_id("stSidebar")
            # The chat modes, without Advanced, by what they do.
            modes = sidebar.get_by_role("combobox", name="Chat mode")
            expect(modes).to_have_value("Answer from the documents", timeout=120_000)
            for _ in range(5):  # a rerun just after the page opens may close the list again
                _wait_idle(page)
                modes.click()
                if page.get_by_role("option").count() or page.wait_for_timeout(1000) or \
                        page.get_by_role("option").count():
                    break
            for name in PEOPLE_MODES:
                expect(page.get_by_role("option", name=name, exact=True)).to_be_visible()
            assert page.get_by_role("option", name=re.compile("condense|simple|react")
                                    ).count() == 0
            page.keyboard.press("Escape")
            _wait_idle(page)

            box = page.get_by_test_id("stChatInputTextArea")
            box.fill(QUESTION)
            box.press("Enter")
            reply = page.get_by_test_id("stChatMessage").nth(1)
            expect(reply.get_by_role("link", name="[1]").first).to_be_visible(timeout=120_000)
            _wait_idle(page)
            _shot(page, "words-1-answer")
            shown = page.get_by_role("main").inner_text()
            assert not [w for w in TRACE_WORDS if w in shown], shown
            source = page.get_by_test_id("stExpander").filter(has_text="[1] program.pdf")
            expect(source).to_contain_text("states this")

            # [1] opens its source, in view, not under the page's top edge.
            page.mouse.wheel(0, -5000)
            opened = source.get_by_role("button", name="Open in document")
            expect(opened).to_be_hidden()
            reply.get_by_role("link", name="[1]").first.click()
            expect(opened).to_be_visible()
            page.wait_for_timeout(500)
            where = source.bounding_box()
            assert 60 < where["y"] < 640 - 40, where  # below the header, inside the window
            _shot(page, "words-2-marker-opened")

            # The PDF page: the orange on the sentence stating the answer, not its neighbour.
            opened.click()
            dialog = page.get_by_role("dialog")
            picture = dialog.get_by_test_id("stImage").locator("img").first
            expect(picture).to_be_visible(timeout=WORK_TIMEOUT_MS)
            _shot(page, "words-3-document")
            src = picture.get_attribute("src")
            image = Image.open(io.BytesIO(page.request.get(
                src if src.startswith("http") else f"{url}{src}").body()))
            lines, orange = text_lines(image), orange_rows(image)
            assert len(lines) == len(LINES), lines
            tinted = [i for i, (top, bottom) in enumerate(lines)
                      if any(top <= y < bottom for y in orange)]
            assert tinted == [STATED], (tinted, lines)
        except BaseException:
            _shot(page, "words-failed-here")
            raise
        finally:
            stop_app(proc)


@pytest.mark.local_llm
@pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                    reason="the packaged model is installed by `make install`")
def test_the_first_screen_is_drawn_at_once_while_the_model_loads(page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    _require_browser()
    proc, url = start_app(tmp_path / "ws", tmp_path / "streamlit.log", RAGCORE_LLM="local")
    try:
        page.goto(url, wait_until="commit")
        opened = time.monotonic()
        # Before the model: its load takes 10-20 s. The seconds are the benchmark's to judge
        # (2 s on an idle machine); 5 s here holds beside other programs, as a test must.
        expect(page.get_by_text("Your documents, answered")).to_be_visible(timeout=5_000)
        drawn = time.monotonic() - opened
        looking = page.get_by_test_id("stSidebar").get_by_text(
            "Answering: looking for a language model…")
        expect(looking).to_be_visible()  # the model still loads behind the page
        _shot(page, "words-4-first-screen")
        assert drawn < 5.0, drawn
        expect(looking).to_be_hidden(timeout=WORK_TIMEOUT_MS)  # then it says which one
        expect(page.get_by_test_id("stSidebar").get_by_text(re.compile("^Answering: "))
               ).to_be_visible()
    finally:
        stop_app(proc)


def test_the_estimate_the_bar_and_the_result_count_the_same_passages(
        page, tmp_path, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    _require_browser()
    proc, url = start_app(tmp_path / "ws", tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                          RAGCORE_FAKE_EMBED_SECONDS="0.01")
    try:
        page.goto(url)
        _go(page, "Upload")
        name_box = page.get_by_role("textbox", name="Name of the new index")
        name_box.fill("books")
        name_box.press("Enter")
        _wait_idle(page)
        _upload(page, corpus_dir / "gutenberg_books" / "pg2701.txt")
        said = page.get_by_text(re.compile(r"about [\d,]+ passages to index"))
        expect(said).to_be_visible(timeout=WORK_TIMEOUT_MS)
        estimated = int(re.search(r"about ([\d,]+) passages", said.inner_text())
                        .group(1).replace(",", ""))
        page.get_by_role("button", name="Index 1 file").click()
        bar = page.get_by_text(re.compile(r"indexing passage [\d,]+ of (about )?[\d,]+"))
        expect(bar.first).to_be_visible(timeout=WORK_TIMEOUT_MS)
        total = int(re.search(r"of (?:about )?([\d,]+)", bar.first.inner_text())
                    .group(1).replace(",", ""))
        _shot(page, "words-5-bar")
        done = page.get_by_text(re.compile(r"indexed: [\d,]+ passages"))  # a table cell
        expect(done.first).to_be_attached(timeout=WORK_TIMEOUT_MS)
        made = int(re.search(r"indexed: ([\d,]+) passages", done.first.text_content())
                   .group(1).replace(",", ""))
        _wait_idle(page)
        _shot(page, "words-6-result")
        assert "chunk" not in page.get_by_role("main").inner_text().lower()
        # one count, estimated then made: the bar's total is the estimate refined as it goes
        assert total == made or abs(total - made) <= 0.5 * made, (estimated, total, made)
        assert abs(estimated - made) <= 0.5 * made, (estimated, total, made)
    finally:
        stop_app(proc)


def test_regenerate_replaces_the_reply_in_place(slow_app, page):  # noqa: F811
    """With the slow one-slot model of tests/support/slow_model.py: while the new reply is made,
    nothing of the old one (its text, its "Sources (n)") stays on screen, greyed or not."""
    from playwright.sync_api import expect
    from test_browser_chat_progress import QUESTIONS, open_chat, record_since, send, wait_answered

    open_chat(page, slow_app)
    send(page, QUESTIONS[0])
    wait_answered(page, 2)
    clicked = page.evaluate("performance.now()")
    page.get_by_role("button", name="Regenerate").click()
    expect(page.locator(".st-key-live_turn")).to_have_count(1, timeout=30_000)  # begun
    wait_answered(page, 2)
    _shot(page, "words-7-regenerated")
    making = [r for r in record_since(page, clicked) if r["live"]]
    assert making, "the new reply was never seen being made"
    assert not [r["stale"] for r in making if r["stale"]], making[-1]
    old = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stChatMessage"]')]
        .map(b => b.innerText)""")
    assert sum(text.count("Sources (") for text in old) == 1, old
