"""Finding an Ollama's models and downloading one: the pull decoder, then real loopback HTTP."""

from __future__ import annotations

import json

import pytest
from support.loopback import LoopbackServer, Reply, loopback, unused_url  # noqa: F401 (fixture)

from ragcore.errors import LLMConnectionError, LLMResponseError, LLMStatusError
from ragcore.http.client import ServerStreamError, StreamFormatError, StreamIncomplete
from ragcore.llms.ollama_models import (
    OllamaModel,
    PullProgress,
    decode_pull_stream,
    list_ollama_models_detailed,
    parse_ollama_tags,
    pull_ollama_model,
)

GB = 1_000_000_000


def ndjson(*objects) -> list[str]:
    return [json.dumps(o) for o in objects]


# --- the pure decoder ------------------------------------------------------------------------


def test_pull_progress_sums_the_layers_announced_so_far():
    lines = ndjson(
        {"status": "pulling manifest"},
        {"status": "pulling aaa", "digest": "sha256:aaa", "total": 3 * GB, "completed": GB},
        {"status": "pulling bbb", "digest": "sha256:bbb", "total": GB, "completed": 0},
        {"status": "pulling aaa", "digest": "sha256:aaa", "total": 3 * GB, "completed": 3 * GB},
        {"status": "verifying sha256 digest"},
        {"status": "success"},
        {"status": "never read"},
    )
    events = list(decode_pull_stream(["", *lines]))
    assert [e.status for e in events] == ["pulling manifest", "pulling aaa", "pulling bbb",
                                          "pulling aaa", "verifying sha256 digest", "success"]
    assert events[0].fraction is None  # nothing announced yet: no bar to fill
    assert [e.fraction for e in events[1:4]] == [1 / 3, 0.25, 0.75]
    assert events[-1] == PullProgress("success", 3 * GB, 4 * GB, done=True)


def test_pull_errors_and_unreadable_lines_are_told_apart():
    with pytest.raises(ServerStreamError, match="file does not exist"):
        list(decode_pull_stream(ndjson({"status": "pulling manifest"},
                                       {"error": "pull model manifest: file does not exist"})))
    with pytest.raises(StreamIncomplete, match="success"):
        list(decode_pull_stream(ndjson({"status": "pulling manifest"})))
    with pytest.raises(StreamFormatError, match="status"):
        list(decode_pull_stream(ndjson({"digest": "sha256:x"})))
    with pytest.raises(StreamFormatError, match="not JSON"):
        list(decode_pull_stream(["<html>"]))


def test_tags_are_read_with_sizes_and_details():
    data = {"models": [
        {"name": "llama3.2:1b", "size": 1321098329,
         "details": {"parameter_size": "1.2B", "quantization_level": "Q8_0", "family": "llama"}},
        {"model": "qwen2.5:0.5b"}, "junk"]}
    assert parse_ollama_tags(data) == [
        OllamaModel("llama3.2:1b", 1321098329, "1.2B", "Q8_0", "llama"),
        OllamaModel("qwen2.5:0.5b")]
    with pytest.raises(LLMResponseError, match="is this Ollama"):
        parse_ollama_tags({"data": []})


# --- against the loopback Ollama ------------------------------------------------------------


def test_the_models_of_a_running_ollama_are_listed_with_sizes(loopback):
    models = list_ollama_models_detailed(loopback.ollama_url)
    assert [m.name for m in models] == list(loopback.models)
    assert models[0].size == 4661224676 and models[0].parameters == "8.0B"


def test_no_ollama_running_is_said_with_how_to_start_it():
    with pytest.raises(LLMConnectionError, match="ollama serve"):
        list_ollama_models_detailed(unused_url())
    with pytest.raises(LLMConnectionError, match="Could not reach Ollama .* to download x.*"
                                                  "ollama serve"):
        list(pull_ollama_model("x", unused_url()))


def test_a_pull_reports_progress_to_success_and_the_model_is_then_listed(loopback):
    loopback.queue(Reply(pull_size=4 * GB, pull_steps=4))
    events = list(pull_ollama_model("llama3.2:1b", loopback.ollama_url))
    assert [e.fraction for e in events if e.fraction is not None][:4] == [0.25, 0.5, 0.75, 1.0]
    assert events[0].status == "pulling manifest" and events[-1].done
    assert loopback.requests_to("/api/pull")[0].json == {"model": "llama3.2:1b", "stream": True}
    assert "llama3.2:1b" in [m.name for m in list_ollama_models_detailed(loopback.ollama_url)]


def test_a_pull_that_fails_half_way_says_how_far_it_got_and_what_to_do(loopback):
    loopback.queue(Reply(pull_size=4 * GB, pull_error_after=2,
                         error="max retries exceeded: write /root/.ollama: no space left"))
    seen = []
    with pytest.raises(LLMResponseError) as caught:
        for event in pull_ollama_model("llama3.2:1b", loopback.ollama_url):
            seen.append(event)
    assert [e.fraction for e in seen[1:]] == [0.25, 0.5]
    message = str(caught.value)
    assert "could not download llama3.2:1b after 2.00 GB of 4.00 GB (50%)" in message
    assert "no space left" in message and "free disk space" in message
    assert "llama3.2:1b" not in loopback.models  # nothing half-downloaded is listed


def test_a_pull_whose_connection_breaks_half_way_says_so(loopback):
    loopback.queue(Reply(pull_size=4 * GB, reset_after=3))
    with pytest.raises(LLMConnectionError, match=r"download of big from .* broke off after 3.00 "
                                                 r"GB of 4.00 GB \(75%\).*still running"):
        list(pull_ollama_model("big", loopback.ollama_url))


def test_an_unknown_model_name_points_at_the_library(loopback):
    loopback.queue(Reply(pull_error_after=0, error="pull model manifest: file does not exist"))
    with pytest.raises(LLMResponseError, match="file does not exist.*ollama.com/library"):
        list(pull_ollama_model("lama9", loopback.ollama_url))
    loopback.queue(Reply(status=400, error="invalid model name"))
    with pytest.raises(LLMStatusError, match="refused to download x.*HTTP 400.*library"):
        list(pull_ollama_model("x", loopback.ollama_url))


def test_closing_the_pull_stops_the_download(loopback):
    loopback.queue(Reply(pull_size=4 * GB, pull_steps=40, chunk_delay=0.05))
    pull = pull_ollama_model("llama3.2:1b", loopback.ollama_url)
    assert next(pull).status == "pulling manifest"
    next(pull)
    pull.close()  # the Stop button
    request = loopback.requests_to("/api/pull")[0]
    assert request.done.wait(5) and request.client_closed
    assert "llama3.2:1b" not in loopback.models


def test_a_download_that_goes_silent_is_said_to_have(loopback):
    loopback.queue(Reply(pull_steps=4, chunk_delay=2.0))
    with pytest.raises(LLMConnectionError, match="download of x from .* went silent"):
        list(pull_ollama_model("x", loopback.ollama_url, read_timeout=0.3))
