"""Every path a reply is shown by, in the real app in a real Chromium and through the real CLI,
with the packaged model (issue 55): each reply is shown with its verdict, and nothing shown as
the answer is taken back.

The app runs with ``RAGCORE_LLM=local`` (the default packaged model) and the packaged embedder
over one short real document (the Zen of Python, indexed by ``ragcore ingest``: 3 passages, so
the model reads little). Then, on the Chat page, each chat mode chosen by the name people see, a
first question and a follow-up in a chat of its own; in "Answer from the documents" also
Regenerate of the follow-up and Edit of the first question; the Query page; and, in
subprocesses, ``ragcore query``, ``ragcore chat`` (first and follow-up) and the Python API.

Each reply shown must carry what the check decided (``verdict_shown``): ragcore's markers [n]
on what a passage states, or the refusal "The documents don't ...", or "Not confirmed by the
passages" / "Check this answer against the sources", or, for a reply that read no passage, "From
our conversation, not checked ..." (an agent's: "Not from the documents ...") or the caption of
"Just the model, no documents". A recorder in the page notes on every change what the newest
reply shows: while it is made its text may only be the grey draft under "Draft, being checked
...", and no text shown in the answer's place may later give way to another (the issue's "shown,
then taken back": zero); nothing of the turn being made (its passages, its draft) stays on
screen once the reply is. Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per reply.

About 9 minutes on two cores shared with other work (19 replies; the app's model loads once, the
CLI's and the Python API's once per process).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)
from test_browser_demo_local import _choose

from ragcore.chat import CHECKING_LABEL, DRAFT_LABEL, ChatMode
from ragcore.llms import local_models
from ragcore.present.grounded import NOT_CONFIRMED, NOT_STATED, UNOBSERVED, UNREAD
from ragcore.present.support import SUPPORTS
from webapp.chat.chat_modes import MODE_NAMES, PEOPLE_MODES
from webapp.chat.chat_turns import NO_SEARCH_CAPTION

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.local_llm,
              pytest.mark.timeout(1800),
              pytest.mark.skipif(not local_models.installed_models(),
                                 reason="the packaged model is installed by `make install`")]

DOCUMENT = ("python_peps", "pep-0020.rst")  # the Zen of Python: 3 passages
INDEX = "zen"
# "In one sentence": the model alone otherwise writes paragraphs, for minutes on a busy machine
FIRST = "In one sentence: what does the Zen of Python say about errors?"
FOLLOW_UP = "And about namespaces, in one sentence?"
EDITED = "What does it say about readability?"
QUERY = "What does the Zen of Python say about special cases?"
REPLY_MS = 300_000  # one reply of the 1.5B model on two shared cores, an agent's several steps
DEFAULT_MODE = ChatMode.CONDENSE_PLUS_CONTEXT
ADVANCED_MODES = [m for m in ChatMode if m not in PEOPLE_MODES]  # named under Advanced only
REFUSAL = "The documents don't"


def plain(markdown: str) -> str:
    """A lead as the browser's text shows it: its emphasis marks gone."""
    return markdown.replace("*", "")


def verdict_shown(answer: str, markers: int, caption: str = "") -> str | None:
    """What the check decided, as the shown ``answer`` says it (``markers``: ragcore's [n] in
    it; ``caption``: the reply's other text); None for a reply shown as if never checked."""
    leads = {"unread": plain(UNREAD), "refused": REFUSAL,
             # an agent's answer no tool backed, searched or not ("... without searching")
             "unobserved": plain(UNOBSERVED).split(":")[0],
             "not confirmed": plain(NOT_CONFIRMED).split(":")[0],
             "not stated": plain(NOT_STATED).split(":")[0]}
    for verdict, lead in leads.items():
        # the browser draws the text without its emphasis marks; the Python API returns them
        if plain(answer).startswith(lead):
            return verdict
    if markers:
        return "supported"
    if NO_SEARCH_CAPTION in caption:
        return "model alone"
    return None


def test_the_verdicts_are_told_apart():
    """The classifier itself: a bare model text is unchecked, each lead is its verdict."""
    assert verdict_shown("Errors should never pass silently.", 0) is None
    assert verdict_shown("Errors should never pass silently. [1]", 1) == "supported"
    assert verdict_shown("The documents don't say who wrote it.", 0) == "refused"
    assert verdict_shown(plain(UNREAD) + "\n\nYes.", 0) == "unread"
    assert verdict_shown("Hello.", 0, NO_SEARCH_CAPTION) == "model alone"
    assert verdict_shown(NOT_CONFIRMED + "\n\nThe Zen of Python states it.", 0) == "not confirmed"


# -- the app ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, corpus_dir):
    root = tmp_path_factory.mktemp("every-path") / "ws"
    run_cli("ingest", str(corpus_dir.joinpath(*DOCUMENT)), "--index", INDEX, workspace=root)
    return root


@pytest.fixture(scope="module")
def app(workspace, tmp_path_factory):
    log = tmp_path_factory.mktemp("every-path-log") / "streamlit.log"
    proc, url = start_app(workspace, log, RAGCORE_LLM="local")
    try:
        yield url, workspace
    finally:
        stop_app(proc)


def set_advanced(root: Path, on: bool) -> None:
    """Advanced on or off for the next session (a session reads the choice when it starts)."""
    (root / "app-preferences.json").write_text(json.dumps({"advanced": on}))


RECORDER = """() => {
  window.__seen = [];
  const text = (el) => el ? el.innerText.trim() : '';
  const all = (selector) => [...document.querySelectorAll(selector)].map(text).join('\\n');
  const shownIn = (place) => {  // the first text drawn there as the answer: not the live
    for (const el of place.querySelectorAll('[data-testid="stMarkdown"]')) {  // turn, steps
      if (el.closest('.st-key-live_turn') || el.closest('details')  // or a caption
          || el.querySelector('[data-testid="stCaptionContainer"]')) continue;
      return text(el);
    }
    return '';
  };
  const snap = () => {
    const answers = {};  // each reply's place: answer_<its number in the chat>, query_answer
    document.querySelectorAll('[data-testid="stChatMessage"]').forEach((bubble, number) => {
      if (bubble.querySelector('[data-testid="stChatMessageAvatarAssistant"]'))
        answers['answer_' + number] = shownIn(bubble);
    });
    const query = document.querySelector('.st-key-query_answer_box');
    if (query) answers['query_answer'] = shownIn(query);
    window.__seen.push({t: performance.now(), answers: answers,
                        live: all('.st-key-live_turn'), draft: all('.st-key-reply_draft')});
  };
  setInterval(snap, 100);  // and on every change, so a state shown briefly is seen too
  new MutationObserver(snap).observe(document.body, {subtree: true, childList: true,
                                                     characterData: true});
}"""

SHOWN = """(n) => {
  const bubble = document.querySelectorAll('[data-testid="stChatMessage"]')[n];
  const body = bubble.querySelector('.st-key-answer_' + n);
  const texts = [...body.querySelectorAll('[data-testid="stMarkdown"]')].filter(
      el => !el.closest('details') && !el.querySelector('[data-testid="stCaptionContainer"]'));
  const answer = texts.length ? texts[0] : null;
  return {answer: answer ? answer.innerText.trim() : '',
          markers: answer ? answer.querySelectorAll('a[href*="-source-"]').length : 0,
          bubble: bubble.innerText};
}"""


class Walk:
    """One person's session on the app: asks, waits, and reads what each reply showed."""

    def __init__(self, page, url: str, root: Path) -> None:
        self.page, self.url, self.root = page, url, root
        self.replies: list[dict] = []  # what each reply showed, for the report

    def open(self, path: str, ready) -> None:
        from playwright.sync_api import expect

        self.page.goto(f"{self.url}/{path}")
        expect(ready(self.page)).to_be_visible(timeout=120_000)
        _wait_idle(self.page)
        self.page.evaluate(RECORDER)

    def now(self) -> float:
        return self.page.evaluate("performance.now()")

    def record_since(self, sent: float) -> list[dict]:
        """The samples since ``sent`` from the first showing the live turn on: the reply made."""
        record = [r for r in self.page.evaluate("window.__seen") if r["t"] >= sent]
        start = next((i for i, r in enumerate(record) if r["live"]), None)
        assert start is not None, "the reply was never shown being made"
        return record[start:]

    def wait_made(self, sent: float) -> None:
        """Until the reply asked at ``sent`` began (its live turn shown) and is over."""
        from playwright.sync_api import expect

        self.page.wait_for_function(
            "(sent) => window.__seen.some(r => r.t >= sent && r.live)", arg=sent,
            timeout=REPLY_MS)
        expect(self.page.locator(".st-key-live_turn")).to_have_count(0, timeout=REPLY_MS)
        _wait_idle(self.page)

    def made_once(self, sent: float, place: str, label: str) -> None:
        """The reply drawn in ``place`` (its answer's key) since ``sent``: its text was a draft
        while made, and once shown as the answer it stayed (nothing shown, then replaced)."""
        from playwright.sync_api import expect

        record = self.record_since(sent)
        final = record[-1]["answers"].get(place, "")
        assert final, (label, "no answer shown", record[-1])
        shown = sorted({r["answers"].get(place) for r in record if r["answers"].get(place)})
        assert shown == [final], (label, "shown, then taken back", shown)
        early = [r["answers"][place] for r in record if r["answers"].get(place) and r["live"]]
        assert not early, (label, "shown as the answer while being made", early[0])
        drafts = [r for r in record if DRAFT_LABEL in r["draft"] or CHECKING_LABEL in r["draft"]]
        assert drafts, (label, "the model's text was never shown as a draft")
        # nothing of the turn being made is left on screen under the answer
        expect(self.page.get_by_text("being read by the model")).to_have_count(0)
        expect(self.page.get_by_text(DRAFT_LABEL)).to_have_count(0)


class ChatWalk(Walk):
    def open_chat(self, mode: ChatMode) -> None:
        self.open("chat", lambda page: page.get_by_test_id("stChatInputTextArea"))
        sidebar = self.page.get_by_test_id("stSidebar")
        name = MODE_NAMES[mode]  # the name people see (under Advanced, the internal one after)
        _choose(self.page, sidebar.get_by_role("combobox", name="Chat mode"),
                re.compile(rf"^{re.escape(name)}( \({mode.value}\))?$"))
        _wait_idle(self.page)
        self.mode = mode

    def ask(self, question: str) -> None:
        box = self.page.get_by_test_id("stChatInputTextArea")
        box.fill(question)
        sent = self.now()
        box.press("Enter")
        self.settle(sent, question)

    def regenerate(self) -> None:
        question = self.saved()["messages"][-2]["content"]
        sent = self.now()
        self.page.get_by_role("button", name="Regenerate").last.click()
        self.settle(sent, question, how="regenerated")

    def edit(self, position: int, question: str) -> None:
        self.page.locator(f".st-key-edit_{position} button").first.click()
        self.page.get_by_label("Edit your question").fill(question)
        sent = self.now()
        self.page.get_by_role("button", name="Send edited question").click()
        self.settle(sent, question, how="edited")

    def settle(self, sent: float, question: str, how: str = "asked") -> None:
        """Wait for the reply, then check what it showed while made and once saved."""
        from playwright.sync_api import expect

        self.wait_made(sent)
        expect(self.page.get_by_role("button", name="Regenerate")).to_have_count(1)  # saved
        # a chat's first reply is named by the model once on screen: done when it has a name
        expect(self.page.get_by_text(re.compile(r"· new chat"))).to_have_count(0,
                                                                                timeout=REPLY_MS)
        _wait_idle(self.page)
        label = f"{self.mode.value}, {how}: {question}"
        chat = self.saved()
        number = len(chat["messages"]) - 1
        self.made_once(sent, f"answer_{number}", label)
        message = chat["messages"][number]
        assert chat["messages"][number - 1]["content"] == question, label
        assert message["trace"]["chat_mode"] == self.mode.value, label
        seen = self.page.evaluate(SHOWN, number)
        verdict = verdict_shown(seen["answer"], seen["markers"], seen["bubble"])
        self.replies.append({"path": label, "seconds": round((self.now() - sent) / 1000),
                             "verdict": verdict, "shown": seen["answer"][:160],
                             "model": message["content"][:160]})
        _shot(self.page, f"every-path-{self.mode.value}-{how}-{number}")
        assert verdict is not None, (label, "shown without a verdict", seen["answer"])
        if message.get("sources"):
            assert verdict not in ("unread", "model alone"), (label, verdict)
        else:
            assert verdict in ("unread", "unobserved", "model alone"), (label, verdict)
        if self.mode is ChatMode.SIMPLE:  # shown as written, its caption saying so
            assert verdict == "model alone", (label, verdict)
        if verdict == "refused":  # no source vouches for what is refused
            assert "states this" not in seen["bubble"], (label, seen["bubble"])

    def saved(self) -> dict:
        """The open chat as the app saved it (its id is in the page's address)."""
        chat_id = re.search(r"chat=([\w-]+)", self.page.url).group(1)
        for path in (self.root / "chats").glob("*.json"):
            chat = json.loads(path.read_text())
            if chat.get("id") == chat_id:
                return chat
        raise AssertionError(f"chat {chat_id} is not saved in {self.root / 'chats'}")


# The agent's follow-up was once (1 run in 3, 2026-11-28, on a machine busy with other tests)
# shown without its text ever drawn as a draft: the agent may answer a follow-up in one step,
# whose answer is drawn whole. Still run; its failure is reported, not fatal, until looked into.
_AGENT_DRAFT = pytest.mark.xfail(strict=False, reason="an agent's one-step follow-up may be "
                                 "drawn whole, never as a draft (seen once under load)")
MODES = [pytest.param(m, marks=_AGENT_DRAFT) if m is ChatMode.REACT else m
         for m in list(PEOPLE_MODES) + ADVANCED_MODES]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_every_chat_mode_first_and_follow_up_is_shown_checked(app, page, mode):  # noqa: F811
    url, root = app
    set_advanced(root, mode in ADVANCED_MODES)
    walk = ChatWalk(page, url, root)
    try:
        walk.open_chat(mode)
        walk.ask(FIRST)
        walk.ask(FOLLOW_UP)
        if mode is DEFAULT_MODE:
            walk.regenerate()  # the follow-up again: rewritten, searched, checked again
            walk.edit(0, EDITED)  # the first question changed: the chat starts over from it
    except BaseException:
        _shot(page, f"every-path-{mode.value}-failed-here")
        raise
    finally:
        print("EVERY PATH", json.dumps(walk.replies, ensure_ascii=False))


def test_the_query_page_shows_the_checked_answer(app, page):  # noqa: F811
    url, root = app
    set_advanced(root, False)
    walk = Walk(page, url, root)
    walk.open("query", lambda page: page.get_by_role("textbox", name="Your question"))
    box = page.get_by_role("textbox", name="Your question")
    box.fill(QUERY)
    sent = walk.now()
    box.press("Enter")
    walk.wait_made(sent)
    walk.made_once(sent, "query_answer", "query")
    answer = page.locator(".st-key-query_answer_box")
    shown = answer.get_by_test_id("stMarkdown").first
    verdict = verdict_shown(shown.inner_text().strip(),
                            shown.locator('a[href*="-source-"]').count())
    _shot(page, "every-path-query")
    print("EVERY PATH", json.dumps({"path": "query", "verdict": verdict,
                                    "shown": shown.inner_text()[:160]}, ensure_ascii=False))
    assert verdict not in (None, "unread", "unobserved", "model alone"), shown.inner_text()


# -- the CLI and the Python API, in processes of their own -----------------------------------


def run_cli(*args: str, workspace: Path, stdin: str | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess:
    """``ragcore ARGS`` on ``workspace`` (the packaged model), run to its end."""
    ragcore = Path(sys.executable).with_name("ragcore")
    command = [str(ragcore)] if ragcore.exists() else [
        sys.executable, "-c", "import sys; from ragcore.cli import main; sys.exit(main())"]
    env = dict(os.environ, RAGCORE_WORKSPACE=str(workspace), RAGCORE_LLM="local",
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("RAGCORE_EMBEDDER", None)
    done = subprocess.run([*command, *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=timeout, check=False)
    assert done.returncode == 0, (args, done.returncode, done.stderr[-3000:])
    return done


def cli_verdict(reply: str) -> str | None:
    """What the check decided, as the CLI wrote a reply: its markers are plain [n], so a
    supported one also has a source that "states this" (else they are the model's own)."""
    answer, _, sources = reply.partition("\nSources:")
    verdict = verdict_shown(plain(answer.strip()), len(re.findall(r"\[\d+\]", answer)))
    return None if verdict == "supported" and SUPPORTS not in sources else verdict


def test_the_cli_query_writes_the_checked_answer(workspace):
    done = run_cli("query", FIRST, "--index", INDEX, workspace=workspace)
    answer = done.stdout
    print("EVERY PATH", json.dumps({"path": "cli query", "out": answer[:300]}))
    assert "Packaged model" in done.stderr, done.stderr[:300]
    assert cli_verdict(answer) not in (None, "unread", "unobserved", "model alone"), answer


def test_the_cli_chat_writes_every_reply_checked(workspace):
    out = run_cli("chat", "--index", INDEX, workspace=workspace,
                  stdin=f"{FIRST}\n{FOLLOW_UP}\n/quit\n").stdout
    replies = [part.split("you> ")[0] for part in out.split("assistant> ")[1:]]
    print("EVERY PATH", json.dumps({"path": "cli chat", "replies": replies}))
    assert len(replies) == 2, out
    for reply in replies:
        assert cli_verdict(reply) is not None, reply


PYTHON_API = """
import json, sys
from ragcore.llms.resolve import resolve_llm
from ragcore.workspace import Workspace
index = Workspace(sys.argv[1]).load_index(sys.argv[2])
response = index.as_query_engine(llm=resolve_llm("local")).query(sys.argv[3])
print(json.dumps({"text": response.text, "shown": response.shown,
                  "verdict": None if response.verdict is None else response.verdict.label}))
"""


def test_the_python_api_returns_the_checked_answer(workspace):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", PYTHON_API, str(workspace), INDEX, FIRST],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print("EVERY PATH", json.dumps({"path": "python api", **result}, ensure_ascii=False))
    assert result["verdict"] is not None, result
    assert verdict_shown(result["shown"], len(re.findall(r"\[\d+\]", result["shown"]))), result
