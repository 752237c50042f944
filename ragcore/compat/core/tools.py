"""``llama_index.core.tools``: ragcore's tools (callable, with ``metadata.fn_schema_str``).

``QueryEngineTool`` also takes LlamaIndex's constructor form,
``QueryEngineTool(query_engine=..., metadata=ToolMetadata(name=..., description=...))``; the
tool's argument schema stays ragcore's (one ``input`` question).
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError
from ...tools import DEFAULT_QUERY_TOOL_DESCRIPTION, DEFAULT_QUERY_TOOL_NAME, FunctionTool
from ...tools import QueryEngineTool as _QueryEngineTool
from ...tools import Tool, ToolMetadata, ToolOutput
from ..refusals import refuse

BaseTool = Tool


class QueryEngineTool(_QueryEngineTool):
    """ragcore's ``QueryEngineTool``, made from a ``ToolMetadata`` as in LlamaIndex."""

    def __init__(
        self,
        query_engine: Any,
        metadata: ToolMetadata | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        **unsupported: Any,
    ) -> None:
        refuse("QueryEngineTool", unsupported, {
            "resolve_input_errors": "a bad tool call is always an observation the agent sees"})
        if metadata is not None and not isinstance(metadata, ToolMetadata):
            raise ConfigError(f"metadata must be ToolMetadata(name=..., description=...), got "
                              f"{metadata!r}")
        if metadata is not None and (name or description):
            raise ConfigError("give the tool's name and description once: in metadata= or as "
                              "name= and description=")
        super().__init__(
            query_engine,
            name=(metadata.name if metadata else name) or DEFAULT_QUERY_TOOL_NAME,
            description=(metadata.description if metadata else description)
            or DEFAULT_QUERY_TOOL_DESCRIPTION,
        )


__all__ = ["BaseTool", "FunctionTool", "QueryEngineTool", "ToolMetadata", "ToolOutput"]
