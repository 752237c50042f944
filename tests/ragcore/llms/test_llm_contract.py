"""The LLM contract (ragcore.testing.llm) run against every LLM backend ragcore ships."""

from __future__ import annotations

import pytest
from support.loopback import LoopbackServer, loopback  # noqa: F401 (fixture)

from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.llms.ollama import OllamaLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.testing.llm import ASK, MARK, LLMContract
from ragcore.types import AnswerRequest, Message


class TestFakeLLM(LLMContract):
    expected_reply = "scripted reply, streamed in small chunks"

    def make_llm(self, **options):
        return FakeLLM(default=self.expected_reply, chunk_size=5, **options)

    def sent_messages(self, llm):
        return llm.calls[-1]


class TestExtractiveLLM(LLMContract):
    # It answers the request an engine hands it (with_request), not the messages: given ASK's
    # request, the contract checks the reply quotes ASK's context.
    def make_llm(self, **options):
        question, context = "What is the zebra code?", f"The zebra code is {MARK}."
        return ExtractiveLLM(**options).with_request(AnswerRequest("qa", question, (context,)))


class ServerContract(LLMContract):
    """The loopback server echoes the last user message, so replies are known exactly."""

    timeout_option = True
    expected_reply = "Echo: " + ASK[-1].content

    @pytest.fixture(autouse=True)
    def _server(self, loopback: LoopbackServer) -> None:
        self.server = loopback

    def sent_messages(self, llm):
        body = self.server.requests[-1].json
        return [Message(m["role"], m["content"]) for m in body["messages"]]


class TestOllamaLLM(ServerContract):
    def make_llm(self, **options):
        return OllamaLLM(model="llama3.1", base_url=self.server.ollama_url, retry_backoff=0.0,
                         **options)


class TestOpenAILLM(ServerContract):
    def make_llm(self, **options):
        return OpenAILLM(model="gpt-4o-mini", base_url=self.server.openai_url, api_key="k",
                         retry_backoff=0.0, **options)
