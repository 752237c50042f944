"""``ragcore serve`` and ``ragcore query`` asking it (issue 65): the wire, and what the query does
with no warm process, a stale socket, a warm one, one that refuses, and a changed index."""

from __future__ import annotations

import argparse
import io
import os
import socket
import threading
import time

import pytest

from ragcore.cli import main
from ragcore.cli.context import CliContext
from ragcore.cli.serve_command import WarmServer, listen, remove_socket
from ragcore.cli.warm_socket import (
    PROTOCOL, Hello, ProtocolError, decode, encode, query_args, query_request, refusal,
    socket_path,
)
from ragcore.errors import WorkspaceError

QUESTION = "What does the policy engine grant?"


@pytest.fixture
def workspace(tmp_path, fake_embedder, capsys, monkeypatch):
    """A workspace with one index 'notes' (short path: AF_UNIX paths are capped near 100 bytes)."""
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "trust.txt").write_text(
        "Zero trust architecture assumes no implicit trust in assets or accounts. "
        "A policy engine grants access to each resource per session.", encoding="utf-8")
    root = tmp_path / "ws"
    assert main(["--workspace", str(root), "ingest", str(docs), "--index", "notes"],
                embedder=fake_embedder) == 0
    capsys.readouterr()
    return root


@pytest.fixture
def ask(workspace, fake_embedder, capsys):
    def run(*argv: str):
        code = main(["--workspace", str(workspace), *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def warm(workspace, fake_embedder):
    """A warm process's server in a thread of this process; yields it, then stops it."""
    started = []

    def start(*, hello_workspace: str | None = None) -> WarmServer:
        path = socket_path(workspace)
        listener = listen(path, io.StringIO())
        inode = os.stat(path).st_ino
        context = CliContext(str(workspace), fake_embedder)
        hello = Hello(4242, time.time(), hello_workspace or str(workspace))
        server = WarmServer(context, listener, hello)
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        started.append((server, thread, listener, path, inode))
        return server

    yield start
    for server, thread, listener, path, inode in started:
        server.stopping.set()
        thread.join(timeout=10)
        listener.close()
        remove_socket(path, inode)


def answer_of(out: str) -> str:
    return out.partition("Sources:")[0].strip()


# -- the wire ------------------------------------------------------------------------------


def test_a_message_reads_back_as_sent_and_garbage_is_refused():
    message = {"out": "15% — «quoted»\n"}
    assert decode(encode(message)) == message
    with pytest.raises(ProtocolError):
        decode(b"Traceback (most recent call last)\n")
    with pytest.raises(ProtocolError):
        decode(b"[1, 2]\n")


def test_a_query_request_carries_every_option_back(tmp_path):
    args = argparse.Namespace(question="Q?", index="notes", mode="refine", llm="extractive",
                              base_url=None, top_k=3, retrieval="keyword", trace=True, run=None)
    request = decode(encode(query_request(args, tmp_path, tty=False)))
    again = query_args(request)
    assert vars(again) == {k: v for k, v in vars(args).items() if k != "run"}
    del request["query"]["top_k"]
    with pytest.raises(ProtocolError, match="top_k"):
        query_args(request)


def test_another_protocol_or_workspace_is_refused_with_what_to_do(tmp_path):
    request = query_request(argparse.Namespace(question="Q", index="i", mode="compact", llm=None,
                                               base_url=None, top_k=4, retrieval="hybrid",
                                               trace=False), tmp_path, tty=False)
    assert refusal(request, tmp_path) is None
    assert "restart it" in refusal({**request, "protocol": PROTOCOL + 1}, tmp_path)
    assert "start one in that workspace" in refusal(request, tmp_path / "other")


def test_hello_names_the_start_time_and_pid():
    started = time.mktime((2026, 11, 28, 12, 3, 0, 0, 0, -1))
    assert Hello(77, started, "/w").line() == \
        "Answered by the warm process started 12:03 (pid 77)"


# -- the query's fallbacks -----------------------------------------------------------------


def test_with_no_warm_process_the_query_loads_itself_and_says_how_to_keep_warm(ask):
    code, out, err = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0, err
    assert "policy engine" in answer_of(out).lower()
    assert "Loaded in " in err and "`ragcore serve`" in err
    assert "Answered by the warm process" not in err


def test_a_stale_socket_is_refused_clearly_and_the_query_answers_itself(ask, workspace):
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_path(workspace)))  # bound, never listening: a crashed serve's file
    stale.close()
    code, out, err = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0, err
    assert "no longer runs; answering here" in err
    assert "policy engine" in answer_of(out).lower() and "Loaded in " in err
    code, _, err = ask("serve", "--stop")
    assert code == 0 and "Removed" in err
    assert not socket_path(workspace).exists()


def test_a_warm_process_answers_as_the_query_would_have(ask, warm):
    _, fresh, _ = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    warm()
    code, out, err = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0, err
    assert "Answered by the warm process started" in err and "(pid 4242)" in err
    assert "Loaded in " not in err  # nothing loaded for this question
    assert "Answering with Extractive" in err
    assert out == fresh  # the same answer and sources, written by the same renderer


def test_a_warm_process_says_a_missing_index_as_the_query_does(ask, warm):
    warm()
    code, out, err = ask("query", QUESTION, "--index", "nowhere", "--llm", "extractive")
    assert code == 1 and out == ""
    assert "Answered by the warm process" in err and "error: " in err and "nowhere" in err


def test_a_warm_process_of_another_workspace_is_not_used(ask, warm):
    warm(hello_workspace="/somewhere/else")
    code, out, err = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0, err
    assert "did not answer" in err and "start one in that workspace" in err
    assert "Loaded in " in err and "policy engine" in answer_of(out).lower()


def test_a_warm_process_loads_an_index_again_once_it_changed_on_disk(ask, warm, workspace,
                                                                     tmp_path):
    warm()
    ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    more = tmp_path / "more"
    more.mkdir()
    (more / "garden.md").write_text("Tomatoes need sun, water and patience.", encoding="utf-8")
    assert ask("ingest", str(more), "--index", "notes")[0] == 0
    code, out, err = ask("query", "What do tomatoes need?", "--index", "notes",
                         "--llm", "extractive")
    assert code == 0, err
    assert "changed on disk; loaded it again" in err
    assert "sun" in answer_of(out).lower()


def test_a_second_serve_is_refused_and_stop_removes_the_socket(ask, warm, workspace):
    server = warm()
    code, _, err = ask("serve")
    assert code == 1 and "already answers" in err and "--stop" in err
    code, _, err = ask("serve", "--stop")
    assert code == 0 and "Stopped the warm process (pid 4242)" in err
    assert server.stopping.is_set()


def test_stop_with_no_warm_process_says_so(ask):
    code, _, err = ask("serve", "--stop")
    assert code == 1 and "No `ragcore serve` runs" in err


@pytest.fixture
def serving(workspace, fake_embedder, monkeypatch):
    """Starts ``ragcore serve`` as a person runs it, on a thread (from the test itself, so that
    it writes to the test's stderr); returns its exit statuses once it ends."""
    monkeypatch.setenv("RAGCORE_LLM", "extractive")  # what the warm process loads for the default
    ended: list[int] = []
    thread = threading.Thread(target=lambda: ended.append(main(
        ["--workspace", str(workspace), "serve", "--index", "notes"], embedder=fake_embedder)))

    def start() -> list[int]:
        thread.start()
        path = socket_path(workspace)
        for _ in range(200):
            if path.exists():
                break
            time.sleep(0.05)
        return ended

    yield start
    if thread.is_alive():
        main(["--workspace", str(workspace), "serve", "--stop"])
    thread.join(timeout=30)


def test_serve_answers_until_stopped_then_removes_its_socket(ask, workspace, serving):
    ended = serving()
    code, out, err = ask("query", QUESTION, "--index", "notes")
    assert code == 0 and "Answered by the warm process" in err
    assert "policy engine" in answer_of(out).lower()
    assert ask("serve", "--stop")[0] == 0
    for _ in range(200):
        if ended:
            break
        time.sleep(0.05)
    assert ended == [0]
    assert not socket_path(workspace).exists()
    code, _, err = ask("query", QUESTION, "--index", "notes")
    assert code == 0 and "Loaded in " in err and "Answered by" not in err


@pytest.fixture
def slow_load(monkeypatch):
    monkeypatch.setattr("ragcore.cli.warm_socket.HELLO_SECONDS", 0.5)
    real = WarmServer.preload

    def preload(self, name, err):
        time.sleep(1.5)  # longer than a query waits for a hello
        real(self, name, err)

    monkeypatch.setattr(WarmServer, "preload", preload)


def test_a_query_asked_while_the_warm_process_loads_waits_for_it(ask, slow_load, serving):
    serving()
    code, out, err = ask("query", QUESTION, "--index", "notes")
    assert code == 0, err
    assert "Answered by the warm process" in err and "Loaded in " not in err


def test_a_warm_process_whose_load_fails_says_why_and_removes_its_socket(ask, workspace,
                                                                         monkeypatch):
    def fail(self, name, err):
        raise WorkspaceError("the settings name a model that is not installed")

    monkeypatch.setattr(WarmServer, "preload", fail)
    code, _, err = ask("serve", "--index", "notes")
    assert code == 1 and "error: the settings name a model" in err
    assert not socket_path(workspace).exists()


def test_a_query_is_answered_and_checked_in_one_turn_at_the_model(ask, monkeypatch):
    """The answer and its check share one place at the model (``slots.one_turn``), as the
    Chat page asks: the engine does not reload between them and empty the prompt's cache."""
    from ragcore.cli import query_command
    from ragcore.llms.slots import current_turn

    turns = []
    written = query_command.write_reply

    def recording(out, response, **options):
        turns.append(current_turn())
        return written(out, response, **options)

    monkeypatch.setattr(query_command, "write_reply", recording)
    code, out, err = ask("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0, err
    assert turns and turns[0] is not None
