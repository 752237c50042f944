"""Independent calls (tree levels, accumulate) run concurrently and still come back in order.

Concurrency is proven with barriers (a call waits until N calls are in flight at once), not with
sleeps, and ordering by making later chunks finish first.
"""

from __future__ import annotations

import threading

import pytest

from ragcore.llms import FakeLLM
from ragcore.synthesis import Synthesizer
from ragcore.types import Node, ScoredNode

WAIT = 10  # seconds before a barrier gives up: only reached if the code is wrong


def nodes(count: int, words: int = 60) -> list[ScoredNode]:
    return [
        ScoredNode(Node(f"Chunk{i} " + "water " * words, node_id=f"n{i}"), 1.0 - i / 100)
        for i in range(count)
    ]


def chunk_number(messages) -> int:
    context = messages[-1].content
    return int(context.split("Chunk", 1)[1].split()[0])


def test_accumulate_runs_calls_concurrently_and_keeps_chunk_order():
    barrier = threading.Barrier(3, timeout=WAIT)
    last_done = threading.Event()

    def reply(messages):
        number = chunk_number(messages)
        barrier.wait()  # three calls are in flight together, or this raises
        if number == 1:
            assert last_done.wait(WAIT)  # chunk 1 finishes after chunk 2
        if number == 2:
            last_done.set()
        return f"answer {number}"

    llm = FakeLLM(default=reply)
    response = Synthesizer(llm, response_mode="accumulate", max_concurrency=3).synthesize(
        "q", nodes(3)
    )
    assert response.text == (
        "Response 1: answer 0\n\n---\n\nResponse 2: answer 1\n\n---\n\nResponse 3: answer 2"
    )


def test_tree_level_calls_run_concurrently_and_the_root_sees_them_in_order():
    level_calls = 4
    barrier = threading.Barrier(level_calls, timeout=WAIT)

    def reply(messages):
        if "Chunk" not in messages[-1].content:
            return "root answer"
        first = chunk_number(messages)
        barrier.wait()
        return f"summary from chunk {first}"

    llm = FakeLLM(default=reply, context_window=330, num_output=30)
    synthesizer = Synthesizer(llm, response_mode="tree_summarize", max_concurrency=level_calls)
    response = synthesizer.synthesize("q", nodes(level_calls, words=150))
    assert response.text == "root answer"
    root_prompt = llm.calls[-1][-1].content
    positions = [root_prompt.index(f"summary from chunk {i}") for i in range(level_calls)]
    assert positions == sorted(positions)


@pytest.mark.parametrize("limit", [1, 2])
def test_never_more_calls_in_flight_than_max_concurrency(limit):
    lock = threading.Lock()
    active = peak = 0

    def reply(messages):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        with lock:
            active -= 1
        return "ok"

    llm = FakeLLM(default=reply)
    response = Synthesizer(llm, response_mode="accumulate", max_concurrency=limit).synthesize(
        "q", nodes(6)
    )
    assert response.text.count("Response ") == 6
    assert peak <= limit
