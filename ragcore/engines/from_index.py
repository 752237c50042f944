"""Engines over an index: the query engine, and the chat engine (or agent) of each chat mode.

``VectorStoreIndex.as_query_engine`` and ``as_chat_engine`` call these. They live under the
index (which knows them only through the ``EngineIndex`` protocol it fits) and above retrieval,
query, chat and the agents, so none of those stages imports the index: data flows one way.
Each option is checked once, by the part that owns it: top-k, filters and retrieval mode by the
retriever (built here for every mode, so a bad value fails at once), response mode and
concurrency by the synthesizer, chat mode and tools here.

``llm=None`` means the default LLM, chosen in the one visible place, ``resolve_llm()``
(``RAGCORE_LLM``, else a local Ollama, else the packaged model, else the offline extractive
backend); a caller that already resolved one passes it. An LLM that reads only a few hundred
tokens fast (``reading_tokens``: the packaged model) gets the question's closest sentences of
the passages, not the whole passages (``reading_postprocessors``). ``prompts`` replaces the
synthesizer's templates. Every query engine built here checks its answers as the app and the CLI
do (``answer_check``: ``Response.shown`` and ``.verdict``), so the Python API and an agent's
search tool read the verdict's reply, not the model's words unchecked.

``best`` picks for the LLM (see ``ragcore.chat.modes.best_chat_mode``): the function-calling
agent for a backend with native tool calls, else condense_plus_context (react when the caller
passed extra tools, since only an agent can use them).

An LLM that can put an embedding model to use offers ``with_embedder(embedder)`` returning the
LLM to use (the offline ``ExtractiveLLM`` ranks the sentences it quotes by meaning with it).
The engines hand it the index's embedder (``llm_with_index_embedder``), resolved only when the
LLM first embeds, so it is the model retrieval has already loaded; keyword retrieval loads no
model, so it hands none.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from ..agent import FunctionCallingAgent, ReActAgent
from ..chat import (
    ChatEngine,
    CondensePlusContextChatEngine,
    CondenseQuestionChatEngine,
    ContextChatEngine,
    SimpleChatEngine,
)
from ..chat.modes import FUNCTION_CALLING, ChatMode, best_chat_mode, parse_chat_mode
from ..embeddings.kept_vectors import KEPT
from ..errors import ConfigError
from ..llms.base import LLM
from ..postprocess import ListContinuation, NodePostprocessor
from ..present.markers import AnswerCheck
from ..prompts.answer import SynthesisPrompts
from ..prompts.chat import INDEX_AGENT_PROMPT
from ..query import QueryEngine
from ..retrieval.acronyms import AcronymExpansions
from ..retrieval.cards import DocumentCards
from ..retrieval.figures import FigureBodies
from ..retrieval.optimizer import SentenceEmbeddingOptimizer
from ..retrieval.ordinals import OrdinalItems
from ..retrieval.retrievers import RetrievalMode, Retriever, SearchableIndex
from ..stores.filters import MetadataFilters
from ..synthesis import ResponseMode, Synthesizer
from ..tools import QueryEngineTool, Tool



class EngineIndex(SearchableIndex, Protocol):
    """What the engines use of a VectorStoreIndex: what retrievers use, and its retrievers."""

    def as_retriever(self, **options: Any) -> Retriever: ...

AGENT_MODES = (ChatMode.REACT.value, FUNCTION_CALLING)


def query_engine_from_index(
    index: EngineIndex,
    *,
    llm: LLM | None = None,
    response_mode: ResponseMode | str = ResponseMode.COMPACT,
    similarity_top_k: int = 4,
    node_postprocessors: Sequence[NodePostprocessor] = (),
    filters: MetadataFilters | dict[str, Any] | None = None,
    doc_ids: Sequence[str] | None = None,
    max_concurrency: int = 4,
    retrieval_mode: RetrievalMode = "hybrid",
    prompts: SynthesisPrompts | None = None,
) -> QueryEngine:
    """Retrieve from ``index`` (``retrieval_mode``: similarity, mmr, keyword or hybrid),
    postprocess in order, and answer with ``llm`` (None: the default) in ``response_mode``."""
    llm = llm_with_index_embedder(default_llm(llm, "a query engine"), index, retrieval_mode)
    retriever = index.as_retriever(
        similarity_top_k=reading_pool(llm, similarity_top_k), filters=filters, doc_ids=doc_ids,
        mode=retrieval_mode,
    )
    synthesizer = Synthesizer(
        llm, response_mode=response_mode, max_concurrency=max_concurrency,
        prompts=prompts if prompts is not None else SynthesisPrompts(),
    )
    reading = reading_postprocessors(index, node_postprocessors, llm, retrieval_mode,
                                     passages=similarity_top_k)
    return QueryEngine(retriever, synthesizer, postprocessors=reading,
                       check=answer_check(index, llm, retrieval_mode))


def answer_check(index: EngineIndex, llm: LLM, retrieval_mode: str) -> AnswerCheck:
    """How the engines' answers are checked, as the app and the CLI check them: against the
    passages with the index's embedder (none for a keyword search), ``llm`` the judge."""
    embedder = None if retrieval_mode == "keyword" else _IndexEmbedder(index)
    return AnswerCheck(embedder=embedder, judge=llm, retrieval_mode=retrieval_mode,
                       held=index_words(index))


def index_words(index: EngineIndex) -> Callable[[str], bool] | None:
    """Whether ``index`` holds a name anywhere, by its keyword postings (the hybrid search's,
    built once); None for an index without them."""
    keyword_index = getattr(index, "keyword_index", None)
    if keyword_index is None:
        return None
    return lambda name: keyword_index().holds(name)


READING_POOL = 12  # passages a reader with a budget picks its sentences among, at least


def reading_pool(llm: LLM, top_k: int) -> int:
    """How many passages to retrieve for ``top_k`` read: for an LLM that reads a budget of
    sentences (the packaged model), at least ``READING_POOL``, of which it reads the best
    sentences of ``top_k`` (``reading_postprocessors(passages=top_k)``): the sentence stating
    an answer often sits in a passage ranked below the first few ("Clair is now thirty-seven
    years of age" for "How old is Neville St. Clair?"). Others read ``top_k`` whole."""
    return max(top_k, READING_POOL) if getattr(llm, "reading_tokens", None) else top_k


def reading_postprocessors(index: EngineIndex, postprocessors: Sequence[NodePostprocessor],
                           llm: LLM, retrieval_mode: str = "hybrid",
                           passages: int | None = None) -> list[NodePostprocessor]:
    """``postprocessors`` between the ones every engine reads with: first, for an index that can
    look its nodes up, lists completed across a chunk border (``ListContinuation``) and a
    caption read with its figure's body before it (``FigureBodies``); last, for
    an LLM that reads only ``reading_tokens`` fast (the packaged model), the question's closest
    sentences up to that many tokens, from at most ``passages`` passages (None: any; see
    ``reading_pool``) (``SentenceEmbeddingOptimizer``; by shared words in keyword mode, which
    never loads the embedding model); after all, for a question about a document itself, its
    card (``DocumentCards``: title, authors, date, abstract; a document the question names that
    no retrieved node is from is searched for by name); before it, for "What does SDLC stand
    for?", the sentence that spells it out (``AcronymExpansions``), and for a list question,
    a prose list's later items after the passage holding its first (``OrdinalItems``)."""
    linked = hasattr(index, "get_node")
    first = [ListContinuation(index), FigureBodies(index)] if linked else []
    budget = getattr(llm, "reading_tokens", None)
    # An LLM that measures its reading speed (the packaged model) sets the budget per query.
    reader = llm if callable(getattr(llm, "reading_budget", None)) else None
    embedder = None if retrieval_mode == "keyword" else _IndexEmbedder(index)
    last = ([SentenceEmbeddingOptimizer(embedder, token_budget=budget, by_kind=True,
                                        reader=reader, max_passages=passages)]
            if budget else [])
    # Past the budget: what an asked acronym stands for, where the documents spell it out, and
    # for a question about a document itself, its card whole.
    searchable = hasattr(index, "keyword_search")
    expansions = [AcronymExpansions(index)] if searchable else []
    later_items = [OrdinalItems(index)] if linked else []
    return [*first, *postprocessors, *last, *later_items, *expansions,
            DocumentCards(index if searchable else None)]


def chat_engine_from_index(
    index: EngineIndex,
    *,
    chat_mode: ChatMode | str = ChatMode.BEST,
    llm: LLM | None = None,
    similarity_top_k: int = 4,
    response_mode: ResponseMode | str = ResponseMode.COMPACT,
    node_postprocessors: Sequence[NodePostprocessor] = (),
    system_prompt: str | None = None,
    tools: Sequence[Tool] = (),
    retrieval_mode: RetrievalMode = "hybrid",
    retriever: Retriever | None = None,
) -> ChatEngine:
    """A chat engine (or agent) over ``index``; every one answers ``.chat(message, memory)``.
    ``retriever`` replaces the index's own (e.g. an advanced one of
    ``ragcore.engines.by_name``)."""
    mode = parse_chat_mode(chat_mode)
    llm = llm_with_index_embedder(default_llm(llm, "a chat engine"), index, retrieval_mode)
    kind = best_chat_mode(llm, tools=tools) if mode is ChatMode.BEST else mode.value
    if tools and kind not in AGENT_MODES:
        raise ConfigError(
            f"tools are only used by agents, not by chat_mode {mode.value!r}: "
            "use chat_mode='react' (or 'best')"
        )
    passages = None  # a caller's retriever is read as it retrieves
    if retriever is None:
        retriever = index.as_retriever(similarity_top_k=reading_pool(llm, similarity_top_k),
                                       mode=retrieval_mode)
        passages = similarity_top_k
    if kind == ChatMode.SIMPLE.value:
        return SimpleChatEngine(llm, system_prompt=system_prompt)
    check = answer_check(index, llm, retrieval_mode)  # every reply shown as the app shows it
    if kind in (ChatMode.CONTEXT.value, ChatMode.CONDENSE_PLUS_CONTEXT.value):
        engine = ContextChatEngine if kind == ChatMode.CONTEXT.value else (
            CondensePlusContextChatEngine
        )
        return engine(
            retriever, llm=llm, system_prompt=system_prompt,
            node_postprocessors=reading_postprocessors(index, node_postprocessors, llm,
                                                       retrieval_mode, passages),
            check=check,
        )
    reading = reading_postprocessors(index, node_postprocessors, llm, retrieval_mode, passages)
    query_engine = _query_engine(retriever, llm, response_mode, reading, check)
    if kind == ChatMode.CONDENSE_QUESTION.value:
        return CondenseQuestionChatEngine(query_engine, llm=llm, system_prompt=system_prompt)
    agent = ReActAgent if kind == ChatMode.REACT.value else FunctionCallingAgent
    made = agent.from_tools(
        [QueryEngineTool(query_engine), *tools], llm=llm,
        system_prompt=system_prompt or INDEX_AGENT_PROMPT,
    )
    made.check = check
    return made


def _query_engine(
    retriever: Retriever, llm: LLM, response_mode: ResponseMode | str,
    postprocessors: Sequence[NodePostprocessor], check: AnswerCheck,
) -> QueryEngine:
    synthesizer = Synthesizer(llm, response_mode=response_mode)
    return QueryEngine(retriever, synthesizer, postprocessors=postprocessors, check=check)


def llm_with_index_embedder(llm: LLM, index: EngineIndex, retrieval_mode: str) -> LLM:
    """``llm`` given the index's embedder, if it asks for one (``with_embedder``); what the
    engines answer with, and what a caller running the synthesizer itself should use too."""
    offer = getattr(llm, "with_embedder", None)
    if offer is None or retrieval_mode == "keyword":
        return llm
    return offer(_IndexEmbedder(index))


class _IndexEmbedder:
    """The index's embedder, looked up when first used: building an engine loads no model; what
    it embedded for one question is not embedded again for the next (``KeptVectors``)."""

    def __init__(self, index: EngineIndex) -> None:
        self._index = index

    @property
    def model_name(self) -> str:
        return self._index.embed_model_name

    @property
    def max_input_tokens(self) -> int | None:
        return self._index.embedder.max_input_tokens

    def embed_batch(self, texts: Sequence[str]) -> Any:
        return KEPT.embed_batch(self.model_name, texts, self._index.embedder.embed_batch)


def default_llm(llm: LLM | None, what: str) -> LLM:
    """``llm``, or the default one (``resolve_llm()``) when it is None."""
    if llm is None:
        from ..llms.resolve import resolve_llm  # the registry imports every backend: lazily

        return resolve_llm()
    if not isinstance(llm, LLM):
        raise ConfigError(
            f"{what} needs an LLM (llm=None picks the default through resolve_llm(), or pass "
            f"e.g. ExtractiveLLM() to answer offline), got {llm!r}"
        )
    return llm
