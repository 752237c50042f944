"""The slot a request is pinned to (``ragcore.llms.local.slot_choice``): the one whose cached
prompt it continues, never a busy one while another is free; then the same through
``LocalEngine`` (a scripted llama.cpp server, and the real packaged model)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragcore.llms import local_models
from ragcore.llms.local import PRIMERS
from ragcore.llms.local.slot_choice import MIN_SHARED_CHARS, SlotChoice, prompt_text

SETTLE = 30  # seconds a test waits for another thread before calling it a hang (not a measure)
QUERY, CHAT = PRIMERS


def _primer(text: str) -> str:
    return prompt_text({"messages": [{"role": "system", "content": text},
                                     {"role": "user", "content": "Ready?"}]})


def _answer(passages: str, question: str) -> str:
    return prompt_text({"messages": [{"role": "system", "content": f"{CHAT}{passages}"},
                                     {"role": "user", "content": question}]})


def _rewrite(question: str) -> str:
    return prompt_text({"messages": [
        {"role": "system", "content": "You rewrite the user's latest message as a question."},
        {"role": "user", "content": f"Conversation:\nuser: ...\n\nFollow-up: {question}"}]})


def _primed() -> SlotChoice:
    """Two slots as the engine leaves them at load: the query's primer, then the chat's."""
    choice = SlotChoice(2)
    choice.holds(0, _primer(QUERY))
    choice.holds(1, _primer(CHAT))
    return choice


def _ask(choice: SlotChoice, prompt: str) -> int | None:
    slot = choice.take(prompt)
    choice.give_back(slot)
    return slot


def test_a_chat_keeps_its_answers_in_one_slot_and_its_rewrites_and_title_in_the_other():
    # Issue 65: llama.cpp put a follow-up's rewrite in the slot holding the last answer, so the
    # next answer read its whole prompt anew (541 tokens, 4 cached).
    choice = _primed()
    assert _ask(choice, _answer("[1] Ford invests $11 billion.", "Ford?")) == 1  # its primer
    assert _ask(choice, _answer("[1] Ford invests $11 billion.", "Claim?")) == 1  # the check
    assert _ask(choice, prompt_text({"messages": [
        {"role": "user", "content": "Write a title ... Question: Ford?"}]})) == 0  # the title
    for turn, question in enumerate(("And GM?", "Why?", "And Intel?")):
        assert _ask(choice, _rewrite(question)) == 0, turn
        assert _ask(choice, _answer(f"[{turn}] other passages", question)) == 1, turn
    assert _ask(choice, prompt_text({"messages": [
        {"role": "system", "content": QUERY}, {"role": "user", "content": "Context: ..."}]})) == 0


def test_a_prompt_goes_to_the_slot_it_shares_the_most_with():
    choice = SlotChoice(2)
    long, longer = "x" * MIN_SHARED_CHARS, "x" * (2 * MIN_SHARED_CHARS)
    choice.holds(0, long + "a")
    choice.holds(1, longer + "b")
    assert _ask(choice, longer + "c") == 1
    assert _ask(choice, long + "d") == 0  # slot 1 now holds "longer + c": equal shares, first
    assert choice.held() == [long + "d", longer + "c"]


def test_a_busy_slot_is_never_chosen_while_another_is_free():
    choice = _primed()
    answer = _answer("[1] passages", "Ford?")
    assert choice.take(answer) == 1  # running: a stopped reply not yet let go, say
    assert choice.take(answer) == 0  # its check would wait for slot 1: it reads anew instead
    assert choice.take(answer) is None  # every slot busy: left to llama.cpp's queue
    choice.give_back(1)
    assert choice.take(answer) == 1


def test_a_reload_forgets_what_the_slots_held():
    choice = _primed()
    choice.emptied()
    assert choice.held() == ["", ""]
    assert _ask(choice, _answer("[1] passages", "Ford?")) == 0  # nothing shared: the first


def test_the_prompt_text_follows_the_rendered_order():
    tools = [{"type": "function", "function": {"name": "search_documents"}}]
    body = {"tools": tools, "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    text = prompt_text(body)
    assert text.index("search_documents") < text.index("<system>Be brief.")
    assert text.index('"id": "1"') < text.index('<user>[{"text": "hi"')


# -- through the engine ---------------------------------------------------------------------------

class PinnedServer:
    """llama.cpp's server as slots see it: the body's ``id_slot``, a reply held until told."""

    def __init__(self) -> None:
        self.pinned: list[int | None] = []
        self.release = threading.Event()

    def handle_chat_completions(self, body, take):
        self.pinned.append(body.get("id_slot"))
        if body.get("hold"):
            self.release.wait(SETTLE)
        take({"choices": [{"delta": {"content": "ok"}}]})
        take({"choices": [{"delta": {}, "finish_reason": "stop"}]})


def test_the_engine_pins_every_request_and_spares_the_slot_a_request_still_runs_in(
        monkeypatch):
    from ragcore.llms.local import engine as engine_module

    server = PinnedServer()
    monkeypatch.setattr(engine_module, "_load_server", lambda config, threads: server)
    engine = engine_module.LocalEngine(engine_module.EngineConfig(
        Path("scripted.gguf"), 256, 1, 2, primers=(QUERY, CHAT)))
    answer = {"messages": [{"role": "system", "content": f"{CHAT}[1] passages"},
                           {"role": "user", "content": "Ford?"}]}
    assert engine.complete(answer)["choices"][0]["message"]["content"] == "ok"
    held = engine.stream({**answer, "hold": True})  # a reply still decoding in slot 1
    reader = threading.Thread(target=lambda: list(held), daemon=True)
    engine.slots = engine_module.SlotQueue(2)  # two at once, as llama.cpp's slots allow
    reader.start()
    while len(server.pinned) < 4:
        threading.Event().wait(0.01)
    engine.complete(answer)  # its slot is busy: the other, not a wait behind it
    server.release.set()
    reader.join(SETTLE)
    assert server.pinned == [0, 1, 1, 1, 0]  # the primers, the answer, the held one, the next


@pytest.mark.slow
@pytest.mark.skipif(not local_models.SMOLLM2_135M.installed,
                    reason="the packaged models are installed by `make install`")
def test_llama_cpp_reads_a_pinned_answer_from_its_slot_after_a_title_and_a_rewrite():
    """xllamacpp passes ``id_slot`` on to llama.cpp: a chat's next answer reuses the last one's
    instructions, though a title and a rewrite came between (seen failing unpinned)."""
    from ragcore.llms.local import LocalEngine, LocalLLM

    # its own engine, primed: the process's shared one holds what other tests asked
    engine = LocalEngine(LocalLLM("smollm2-135m", num_output=4)._config)

    def cached(system: str, user: str) -> int:
        body = {"messages": [{"role": "system", "content": system},
                             {"role": "user", "content": user}],
                "max_tokens": 2, "temperature": 0.0, "top_k": 1, "cache_prompt": True}
        return engine.complete(body)["timings"]["cache_n"]

    instructions = 30  # smollm2's tokens of the chat's instructions: about 45
    assert cached(f"{CHAT}[1] Ford invests $11 billion.", "How much?") >= instructions  # primed
    assert cached("", "Write a title for: How much does Ford invest?") < 10
    assert cached("You rewrite the user's latest message as a question.", "And GM?") < 10
    # llama.cpp's own choice put the title or the rewrite in the answer's slot: 4 cached
    assert cached(f"{CHAT}[1] GM invests $7 billion.", "How much?") >= instructions
