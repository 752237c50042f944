"""Tools from typed functions and query engines: schemas, validation, outputs, errors."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import pytest
from pydantic import Field

from ragcore.errors import ToolError
from ragcore.tools import FunctionTool, QueryEngineTool, invoke_tool
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode


def int_mult(a: int, b: int) -> int:
    """Multiply two integers and return the product."""
    return a * b


def search(
    query: Annotated[str, "What to look for"],
    tags: list[str],
    limit: Annotated[int, Field(description="Most results to return", ge=1)] = 5,
    since: Optional[str] = None,
    order: Literal["newest", "oldest"] = "newest",
) -> dict:
    """Search the archive.

    Args:
        tags: labels every result must carry
    """
    return {"query": query, "tags": tags, "limit": limit, "since": since, "order": order}


def test_name_description_and_schema_come_from_the_function():
    tool = FunctionTool.from_defaults(int_mult)
    assert tool.metadata.name == "int_mult"
    assert tool.metadata.description == "Multiply two integers and return the product."
    assert tool.to_openai_tool() == {
        "type": "function",
        "function": {
            "name": "int_mult",
            "description": "Multiply two integers and return the product.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
        },
    }


def test_varied_signatures_give_the_expected_schema():
    params = FunctionTool.from_defaults(search).metadata.parameters
    props = params["properties"]
    assert params["required"] == ["query", "tags"]
    assert props["query"] == {"type": "string", "description": "What to look for"}
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert props["tags"]["description"] == "labels every result must carry"  # from Args:
    assert props["limit"]["default"] == 5 and props["limit"]["minimum"] == 1
    assert props["limit"]["description"] == "Most results to return"
    assert {"type": "null"} in props["since"]["anyOf"] and props["since"]["default"] is None
    assert props["order"]["enum"] == ["newest", "oldest"]


def test_name_and_description_can_be_overridden():
    tool = FunctionTool.from_defaults(int_mult, name="times", description="a*b")
    assert (tool.metadata.name, tool.metadata.description) == ("times", "a*b")
    assert tool.to_openai_tool()["function"]["name"] == "times"


def test_call_validates_and_coerces_arguments():
    tool = FunctionTool.from_defaults(int_mult)
    output = tool.call(a=12, b="34")
    assert output.content == "408"
    assert output.raw_output == 408
    assert output.raw_input == {"a": 12, "b": "34"}
    assert output.tool_name == "int_mult" and not output.is_error


def test_structured_results_become_json_content():
    output = FunctionTool.from_defaults(search).call(query="x", tags=["a"])
    assert output.content.startswith('{"query": "x"')
    assert output.raw_output["order"] == "newest"


def test_bad_arguments_raise_one_clear_tool_error():
    tool = FunctionTool.from_defaults(search)
    with pytest.raises(ToolError) as caught:
        tool.call(query="x", limit=0, colour="red", order="random")
    message = str(caught.value)
    for expected in ("'tags' is required", "'limit'", "'colour' is not a parameter", "'order'"):
        assert expected in message
    assert "It takes: query, tags, limit, since, order" in message


def test_a_function_without_type_hints_lists_every_problem():
    def untyped(x, y: int, *args, z, **kwargs):
        return x

    with pytest.raises(ToolError) as caught:
        FunctionTool.from_defaults(untyped)
    message = str(caught.value)
    assert message.count("\n  - ") == 4
    for expected in ("'x' has no type hint", "*args", "'z' has no type hint", "**kwargs"):
        assert expected in message


def test_unusable_names_and_async_functions_are_refused():
    with pytest.raises(ToolError, match="name=..."):
        FunctionTool.from_defaults(lambda x: x)

    async def fetch(url: str) -> str:
        return url

    with pytest.raises(ToolError, match="async"):
        FunctionTool.from_defaults(fetch)


def test_positional_only_parameters_are_passed_positionally():
    def power(base: float, /, exponent: int = 2) -> float:
        """Raise base to a power."""
        return base**exponent

    assert FunctionTool.from_defaults(power).call(base=3).content == "9.0"


class FakeQueryEngine:
    def __init__(self):
        self.questions = []

    def query(self, question, *, trace=None):
        from ragcore.synthesis import Response

        self.questions.append(question)
        node = ScoredNode(Node("Paris is the capital.", metadata={"file_name": "f.txt"}), 0.9)
        return Response.from_text(f"answer to {question}", source_nodes=[node])


def test_query_engine_tool_returns_the_answer_and_keeps_the_sources():
    engine = FakeQueryEngine()
    tool = QueryEngineTool(engine)
    assert tool.metadata.name == "search_documents"
    assert tool.metadata.parameters["required"] == ["input"]
    output = tool.call(input="  capital of France?  ")
    assert output.content == "answer to capital of France?"
    assert output.raw_output.source_nodes[0].file_name == "f.txt"
    with pytest.raises(ToolError, match='"input"'):
        tool.call(query="wrong name")


def test_invoke_tool_turns_every_failure_into_an_error_output():
    def boom(x: int) -> int:
        """Always fails."""
        raise RuntimeError("disk on fire")

    tools = {"boom": FunctionTool.from_defaults(boom)}
    trace = Trace()
    failed = invoke_tool(tools, "boom", {"x": 1}, trace=trace)
    assert failed.is_error and "RuntimeError: disk on fire" in failed.content
    bad = invoke_tool(tools, "boom", {"x": "abc"}, trace=trace)
    assert bad.is_error and "Fix the arguments" in bad.content
    unknown = invoke_tool(tools, "nope", {}, trace=trace)
    assert unknown.is_error and "Use one of: boom" in unknown.content
    assert [s.name for s in trace.stages] == ["tool: boom", "tool: boom"]
    assert trace.stages[0].detail["is_error"] is True


def test_parameters_named_like_pydantic_methods_work_quietly(recwarn):
    def export(schema: str, json: bool = False, model_name: str = "m") -> str:
        """Export a schema."""
        return f"{schema}/{json}/{model_name}"

    tool = FunctionTool.from_defaults(export)
    assert tool.call(schema="s", json=True).content == "s/True/m"
    assert not [w for w in recwarn if "shadows" in str(w.message)]
