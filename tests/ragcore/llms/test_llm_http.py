"""The shared HTTP layer: option checks, error bodies, retries, redirects, time limits
(MockTransport)."""

from __future__ import annotations

import time

import httpx
import pytest

from ragcore.errors import (
    ConfigError,
    LLMConnectionError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
)
from ragcore.http.client import (
    Connection,
    Deadline,
    check_base_url,
    error_message_of,
    is_loopback,
    make_timeout,
    quote,
)


def connection(handler, **options) -> Connection:
    return Connection(kind="Test server", base_url="http://models.example:8000", model="m",
                      timeout=make_timeout(1.0), retry_backoff=0.0,
                      client=httpx.Client(transport=httpx.MockTransport(handler)), **options)


@pytest.mark.parametrize(
    "body, message",
    [
        (b'{"error": "model \\"x\\" not found, try pulling it first"}',
         'model "x" not found, try pulling it first'),
        (b'{"error": {"message": "Invalid key", "type": "invalid_request_error"}}', "Invalid key"),
        (b'{"detail": "Not Found"}', "Not Found"),
        (b"<html>502 Bad Gateway</html>", "<html>502 Bad Gateway</html>"),
    ],
)
def test_error_message_of_reads_each_servers_shape(body, message):
    assert error_message_of(body) == message


def test_check_base_url_strips_the_slash_and_rejects_non_urls():
    assert check_base_url("http://127.0.0.1:11434/ ") == "http://127.0.0.1:11434"
    with pytest.raises(ConfigError, match="http://127.0.0.1:11434"):
        check_base_url("127.0.0.1:11434")


def test_make_timeout_keeps_connecting_short_and_reading_long():
    timeout = make_timeout(300)
    assert (timeout.connect, timeout.read) == (5.0, 300.0)
    assert make_timeout(0.2).connect == 0.2
    with pytest.raises(ConfigError, match="timeout"):
        make_timeout(0)


def test_quote_shortens_long_lines():
    assert quote("x" * 500).endswith("...'") and len(quote("x" * 500)) < 220


def test_loopback_detection_bypasses_proxies_only_locally():
    assert is_loopback("http://127.0.0.1:11434") and is_loopback("http://localhost:1234/v1")
    assert not is_loopback("https://api.openai.com/v1")


def test_connection_errors_are_retried_with_a_bound():
    calls = []

    def refuse(request):
        calls.append(request)
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(LLMConnectionError, match="Could not connect to Test server"):
        connection(refuse, max_retries=3).request_json("GET", "/x")
    assert len(calls) == 4


def test_a_redirect_says_which_address_to_use():
    def redirect(request):
        return httpx.Response(307, headers={"location": "https://models.example/v1/x"})

    with pytest.raises(LLMStatusError, match="https://models.example/v1/x") as info:
        connection(redirect).request_json("GET", "/x")
    assert info.value.status_code == 307


def test_a_reply_that_is_not_json_is_quoted():
    def html(request):
        return httpx.Response(200, text="<html>login page</html>")

    with pytest.raises(LLMResponseError, match="login page"):
        connection(html).request_json("GET", "/models")


def test_status_hint_is_used_when_given():
    def missing(request):
        return httpx.Response(404, json={"error": "no such model"})

    conn = connection(missing, status_hint=lambda status, message, path: f"hint for {path}")
    with pytest.raises(LLMStatusError, match="hint for /x"):
        conn.request_json("POST", "/x", {"a": 1})


def test_bad_retry_options():
    with pytest.raises(ConfigError, match="max_retries"):
        connection(lambda r: httpx.Response(200), max_retries=-1)


def test_a_body_that_cannot_be_decoded_is_a_response_error():
    def bad_gzip(request):
        return httpx.Response(200, headers={"content-encoding": "gzip"},
                              stream=httpx.ByteStream(b"not gzip"))

    with pytest.raises(LLMResponseError, match="could not be decoded"):
        connection(bad_gzip).request_json("GET", "/x")
    conn = connection(bad_gzip)
    with pytest.raises(LLMResponseError, match="could not be decoded"):
        list(conn.stream("/x", {}, lambda lines: iter(list(lines))))


def test_no_single_read_may_wait_longer_than_the_whole_time_limit():
    bounded = Deadline.start(10.0).bound(make_timeout(300))
    assert (bounded.connect, bounded.read) == (5.0, 10.0)
    assert Deadline.start(10.0).bound(make_timeout(2)).read == 2.0
    assert Deadline.start(10.0).bound(httpx.Timeout(None)).read == 10.0
    with pytest.raises(ConfigError, match="request_timeout"):
        connection(lambda r: httpx.Response(200), request_timeout=0)


def test_a_body_that_trickles_past_the_time_limit_is_cut_off():
    class Trickle(httpx.SyncByteStream):
        def __iter__(self):
            for _ in range(100):
                time.sleep(0.02)
                yield b" "

    def slow(request):
        return httpx.Response(200, stream=Trickle())

    start = time.monotonic()
    with pytest.raises(LLMTimeoutError, match="time limit of 0.2 s") as info:
        connection(slow, request_timeout=0.2).request_json("GET", "/x")
    assert time.monotonic() - start < 0.5 and info.value.seconds == 0.2
    assert "Test server at http://models.example:8000 (model m)" in str(info.value)
