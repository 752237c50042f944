"""``llama_index.llms.openai.OpenAI``: ragcore's ``OpenAILLM`` with LlamaIndex's calls.

Keywords as in LlamaIndex: ``api_base`` (ragcore's ``base_url``), ``max_tokens`` (the reply cap,
ragcore's ``num_output``), ``timeout`` (the limit for a whole request, ragcore's
``request_timeout``). ``complete``, ``chat``, ``stream_complete`` and ``stream_chat`` are
``compat.llm_calls``; tool calls go through ragcore's agents (``chat_with_tools``).
"""

from __future__ import annotations

from typing import Any

from ...llms.base import DEFAULT_NUM_OUTPUT
from ...llms.openai import OpenAILLM
from .. import llm_calls
from ..refusals import refuse

_HINTS = {
    "additional_kwargs": "ragcore sends model, messages, temperature and max_tokens only",
    "reuse_client": "pass client=httpx.Client(...) to share connections",
    "api_version": "Azure's api_version is not supported: use its OpenAI-compatible v1 URL",
    "logprobs": "ragcore does not read log probabilities",
}


class OpenAI(OpenAILLM):
    """A model behind an OpenAI-compatible server, made with LlamaIndex's keywords."""

    def __init__(
        self,
        model: str = "gpt-3.5-turbo",
        temperature: float | None = None,
        max_tokens: int | None = None,
        api_key: str | None = None,
        api_base: str | None = None,
        timeout: float | None = None,
        max_retries: int = 2,
        **options: Any,
    ) -> None:
        known = {k: options.pop(k) for k in list(options)
                 if k in ("context_window", "client", "base_url")}
        refuse("OpenAI", options, _HINTS)
        if timeout is not None:
            known["request_timeout"] = timeout
        super().__init__(
            model=model, temperature=temperature, api_key=api_key, api_base=api_base,
            num_output=max_tokens or DEFAULT_NUM_OUTPUT, max_retries=max_retries, **known,
        )

    complete = llm_calls.complete
    stream_complete = llm_calls.stream_complete
    chat = llm_calls.chat
    stream_chat = llm_calls.stream_chat
