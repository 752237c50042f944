"""The app's cold start to first render and its time to first answer token, offline.

Figures (all with a fresh temporary workspace, the packaged embedding model, the extractive
backend, nothing cached by a previous run):

- script cold start: a fresh Python process imports Streamlit and ragcore and renders the start
  page once (``AppTest``), i.e. the work of the first page view without the browser;
- server cold start: ``streamlit run app.py`` until its health check answers, and (when
  /usr/bin/chromium and playwright are present) until the start page is visible in Chromium;
- time to first answer token: a fresh process answers its first question (it loads the index
  and the embedding model), then later questions warm; and in Chromium, from pressing Enter in
  the chat box to the first answer text on screen, cold and warm.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
QUESTIONS = ["What did the president say about Ukraine?", "What is the plan to fight inflation?",
             "What did he say about jobs?", "What about COVID-19?", "What about the Supreme Court?"]
COLD_START_TARGET_S = 5.0
BROWSER_START_TARGET_S = 10.0  # includes the server start and the browser loading the client
FIRST_TOKEN_TARGET_S = 1.0
TURN_DONE = re.compile(r"^Sources \(\d+\)$")  # the caption over a finished answer's sources

_RENDER_SCRIPT = """
import time, json
t0 = time.perf_counter()
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=120).run()
elapsed = time.perf_counter() - t0
assert not at.exception, [e.value for e in at.exception]
print(json.dumps({{"seconds": elapsed, "title": at.title[0].value}}))
"""

_ANSWER_SCRIPT = """
import json, time
from ragcore.workspace import Workspace
from ragcore.llms.extractive.backend import ExtractiveLLM

def first_token(question, mode):
    t0 = time.perf_counter()
    index = Workspace({root!r}).load_index("bench")
    engine = index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode=mode)
    next(iter(engine.query(question)))
    return time.perf_counter() - t0

questions = {questions!r}
cold = first_token(questions[0], "hybrid")
warm = [first_token(q, "similarity") for q in questions[1:]]
hybrid = [first_token(q, "hybrid") for q in questions[1:]]
print(json.dumps({{"cold": cold, "warm": sum(warm) / len(warm),
                   "hybrid": sum(hybrid) / len(hybrid)}}))
"""


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(RAGCORE_WORKSPACE=str(root), RAGCORE_LLM="extractive", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1")
    env.pop("RAGCORE_EMBEDDER", None)
    return env


def _python(code: str, root: Path) -> tuple[float, dict]:
    """Run ``code`` in a fresh interpreter; its wall time and the JSON it printed last."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=_env(root), check=False,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:  # the child's own reason, not only its exit status
        raise RuntimeError(f"a fresh interpreter exited with {done.returncode}: "
                           f"{done.stderr.strip()[-800:] or '(nothing on stderr)'}")
    return time.perf_counter() - started, json.loads(done.stdout.strip().splitlines()[-1])


def _build_workspace(root: Path, corpus: Path) -> None:
    from ragcore.workspace import Workspace

    report = Workspace(root).ingest(
        "bench", [corpus / "state_of_the_union" / "state_of_the_union.txt"])
    if report.failed:
        raise RuntimeError(f"could not build the benchmark index: {report.summary()}")


def script_rows(root: Path) -> list[dict]:
    wall, result = _python(_RENDER_SCRIPT.format(app=str(REPO / "app.py")), root)
    return [
        {"metric": "app cold start to first render (fresh process, AppTest)", "unit": "s",
         "value": wall, "target": f"<= {COLD_START_TARGET_S:g} s",
         "ok": wall <= COLD_START_TARGET_S, "note": f"script run alone {result['seconds']:.2f} s"},
    ]


def answer_rows(root: Path) -> list[dict]:
    _, result = _python(_ANSWER_SCRIPT.format(root=str(root), questions=QUESTIONS), root)
    return [
        {"metric": "first answer token, first question of a fresh process", "unit": "s",
         "value": result["cold"], "note": "loads index + embedding model; extractive"},
        {"metric": "first answer token, later questions", "unit": "s", "value": result["warm"],
         "target": f"<= {FIRST_TOKEN_TARGET_S:g} s", "ok": result["warm"] <= FIRST_TOKEN_TARGET_S,
         "note": "index load + embed + retrieve + first chunk; extractive; similarity search"},
        {"metric": "first answer token, later questions, hybrid (the default)", "unit": "s",
         "value": result["hybrid"], "note": "as above, plus BM25 over the postings mapped at load"},
    ]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(root: Path, port: int, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1"],
        cwd=REPO, env=_env(root), stdout=log, stderr=subprocess.STDOUT)


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"streamlit did not answer within {timeout} s")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def server_rows(root: Path) -> list[dict]:
    """Health check, and (with Chromium) first render and chat first-token times."""
    browser_ready = CHROMIUM.exists()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        browser_ready = False
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    rows: list[dict] = []
    with tempfile.TemporaryFile("w+") as log:
        if not browser_ready:
            return _health_only_rows(root, port, log)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
            page = browser.new_page()
            started = time.perf_counter()
            proc = _start_server(root, port, log)
            try:
                _wait_healthy(url, proc)
                rows.append(_health_row(time.perf_counter() - started))
                page.goto(url)
                page.get_by_text("Your indexes").wait_for(timeout=120_000)
                first = time.perf_counter() - started
                target = BROWSER_START_TARGET_S
                rows.append({"metric": "app cold start to first render in Chromium",
                             "unit": "s", "value": first, "target": f"<= {target:g} s",
                             "ok": first <= target,
                             "note": "from `streamlit run` to the start page on screen"})
                rows += _chat_rows(page)
            finally:
                browser.close()
                _stop(proc)
    return rows


def _health_only_rows(root: Path, port: int, log) -> list[dict]:
    started = time.perf_counter()
    proc = _start_server(root, port, log)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc)
        seconds = time.perf_counter() - started
    finally:
        _stop(proc)
    return [_health_row(seconds), {"metric": "app first render in Chromium", "value": None,
                                   "note": "skipped: /usr/bin/chromium or playwright missing"}]


def _health_row(seconds: float) -> dict:
    return {"metric": "server cold start to health check", "unit": "s", "value": seconds,
            "note": "`streamlit run app.py` until /_stcore/health answers"}


def _chat_rows(page) -> list[dict]:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Chat").click()
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=60_000)
    times = []
    for number, question in enumerate(QUESTIONS[:3]):
        box.fill(question)
        started = time.perf_counter()
        box.press("Enter")
        answer = page.get_by_test_id("stChatMessage").nth(2 * number + 1)
        answer.get_by_text("Extractive answer").wait_for(timeout=240_000)
        times.append(time.perf_counter() - started)
        # The turn is over when its sources are listed under the answer (the simple view's
        # last line; "How this answer was made" shows only under Advanced).
        answer.get_by_text(TURN_DONE).wait_for(timeout=60_000)
    warm = sum(times[1:]) / len(times[1:])
    return [
        {"metric": "chat first answer token in Chromium, first question", "unit": "s",
         "value": times[0],
         "note": "Enter to first answer text; the model began loading at the first page view"},
        {"metric": "chat first answer token in Chromium, later questions", "unit": "s",
         "value": warm, "target": f"<= {FIRST_TOKEN_TARGET_S:g} s",
         "ok": warm <= FIRST_TOKEN_TARGET_S, "note": "condense_plus_context, extractive"},
    ]


def run(*, quick: bool = False, corpus: Path) -> list[dict]:
    """Measure the app offline; ``quick`` skips the browser figures."""
    with tempfile.TemporaryDirectory(prefix="ragcore-bench-app-") as folder:
        empty, built = Path(folder) / "empty", Path(folder) / "built"
        rows = script_rows(empty)
        _build_workspace(built, corpus)
        rows += answer_rows(built)
        rows += server_rows(built) if not quick else []
    return rows


if __name__ == "__main__":
    from benchmarks.harness import corpus_dir

    for row in run(corpus=corpus_dir()):
        print(row)
