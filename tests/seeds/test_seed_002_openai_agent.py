"""Seed 002, "OpenAIAgent": an agent over function tools, against a loopback OpenAI server."""

from pprint import pprint
from typing import Sequence

import pytest
from support.loopback import Reply, loopback  # noqa: F401  (the fixture)

from ragcore.compat.agent import OpenAIAgent
from ragcore.compat.core.tools import BaseTool, FunctionTool
from ragcore.compat.llms.openai import OpenAI

JOKE = "Why did the scarecrow win an award? Because he was outstanding in his field!"


def random_joke() -> str:
    """Tell a random joke."""
    return JOKE


def translate(string: str) -> str:
    """Translate the string into French."""
    return {JOKE: "Pourquoi l'epouvantail a-t-il gagne un prix ? Il etait excellent dans son "
                  "domaine !"}.get(string, string)


@pytest.fixture
def model(loopback):
    loopback.queue(
        Reply(tool_calls=[("random_joke", {})]),
        Reply(tool_calls=[("translate", {"string": JOKE})]),
        Reply(text="Pourquoi l'epouvantail a-t-il gagne un prix ? Il etait excellent dans son "
                   "domaine !"),
    )
    return OpenAI(model="gpt-4o-mini", api_base=loopback.openai_url, api_key="sk-loopback")


def test_seed_openai_agent_calls_both_tools(model, loopback, capsys):
    human_input = "Tell me a joke, in French."

    func_tools: Sequence[BaseTool] = list(map(lambda f: FunctionTool.from_defaults(fn=f), [random_joke, translate] ))
    openai_agent = OpenAIAgent.from_tools(
    tools=func_tools,
    llm=model,
    verbose=True
    )
    res = openai_agent.chat(human_input)
    print("\nFinal result")
    pprint(res)

    assert res.response.startswith("Pourquoi l'epouvantail")
    assert [o.tool_name for o in res.tool_outputs] == ["random_joke", "translate"]
    assert res.tool_outputs[1].raw_input == {"string": JOKE}
    printed = capsys.readouterr().out
    assert "random_joke" in printed and "translate" in printed  # verbose=True showed the steps
    sent = loopback.requests_to("/v1/chat/completions")[0].json
    assert [t["function"]["name"] for t in sent["tools"]] == ["random_joke", "translate"]
    # The session owns the conversation, as a LlamaIndex agent does.
    assert [m.role for m in openai_agent.chat_history] == ["user", "assistant"]
    openai_agent.reset()
    assert openai_agent.chat_history == []
