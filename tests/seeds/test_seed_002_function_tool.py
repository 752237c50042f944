"""Seed 002 (building an agent from scratch): FunctionTool.from_defaults, calling a tool
directly, and tool.metadata.to_openai_tool()."""

import logging
from pprint import pprint
from typing import Any, Dict, Sequence

from ragcore.compat.core.tools import BaseTool, FunctionTool

logger = logging.getLogger(__name__)


def int_mult(a: int, b: int) -> int:
    """Apply a * b and returns the result as int"""
    res = a * b
    logger.debug(f"Apply {a} * {b} and returns {res}")

    return res


def int_add(a: int, b: int) -> int:
    """Apply a + b and returns the result as int"""
    res = a + b
    logger.debug(f"Apply {a} + {b} and returns {res}")

    return res


def test_seed_tools_from_functions(capsys):
    int_mult_tool, int_add_tool = FunctionTool.from_defaults(fn=int_mult), FunctionTool.from_defaults(fn=int_add)
    int_tools: Sequence[BaseTool] = [int_mult_tool, int_add_tool]

    pprint(int_tools)

    output = int_mult_tool(**{"a":12,"b":34})

    openai_tools: Dict[str, Any] = [
        tool.metadata.to_openai_tool() for tool in int_tools
    ]
    pprint(openai_tools)

    assert output.content == "408" and output.raw_output == 408
    assert output.tool_name == "int_mult"
    assert [t["function"]["name"] for t in openai_tools] == ["int_mult", "int_add"]
    function = openai_tools[0]["function"]
    assert function["description"] == "Apply a * b and returns the result as int"
    assert function["parameters"]["required"] == ["a", "b"]
    assert function["parameters"]["properties"]["a"]["type"] == "integer"
    assert "int_add" in capsys.readouterr().out


def test_tool_metadata_has_llamaindex_names():
    tool = FunctionTool.from_defaults(fn=int_add)
    assert tool.metadata.name == "int_add"
    assert tool.metadata.description.startswith("Apply a + b")
    assert '"required": ["a", "b"]' in tool.metadata.fn_schema_str
    assert tool(2, 3).raw_output == 5
