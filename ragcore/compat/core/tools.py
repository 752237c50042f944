"""``llama_index.core.tools``: ragcore's tools (callable, with ``metadata.fn_schema_str``)."""

from ...tools import FunctionTool, QueryEngineTool, Tool, ToolMetadata, ToolOutput

BaseTool = Tool

__all__ = ["BaseTool", "FunctionTool", "QueryEngineTool", "ToolMetadata", "ToolOutput"]
