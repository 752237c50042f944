"""LLMContract: the LLM protocol as tests, for any backend, wherever it is written.

Subclass it in your own test file and say how to build your backend with the options given::

    from ragcore.testing.llm import LLMContract

    class TestMyLLM(LLMContract):
        timeout_option = True  # a server backend takes timeout=

        def make_llm(self, **options):
            return MyLLM(model="m", base_url=self.server_url, **options)

        def sent_messages(self, llm):  # optional: what the model last received
            return my_server.last_request_messages()

The suite checks what every engine relies on: ``stream`` returns an iterator of ``str`` chunks
whose join is the whole reply, ``complete`` drains that same stream, the messages reach the
model in order with their roles (seen through ``sent_messages`` when you can show them, else in
the reply, which must then quote the context it was given), ``model``, ``context_window`` and
``num_output`` are sound, and the options every backend shares are accepted and kept:
``context_window=``/``num_output=`` (``window_options``) and, for servers, ``timeout=``
(``timeout_option``), with a bad timeout refused by a ``ConfigError`` where it is built.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from ..errors import ConfigError
from ..llms.base import LLM, complete
from ..types import Message

MARK = "PELICAN-42"  # a token no model would say unless the messages reached it
ASK = [
    Message("system", "Answer from the context."),
    Message("user", f"Context:\nThe zebra code is {MARK}.\n\nQuestion: What is the zebra code?"),
]
CONVERSATION = [
    Message("system", "Be brief."),
    Message("user", "My name is Ada."),
    Message("assistant", "Hello Ada."),
    Message("user", "What is my name?"),
]


class LLMContract:
    """Subclass, implement ``make_llm``; every ``test_*`` below then runs on your backend."""

    window_options: ClassVar[bool] = True  # make_llm takes context_window= and num_output=
    timeout_option: ClassVar[bool] = False  # make_llm takes timeout= (seconds)
    deterministic: ClassVar[bool] = True  # the same messages get the same reply
    expected_reply: ClassVar[str | None] = None  # the reply to ASK, when it is known exactly

    def make_llm(self, **options: Any) -> LLM:
        """Your backend, built with ``options`` (keyword options of its constructor)."""
        raise NotImplementedError("subclass LLMContract and build your LLM in make_llm(**options)")

    def sent_messages(self, llm: LLM) -> list[Message] | None:
        """The messages the model last received, if the test can see them, else None."""
        return None

    def test_it_is_an_llm_with_a_sound_window(self) -> None:
        llm = self.make_llm()
        assert isinstance(llm, LLM)
        assert isinstance(llm.model, str) and llm.model.strip()
        assert isinstance(llm.context_window, int) and isinstance(llm.num_output, int)
        assert 0 < llm.num_output < llm.context_window

    def test_stream_yields_text_chunks_that_join_to_the_reply(self) -> None:
        llm = self.make_llm()
        stream = llm.stream(ASK)
        assert iter(stream) is stream, "stream() must return an iterator, not a finished list"
        chunks = list(stream)
        assert chunks and all(isinstance(chunk, str) for chunk in chunks), chunks
        reply = "".join(chunks)
        assert reply.strip()
        if self.expected_reply is not None:
            assert reply == self.expected_reply

    def test_complete_drains_the_same_stream(self) -> None:
        if not self.deterministic:
            pytest.skip("replies vary from call to call")
        llm = self.make_llm()
        assert complete(llm, ASK) == "".join(llm.stream(ASK))

    def test_the_messages_reach_the_model(self) -> None:
        llm = self.make_llm()
        reply = complete(llm, ASK)
        seen = self.sent_messages(llm)
        if seen is None:
            assert MARK in reply, "the reply does not show the messages arrived: " \
                "override sent_messages to show what the model received"
        else:
            assert [(m.role, m.content) for m in seen] == [(m.role, m.content) for m in ASK]

    def test_a_conversation_keeps_its_roles_and_order(self) -> None:
        llm = self.make_llm()
        complete(llm, CONVERSATION)
        seen = self.sent_messages(llm)
        if seen is None:
            pytest.skip("this backend cannot show what the model received")
        assert [(m.role, m.content) for m in seen] == [(m.role, m.content) for m in CONVERSATION]

    def test_the_window_options_are_accepted_and_kept(self) -> None:
        if not self.window_options:
            pytest.skip("this backend takes no context_window=/num_output=")
        llm = self.make_llm(context_window=2048, num_output=128)
        assert (llm.context_window, llm.num_output) == (2048, 128)
        assert complete(llm, ASK).strip()

    def test_a_timeout_is_accepted_and_a_bad_one_refused(self) -> None:
        if not self.timeout_option:
            pytest.skip("this backend takes no timeout=")
        assert complete(self.make_llm(timeout=30.0), ASK).strip()
        with pytest.raises(ConfigError, match="timeout"):
            self.make_llm(timeout=0)
