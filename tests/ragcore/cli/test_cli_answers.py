"""``ragcore query`` and the ``ragcore chat`` REPL, offline with the extractive backend."""

from __future__ import annotations

import io
import json

import pytest

from ragcore.cli import main


@pytest.fixture
def run(tmp_path, fake_embedder, capsys, monkeypatch):
    """ragcore with a tmp workspace holding one small index 'notes'; returns (code, out, err)."""
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "trust.txt").write_text(
        "Zero trust architecture assumes no implicit trust in assets or accounts. "
        "A policy engine grants access to each resource per session.\n\n"
        "The policy engine decides using identity, device state and behaviour.", encoding="utf-8")
    (docs / "garden.md").write_text("# Garden\n\nTomatoes need sun, water and patience.",
                                    encoding="utf-8")
    workspace = ["--workspace", str(tmp_path / "ws")]
    assert main([*workspace, "ingest", str(docs), "--index", "notes"], embedder=fake_embedder) == 0
    capsys.readouterr()

    def call(*argv: str, stdin: str | None = None):
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main([*workspace, *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


@pytest.mark.parametrize("mode", ["compact", "tree_summarize", "refine", "accumulate"])
def test_query_answers_with_sources_in_each_mode(run, mode):
    code, out, err = run("query", "What does the policy engine grant?", "--index", "notes",
                         "--mode", mode, "--llm", "extractive")
    assert code == 0, err
    assert "Extractive" in err and f"mode {mode}" in err
    answer, _, sources = out.partition("Sources:")
    assert "policy engine" in answer.lower()
    assert "[1] trust.txt" in sources


def test_query_says_how_long_loading_took_apart_from_the_answer(run):
    # Issue 65: a fresh `ragcore query` pays the models' load every time; it says so.
    code, _, err = run("query", "What does the policy engine grant?", "--index", "notes",
                       "--llm", "extractive")
    assert code == 0, err
    line = next(ln for ln in err.splitlines() if ln.startswith("Loaded in "))
    assert "index and language model" in line and "embedding model" in line
    assert "`ragcore chat` once for many questions" in line


def test_query_trace_lists_stages_and_llm_calls(run):
    code, out, _ = run("query", "What does the policy engine grant?", "--index", "notes",
                       "--llm", "extractive", "--trace", "--top-k", "1")
    assert code == 0
    trace = out.split("Trace:", 1)[1]
    assert "retrieve" in trace and "LLM call 1" in trace and "tokens in" in trace
    sources = out.split("Sources:", 1)[1].split("Trace:", 1)[0]
    assert sources.count("[") == 1  # one source with --top-k 1 (the answer marks its quote [1])


def test_no_text_mode_makes_no_llm_call(run):
    code, out, _ = run("query", "policy engine", "--index", "notes", "--mode", "no_text",
                       "--llm", "extractive", "--trace")
    assert code == 0 and "LLM call" not in out and "[1] trust.txt" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--base-url", "http://127.0.0.1:9"], "--base-url needs --llm"),
        (["--llm", "gpt5"], "unknown LLM"),
        (["--llm", "extractive", "--top-k", "0"], "--top-k (0)"),
        (["--llm", "extractive", "--index", "absent"], "no index named 'absent'"),
    ],
)
def test_query_errors_are_readable(run, argv, message):
    code, out, err = run("query", "anything", "--index", "notes", *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_unreachable_llm_server_is_a_readable_error(run):
    code, _, err = run("query", "policy engine", "--index", "notes", "--llm", "openai:some-model",
                       "--base-url", "http://127.0.0.1:9/v1")
    assert code == 1 and "\nerror: " in err and "127.0.0.1:9" in err and "Traceback" not in err


def test_chat_repl_streams_answers_and_runs_commands(run):
    script = "\n".join([
        "What does the policy engine grant?",
        "/trace",
        "/mode context",
        "/mode nonsense",
        "What do tomatoes need?",
        "/reset",
        "/help",
        "/quit",
        "never read",
    ]) + "\n"
    code, out, _ = run("chat", "--index", "notes", "--llm", "extractive", stdin=script)
    assert code == 0
    assert "mode condense_plus_context" in out
    turns = out.split("assistant> ")
    assert len(turns) == 3  # two answers, the line after /quit is never read
    assert "policy engine" in turns[1].lower() and "[1] trust.txt" in turns[1]
    assert "Trace:" in turns[1] and "LLM call 1" in turns[1]
    assert "Chat mode is now context" in turns[1]
    assert "Choose a mode" in turns[1]
    assert "tomatoes" in turns[2].lower() and "garden.md" in turns[2]
    assert "Conversation forgotten." in turns[2] and "/reset" in turns[2]


def test_chat_ends_at_end_of_input_and_trace_before_asking(run):
    code, out, _ = run("chat", "--index", "notes", "--llm", "extractive", stdin="/trace\n")
    assert code == 0 and "No answer yet" in out


def test_chat_save_writes_the_conversation_with_sources(run, tmp_path):
    code, _, err = run("chat", "--index", "notes", "--llm", "extractive", "--save",
                       stdin="What does the policy engine grant?\n")
    assert code == 0 and "saved to" in err
    [path] = (tmp_path / "ws" / "chats").glob("*.json")
    chat = json.loads(path.read_text())
    assert chat["index"] == "notes" and chat["chat_mode"] == "condense_plus_context"
    assert [m["role"] for m in chat["messages"]] == ["user", "assistant"]
    assert chat["messages"][1]["sources"][0]["file_name"] == "trust.txt"


@pytest.mark.parametrize("retrieval", ["keyword", "hybrid"])
def test_retrieval_option_searches_by_words_in_retrieve_query_and_chat(run, tmp_path, retrieval):
    code, out, err = run("retrieve", "tomatoes", "--index", "notes", "--retrieval", retrieval,
                         "-k", "1")
    assert code == 0, err
    assert "garden.md" in out
    code, out, err = run("query", "What does the policy engine grant?", "--index", "notes",
                         "--llm", "extractive", "--retrieval", retrieval, "--trace")
    assert code == 0 and f"retrieval {retrieval}" in err
    assert "keyword search" in out.split("Trace:", 1)[1] and "[1] trust.txt" in out
    code, out, err = run("chat", "--index", "notes", "--llm", "extractive", "--save",
                         "--retrieval", retrieval, stdin="What do tomatoes need?\n/trace\n")
    assert code == 0 and "garden.md" in out and "keyword search" in out
    [saved] = (tmp_path / "ws" / "chats").glob("*.json")
    assert json.loads(saved.read_text())["settings"]["retrieval_mode"] == retrieval


def test_keyword_retrieval_finds_nothing_without_a_shared_word(run):
    code, out, _ = run("retrieve", "astronomy telescopes", "--index", "notes",
                       "--retrieval", "keyword")
    assert code == 0 and "No passages found." in out


def test_unknown_retrieval_is_a_usage_error(run, capsys):
    with pytest.raises(SystemExit) as exc:
        run("retrieve", "q", "--index", "notes", "--retrieval", "bm25")
    assert exc.value.code == 2


def test_hybrid_is_the_default_retrieval_of_query_and_chat(run, tmp_path):
    code, out, err = run("query", "What does the policy engine grant?", "--index", "notes",
                         "--llm", "extractive", "--trace")
    assert code == 0 and "retrieval hybrid" in err
    assert "fuse" in out.split("Trace:", 1)[1] and "[1] trust.txt" in out
    code, out, _ = run("chat", "--index", "notes", "--llm", "extractive", "--save",
                       stdin="What do tomatoes need?\n/trace\n")
    assert code == 0 and "fuse" in out
    [saved] = (tmp_path / "ws" / "chats").glob("*.json")
    assert json.loads(saved.read_text())["settings"]["retrieval_mode"] == "hybrid"


def test_chat_tells_on_stderr_what_it_reads_and_that_it_checks(run):
    code, out, err = run("chat", "--index", "notes", "--llm", "extractive",
                         stdin="What does the policy engine grant?\n")
    assert code == 0
    lines = err.splitlines()
    found = next(i for i, line in enumerate(lines) if line.startswith("Passages found ("))
    assert "choosing the sentences the model reads" in lines[found]  # as the search returns
    read = next(i for i, line in enumerate(lines) if "being read by the model" in line)
    assert found < read < lines.index("Checking the answer against the passages…")
    assert "Checking" not in out and "policy engine" in out.split("assistant> ")[1].lower()
