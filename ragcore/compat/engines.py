"""``as_query_engine`` / ``as_chat_engine`` with LlamaIndex's keywords, translated for
``ragcore.engines.from_index`` (which builds the engines; nothing is built twice here).

Translated: ``llm`` (else ``Settings.llm``, else ``resolve_llm()``), ``streaming`` (every
ragcore response streams when iterated and is whole when read, so both values give the same
object), ``text_qa_template`` / ``refine_template`` / ``summary_template`` (LlamaIndex's
``{context_str}`` and ``{query_str}`` are read as ragcore's fields), ``vector_store_query_mode``
(``default`` is similarity search), and for chat ``memory``, ``chat_history`` and ``verbose``.
A chat engine comes back as a ``ChatSession``: it owns its memory (``chat(message)``,
``stream_chat``, ``reset``, ``chat_history``), as LlamaIndex's do.
"""

from __future__ import annotations

from typing import Any

from ..chat.session import ChatSession
from ..errors import ConfigError
from ..engines.from_index import chat_engine_from_index, query_engine_from_index
from ..memory import ChatMemory
from ..prompts import PromptTemplate
from ..prompts.answer import SynthesisPrompts
from ..query import QueryEngine
from .refusals import refuse
from .settings import Settings

_QUERY_OPTIONS = ("response_mode", "similarity_top_k", "node_postprocessors", "filters",
                  "doc_ids", "max_concurrency", "retrieval_mode")
_CHAT_OPTIONS = ("similarity_top_k", "response_mode", "node_postprocessors", "system_prompt",
                 "tools", "retrieval_mode")
_TEMPLATES = {"text_qa_template": "qa", "refine_template": "refine",
              "summary_template": "summary", "simple_template": "simple_summarize"}
_QUERY_MODES = {"default": "similarity", "mmr": "mmr", "hybrid": "hybrid",
                "text_search": "keyword", "sparse": "keyword"}
_HINTS = {
    "use_async": "tree_summarize already asks the LLM in parallel: max_concurrency=4",
    "output_cls": "ragcore answers with text; parse it yourself or use a tool-calling agent",
    "verbose": "pass trace=Trace() to query() and read trace.stages and trace.llm_calls",
    "callback_manager": "pass trace=Trace() to query() and chat() calls",
    "service_context": "pass llm= (or set Settings.llm)",
    "context_template": "ragcore's context chat prompt is fixed (ragcore.prompts.chat)",
    "condense_prompt": "ragcore's condense prompt is fixed (ragcore.prompts.chat)",
    "context_prompt": "ragcore's context chat prompt is fixed (ragcore.prompts.chat)",
    "token_limit": "pass memory=ChatMemoryBuffer.from_defaults(token_limit=...)",
}


def query_engine(index: Any, llm: Any, options: dict[str, Any]) -> QueryEngine:
    """The query engine of ``index.as_query_engine(llm, **options)``."""
    options = dict(options)
    streaming = options.pop("streaming", False)
    if not isinstance(streaming, bool):
        raise ConfigError(f"streaming must be True or False, got {streaming!r}")
    prompts = _prompts({k: options.pop(k) for k in list(options) if k in _TEMPLATES})
    mode = options.pop("vector_store_query_mode", None)
    if mode is not None:
        options["retrieval_mode"] = _query_mode(mode)
    known = {k: options.pop(k) for k in list(options) if k in _QUERY_OPTIONS}
    refuse("as_query_engine", options, _HINTS)
    return query_engine_from_index(index, llm=llm or Settings.llm, prompts=prompts, **known)


def chat_engine(index: Any, chat_mode: Any, llm: Any, options: dict[str, Any]) -> ChatSession:
    """The chat session of ``index.as_chat_engine(chat_mode, llm, **options)``."""
    options = dict(options)
    memory = options.pop("memory", None)
    history = options.pop("chat_history", None)
    verbose = bool(options.pop("verbose", False))
    mode = options.pop("vector_store_query_mode", None)
    if mode is not None:
        options["retrieval_mode"] = _query_mode(mode)
    known = {k: options.pop(k) for k in list(options) if k in _CHAT_OPTIONS}
    refuse("as_chat_engine", options, {k: v for k, v in _HINTS.items() if k != "verbose"})
    engine = chat_engine_from_index(index, chat_mode=chat_mode, llm=llm or Settings.llm, **known)
    if verbose and hasattr(engine, "verbose"):
        engine.verbose = True  # agents write their steps; other engines have none to show
    session = ChatSession(engine, memory=_memory(memory))
    if history is not None:
        session.set_history(history)
    return session


def _prompts(templates: dict[str, Any]) -> SynthesisPrompts | None:
    if not templates:
        return None
    chosen = {}
    for option, template in templates.items():
        if isinstance(template, str):
            template = PromptTemplate.from_string(template, name=option)
        if not isinstance(template, PromptTemplate):
            raise ConfigError(f"{option} must be a PromptTemplate or text, got {template!r}")
        chosen[_TEMPLATES[option]] = template
    return SynthesisPrompts(**chosen)


def _query_mode(mode: Any) -> str:
    name = str(getattr(mode, "value", mode)).lower()
    if name not in _QUERY_MODES:
        raise ConfigError(f"vector_store_query_mode={mode!r}: ragcore offers "
                          f"{', '.join(_QUERY_MODES)} (as retrieval_mode similarity, mmr, "
                          "hybrid or keyword)")
    return _QUERY_MODES[name]


def _memory(memory: Any) -> ChatMemory | None:
    if memory is None or isinstance(memory, ChatMemory):
        return memory
    raise ConfigError(f"memory must be a ChatMemory (ChatMemoryBuffer.from_defaults()), got "
                      f"{type(memory).__name__}")
