"""Servers that push back or misbehave: Retry-After on 429, honoured only within the time limit."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.errors import LLMResponseError, LLMStatusError
from ragcore.http.options import retry_after_seconds
from ragcore.llms import complete
from ragcore.llms.ollama import OllamaLLM
from ragcore.types import Message


def ask(llm) -> str:
    return complete(llm, [Message("user", "Hi?")])


def test_retry_after_in_seconds_is_waited_for_then_the_request_succeeds(loopback):
    loopback.queue(Reply(status=429, error="slow down", retry_after="1"), Reply(text="Hello."))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url, retry_backoff=0.01)
    started = time.monotonic()
    assert ask(llm) == "Hello."
    assert time.monotonic() - started >= 0.95  # it waited as asked, not the 0.01 s backoff
    assert len([r for r in loopback.requests if r.method == "POST"]) == 2


def test_a_wait_longer_than_the_time_left_fails_at_once_saying_so(loopback):
    loopback.queue(Reply(status=429, error="quota", retry_after="120"))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url, request_timeout=10)
    started = time.monotonic()
    with pytest.raises(LLMStatusError, match=r"asked to wait 120 s") as caught:
        ask(llm)
    assert caught.value.status_code == 429
    assert time.monotonic() - started < 5


def test_a_429_without_retry_after_is_not_retried(loopback):
    loopback.queue(Reply(status=429, error="quota"), Reply(text="never"))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url, retry_backoff=0.01)
    with pytest.raises(LLMStatusError, match="429"):
        ask(llm)


def test_retry_after_as_an_http_date():
    soon = datetime.now(timezone.utc) + timedelta(seconds=30)
    assert 25 <= retry_after_seconds(format_datetime(soon, usegmt=True)) <= 31
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


@pytest.mark.parametrize("status", [401, 403])
def test_ollama_access_errors_blame_a_proxy_not_a_missing_openai_key(loopback, status):
    loopback.queue(Reply(status=status, error="unauthorized"))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url)
    with pytest.raises(LLMStatusError) as caught:
        ask(llm)
    text = str(caught.value)
    assert "does not use API keys" in text and "proxy" in text
    assert "OPENAI_API_KEY" not in text


def test_an_endless_reply_is_cut_at_the_size_cap_with_a_clear_error(loopback):
    loopback.queue(Reply(chunks=["x" * 1000], stream_for=30.0))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url, num_output=1000)
    received = []
    started = time.monotonic()
    with pytest.raises(LLMResponseError, match="longer than 64000 characters"):
        for chunk in llm.stream([Message("user", "Hi?")]):
            received.append(chunk)
    assert sum(map(len, received)) <= 64_000
    assert time.monotonic() - started < 15
