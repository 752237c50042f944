"""llama.cpp's streamed chunks, read: the text of one, and a whole reply made from all of them.

Every request goes to llama.cpp streamed, even one whose caller wants the whole reply (the
not-found gate's log-probabilities, a grammar's choice, a tool call): only a streamed request
calls back while the prompt is read (``prompt_progress``, one chunk per batch), and only a call
back can stop it (``engine``). ``whole_reply`` then gives such a caller the reply in the shape
of a non-streamed one (``choices[0].message``, its ``logprobs``, ``timings``), as if it had
been asked for whole. Pure functions: the tests read them without a model.
"""

from __future__ import annotations

from typing import Any, Iterable

from ...errors import LLMResponseError


def chunk_text(chunk: Any) -> str:
    """The text of one streamed chunk; an ``{"error": ...}`` chunk raises."""
    raise_error(chunk)
    delta = _choice(chunk).get("delta") or {}
    return delta.get("content") or ""


def finish_reason(chunk: Any) -> str | None:
    """Why llama.cpp ended the reply ``chunk`` ends ("stop", "length": its cap), else None."""
    return _choice(chunk).get("finish_reason") or None


def is_last(chunk: Any) -> bool:
    """Whether ``chunk`` ends a reply llama.cpp wrote to its end (it says why it finished)."""
    return finish_reason(chunk) is not None


def whole_reply(chunks: Iterable[Any]) -> dict[str, Any]:
    """The non-streamed reply object that the streamed ``chunks`` of one reply make up: the
    deltas' text joined, their tool calls merged by index, their log-probabilities in order."""
    content: list[str] = []
    logprobs: list[Any] = []
    calls: dict[int, dict[str, Any]] = {}
    reply: dict[str, Any] = {}
    finish = None
    for chunk in chunks:
        raise_error(chunk)
        choice = _choice(chunk)
        delta = choice.get("delta") or {}
        content.append(delta.get("content") or "")
        for call in delta.get("tool_calls") or []:
            _merge_call(calls.setdefault(call.get("index", len(calls)), {}), call)
        logprobs.extend((choice.get("logprobs") or {}).get("content") or [])
        finish = choice.get("finish_reason") or finish
        reply.update({k: v for k, v in chunk.items() if k in ("timings", "usage", "model")})
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    choice = {"index": 0, "finish_reason": finish, "message": message}
    if logprobs:
        choice["logprobs"] = {"content": logprobs}
    if "usage" not in reply and isinstance(reply.get("timings"), dict):
        reply["usage"] = _usage(reply["timings"])
    return {**reply, "object": "chat.completion", "choices": [choice]}


def _usage(timings: dict[str, Any]) -> dict[str, Any]:
    """The token counts a whole reply states (``usage``), from a streamed one's ``timings``."""
    cached, read = int(timings.get("cache_n", 0)), int(timings.get("prompt_n", 0))
    written = int(timings.get("predicted_n", 0))
    return {"completion_tokens": written, "prompt_tokens": cached + read,
            "total_tokens": cached + read + written,
            "prompt_tokens_details": {"cached_tokens": cached}}


def _merge_call(whole: dict[str, Any], delta: dict[str, Any]) -> None:
    """Fold one streamed piece of a tool call into the call (its arguments come in pieces)."""
    for key in ("id", "type"):
        if delta.get(key):
            whole[key] = delta[key]
    function = whole.setdefault("function", {"name": "", "arguments": ""})
    piece = delta.get("function") or {}
    if piece.get("name"):
        function["name"] = piece["name"]
    function["arguments"] += piece.get("arguments") or ""


def _choice(chunk: Any) -> dict[str, Any]:
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    return choices[0] if choices and isinstance(choices[0], dict) else {}


def raise_error(reply: Any) -> None:
    """Raise the ``{"error": ...}`` llama.cpp replied with, said so a person can act on it."""
    if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
        error = reply["error"]
        message = error.get("message", "unknown error")
        if error.get("type") == "exceed_context_size_error":
            raise LLMResponseError(
                f"the local model's window is too small for this prompt ({message}): raise "
                "context_window (Settings, 'Context window') or retrieve fewer passages")
        raise LLMResponseError(f"the local model refused the request: {message}")
