"""Tools an agent can call: typed Python functions and query engines.

A tool has ``metadata`` (name, description, JSON schema of its arguments) and one required method,
``run(arguments, *, trace=None) -> ToolOutput``; ``call(**kwargs)`` is the same thing spelled as
a function call. ``FunctionTool`` derives everything from a typed function (name from
``__name__``, description from the docstring, schema from the signature through pydantic,
parameter descriptions from ``Annotated``). ``QueryEngineTool`` wraps a query engine: the answer
text is the content and the ``Response`` (with its source nodes) is the raw output.

Bad arguments raise ``ToolError``; the agents turn that, and any exception a tool raises, into an
observation the model can act on (``invoke_tool``).
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import typing
import warnings
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from .errors import ToolError
from .trace import Trace

logger = logging.getLogger(__name__)
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_QUERY_TOOL_NAME = "search_documents"
DEFAULT_QUERY_TOOL_DESCRIPTION = (
    "Search the user's indexed documents and answer a question from them, with sources. "
    "Input: one complete, standalone question in natural language."
)


@dataclass(slots=True, frozen=True)
class ToolMetadata:
    """What a model is told about a tool."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)  # JSON schema of the arguments

    def to_openai_tool(self) -> dict[str, Any]:
        """The tool in the OpenAI tools API format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def schema_json(self) -> str:
        """The argument schema as compact JSON (for ReAct prompts)."""
        return json.dumps(self.parameters, ensure_ascii=False)

    @property
    def fn_schema_str(self) -> str:
        """LlamaIndex's name for ``schema_json()``."""
        return self.schema_json()

    def get_parameters_dict(self) -> dict[str, Any]:
        """LlamaIndex's name for ``parameters``."""
        return dict(self.parameters)


@dataclass(slots=True)
class ToolOutput:
    """The result of one tool call."""

    content: str  # what the model reads
    tool_name: str
    raw_input: dict[str, Any]
    raw_output: Any = None
    is_error: bool = False

    def __str__(self) -> str:
        return self.content


@runtime_checkable
class Tool(Protocol):
    """Something an agent can call."""

    metadata: ToolMetadata

    def run(self, arguments: Mapping[str, Any], *, trace: Trace | None = None) -> ToolOutput:
        """Validate ``arguments``, call the tool, return its output (ToolError on bad input)."""
        ...


def _validate_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ToolError(
            f"tool name {name!r} is not usable: use 1-64 letters, digits, '_' or '-' "
            "(pass name=... to choose one)"
        )
    return name


class FunctionTool:
    """A typed Python function as a tool."""

    def __init__(
        self, fn: Callable[..., Any], metadata: ToolMetadata, args_model: type[BaseModel]
    ) -> None:
        self.fn = fn
        self.metadata = metadata
        self.args_model = args_model

    @classmethod
    def from_defaults(
        cls, fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
    ) -> FunctionTool:
        """Build a tool from ``fn``'s name, docstring and type hints (ToolError lists problems)."""
        if not callable(fn):
            raise ToolError(f"FunctionTool needs a function, got {type(fn).__name__}")
        tool_name = _validate_name(name if name is not None else getattr(fn, "__name__", ""))
        args_model = _args_model(fn, tool_name)
        parameters = _clean_schema(args_model.model_json_schema())
        doc = inspect.getdoc(fn) or ""
        text = description if description is not None else (doc or f"Call {tool_name}.")
        return cls(fn, ToolMetadata(tool_name, text.strip(), parameters), args_model)

    def to_openai_tool(self) -> dict[str, Any]:
        return self.metadata.to_openai_tool()

    def call(self, **kwargs: Any) -> ToolOutput:
        """Call the function with validated keyword arguments."""
        return self.run(kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """``tool(12, b=34)``: positional arguments bind to the parameters in order, as in a
        call of the function itself; the output is a ``ToolOutput``, as in LlamaIndex."""
        if args:
            names = list(self.args_model.model_fields)
            if len(args) > len(names):
                raise ToolError(f"{self.metadata.name} takes {len(names)} arguments "
                                f"({', '.join(names)}), got {len(args)} positional")
            doubled = sorted(set(names[: len(args)]) & set(kwargs))
            if doubled:
                raise ToolError(f"{self.metadata.name} got {doubled} both by position and by name")
            kwargs = {**dict(zip(names, args)), **kwargs}
        return self.run(kwargs)

    def run(self, arguments: Mapping[str, Any], *, trace: Trace | None = None) -> ToolOutput:
        raw_input = dict(arguments)
        try:
            validated = self.args_model.model_validate(raw_input)
        except ValidationError as exc:
            raise ToolError(_describe_validation(self.metadata, exc)) from exc
        values = {name: getattr(validated, name) for name in type(validated).model_fields}
        raw_output = _invoke(self.fn, values)
        return ToolOutput(_to_text(raw_output), self.metadata.name, raw_input, raw_output)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.metadata.name!r})"


class QueryEngineTool:
    """A query engine as a tool: content is the answer as checked (``Response.shown``),
    raw_output the Response (sources)."""

    def __init__(
        self,
        query_engine: Any,
        *,
        name: str = DEFAULT_QUERY_TOOL_NAME,
        description: str = DEFAULT_QUERY_TOOL_DESCRIPTION,
    ) -> None:
        if not callable(getattr(query_engine, "query", None)):
            raise ToolError(
                f"QueryEngineTool needs an object with .query(question), got "
                f"{type(query_engine).__name__}; use index.as_query_engine(...)"
            )
        self.query_engine = query_engine
        parameters = {
            "type": "object",
            "properties": {
                "input": {"type": "string", "description": "A complete, standalone question."}
            },
            "required": ["input"],
            "additionalProperties": False,
        }
        self.metadata = ToolMetadata(_validate_name(name), description, parameters)

    @classmethod
    def from_defaults(
        cls, query_engine: Any, *, name: str | None = None, description: str | None = None
    ) -> QueryEngineTool:
        """LlamaIndex's constructor; ``name`` and ``description`` default to ours."""
        return cls(query_engine, name=name or DEFAULT_QUERY_TOOL_NAME,
                   description=description or DEFAULT_QUERY_TOOL_DESCRIPTION)

    def to_openai_tool(self) -> dict[str, Any]:
        return self.metadata.to_openai_tool()

    def call(self, **kwargs: Any) -> ToolOutput:
        return self.run(kwargs)

    def __call__(self, input: str) -> ToolOutput:  # noqa: A002 (the argument's name)
        """Ask the query engine ``input`` (LlamaIndex's call form)."""
        return self.run({"input": input})

    def run(self, arguments: Mapping[str, Any], *, trace: Trace | None = None) -> ToolOutput:
        raw_input = dict(arguments)
        question = raw_input.get("input")
        extra = sorted(set(raw_input) - {"input"})
        if not isinstance(question, str) or not question.strip() or extra:
            raise ToolError(
                f"{self.metadata.name} takes one argument, a question: "
                f'{{"input": "your question"}}; got {json.dumps(raw_input, default=str)}'
            )
        response = self.query_engine.query(question.strip(), trace=trace)
        # The agent reads what a person would be shown: the checked answer, where the engine
        # checks ("**GONOSUMDB**. Not found in the documents." is read as its verdict writes it).
        shown = getattr(response, "shown", None)
        return ToolOutput(shown if isinstance(shown, str) else str(response), self.metadata.name,
                          raw_input, response)

    def __repr__(self) -> str:
        return f"QueryEngineTool(name={self.metadata.name!r})"


def invoke_tool(
    tools: Mapping[str, Tool], name: str, arguments: Mapping[str, Any], *, trace: Trace | None
) -> ToolOutput:
    """Call a tool by name for an agent; never raises: problems become error outputs.

    The content of an error output tells the model what to fix (unknown name, bad arguments,
    the exception the tool raised). The call is recorded as a "tool: NAME" stage.
    """
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(tools) or "(none)"
        content = f"Error: there is no tool named {name!r}. Use one of: {known}."
        return ToolOutput(content, name, dict(arguments), None, is_error=True)
    stage = trace.stage(f"tool: {name}", arguments=dict(arguments)) if trace else nullcontext({})
    with stage as detail:
        output = _run_guarded(tool, arguments, trace)
        detail["is_error"] = output.is_error
        detail["output"] = output.content[:500]
    return output


def _run_guarded(tool: Tool, arguments: Mapping[str, Any], trace: Trace | None) -> ToolOutput:
    name = tool.metadata.name
    try:
        return tool.run(arguments, trace=trace)
    except ToolError as exc:
        content = f"Error: {exc}. Fix the arguments and call it again."
    except Exception as exc:  # a tool's failure is something the model can work around
        logger.info("tool %s raised %s: %s", name, type(exc).__name__, exc, exc_info=True)
        content = f"Error: the tool {name} failed: {type(exc).__name__}: {exc}"
    return ToolOutput(content, name, dict(arguments), None, is_error=True)


# ---- building the argument model from a signature ----------------------------------------


def _args_model(fn: Callable[..., Any], tool_name: str) -> type[BaseModel]:
    problems: list[str] = []
    if inspect.iscoroutinefunction(fn):
        problems.append("async functions are not supported: pass a plain (sync) function")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolError(f"cannot read the signature of {tool_name}: {exc}") from exc
    hints = _type_hints(fn, problems)
    doc_params = _docstring_params(inspect.getdoc(fn) or "")
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        spec = _field_for(param, hints, doc_params, problems)
        if spec is not None:
            fields[param.name] = spec
    if problems:
        listed = "\n".join(f"  - {p}" for p in problems)
        raise ToolError(f"cannot make a tool from {tool_name}(): fix these problems:\n{listed}")
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, protected_namespaces=())
    with warnings.catch_warnings():
        # Parameters named like BaseModel methods (json, schema, copy) work; pydantic just warns.
        warnings.filterwarnings("ignore", message="Field name .* shadows", category=UserWarning)
        return create_model(f"{tool_name}_arguments", __config__=config, **fields)


def _type_hints(fn: Callable[..., Any], problems: list[str]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # unresolvable forward reference, bad annotation expression
        problems.append(f"its type hints cannot be resolved ({type(exc).__name__}: {exc})")
        return {}


def _field_for(
    param: inspect.Parameter,
    hints: dict[str, Any],
    doc_params: dict[str, str],
    problems: list[str],
) -> tuple[Any, Any] | None:
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        star = "*" if param.kind is param.VAR_POSITIONAL else "**"
        problems.append(f"parameter {star}{param.name}: tools take named parameters only")
        return None
    if param.name not in hints:
        if param.annotation is inspect.Parameter.empty:
            problems.append(f"parameter {param.name!r} has no type hint (e.g. {param.name}: str)")
        return None
    annotation = hints[param.name]
    default = ... if param.default is inspect.Parameter.empty else param.default
    description = _annotated_description(annotation) or doc_params.get(param.name)
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        kept = [e for e in extras if isinstance(e, FieldInfo)]
        annotation = typing.Annotated[(base, *kept)] if kept else base
    return (annotation, Field(default, description=description))


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    for extra in typing.get_args(annotation)[1:]:
        if isinstance(extra, str):
            return extra
        if isinstance(extra, FieldInfo) and extra.description:
            return extra.description
    return None


_ARGS_HEADER = re.compile(r"^(args|arguments|parameters|params)\s*:\s*$", re.IGNORECASE)
_ARG_LINE = re.compile(r"^\s+(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _docstring_params(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style 'Args:' section."""
    found: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        if _ARGS_HEADER.match(line.strip()):
            in_args = True
            continue
        if in_args:
            if line.strip() and not line.startswith((" ", "\t")):
                break
            match = _ARG_LINE.match(line)
            if match:
                found[match.group(1)] = match.group(2).strip()
    return found


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles: they repeat the names and cost prompt tokens."""
    schema = dict(schema)
    schema.pop("title", None)
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        prop.pop("title", None)
        properties[name] = prop
    schema["properties"] = properties
    schema.setdefault("required", [])
    return schema


# ---- calling -----------------------------------------------------------------------------


def _invoke(fn: Callable[..., Any], values: dict[str, Any]) -> Any:
    signature = inspect.signature(fn)
    positional = [
        values.pop(p.name)
        for p in signature.parameters.values()
        if p.kind is p.POSITIONAL_ONLY and p.name in values
    ]
    return fn(*positional, **values)


def _to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, (dict, list, tuple, int, float, bool)) or value is None:
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _describe_validation(metadata: ToolMetadata, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        if error["type"] == "extra_forbidden":
            lines.append(f"{where!r} is not a parameter")
        elif error["type"] == "missing":
            lines.append(f"{where!r} is required")
        else:
            lines.append(f"{where!r}: {error['msg']} (got {error.get('input')!r})")
    expected = ", ".join(metadata.parameters.get("properties", {})) or "no arguments"
    return f"bad arguments for {metadata.name}: {'; '.join(lines)}. It takes: {expected}"
