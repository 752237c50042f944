"""ragcore: retrieval-augmented generation you can see into.

Load files -> split into nodes -> embed -> index and persist -> retrieve -> post-process ->
synthesize (eight response modes) -> chat (five modes, ReAct and function-calling agents).

Data flows one way. From the bottom: core types and errors; tokens, prompts and the prompt
budget, trace, HTTP; readers, chunking, embeddings, stores, LLM backends; retrieval, synthesis,
postprocessing, memory; the query engine and tools; chat; agents; the index (``ragcore.index``,
which also builds its query and chat engines); ingestion; the workspace; the CLI. The layers are
declared in pyproject.toml and checked by the test suite. Stores, LLM backends and embedders are
extension points: a small protocol, a registry (``ragcore.registry``) and a contract suite in
``ragcore.testing``.

The public names below are imported on first use, so ``import ragcore`` stays fast and never
loads torch, sentence-transformers, the tokenizer or pypdf.
"""

from __future__ import annotations

from .lazy_exports import lazy_exports as _lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # data
    "Document": "ragcore.types",
    "Node": "ragcore.types",
    "ScoredNode": "ragcore.types",
    "Message": "ragcore.types",
    "MetadataMode": "ragcore.types",
    "Trace": "ragcore.trace",
    # loading
    "SimpleDirectoryReader": "ragcore.readers",
    "DatabaseReader": "ragcore.readers",
    "load_file": "ragcore.readers",
    # splitting
    "SentenceSplitter": "ragcore.chunking",
    "TokenTextSplitter": "ragcore.chunking",
    "HierarchicalNodeParser": "ragcore.chunking",
    "get_leaf_nodes": "ragcore.chunking",
    "get_root_nodes": "ragcore.chunking",
    # embedding, storing, indexing
    "SentenceTransformerEmbedder": "ragcore.embeddings",
    "FakeEmbedder": "ragcore.embeddings",
    "default_embedder": "ragcore.embeddings",
    "SimpleVectorStore": "ragcore.stores",
    "MetadataFilter": "ragcore.stores",
    "MetadataFilters": "ragcore.stores",
    "VectorStore": "ragcore.stores",
    "VectorStoreIndex": "ragcore.index",
    "VectorRetriever": "ragcore.retrieval.retrievers",
    "KeywordRetriever": "ragcore.retrieval.retrievers",
    "HybridRetriever": "ragcore.retrieval.retrievers",
    "AutoMergingRetriever": "ragcore.retrieval.auto_merging",
    "NodeStore": "ragcore.retrieval.auto_merging",
    "SentenceWindowNodeParser": "ragcore.retrieval.sentence_window",
    "QueryFusionRetriever": "ragcore.retrieval.query_fusion",
    "HyDERetriever": "ragcore.retrieval.hyde",
    "IngestionPipeline": "ragcore.ingestion",
    # answering
    "ResponseMode": "ragcore.synthesis",
    "Synthesizer": "ragcore.synthesis",
    "Response": "ragcore.synthesis",
    "QueryEngine": "ragcore.query",
    "CitationQueryEngine": "ragcore.engines.citation",
    "compare_modes": "ragcore.query",
    "SummaryIndex": "ragcore.summaries.index",
    "DocumentSummaryIndex": "ragcore.summaries.index",
    "SimilarityPostprocessor": "ragcore.postprocess",
    "KeywordNodePostprocessor": "ragcore.postprocess",
    "LongContextReorder": "ragcore.postprocess",
    "PrevNextNodePostprocessor": "ragcore.postprocess",
    "MetadataReplacementPostProcessor": "ragcore.postprocess",
    "LLMRerank": "ragcore.retrieval.rerank",
    "SentenceTransformerRerank": "ragcore.retrieval.rerank",
    "RouterQueryEngine": "ragcore.engines.router",
    "SubQuestionQueryEngine": "ragcore.engines.sub_question",
    # language models
    "OllamaLLM": "ragcore.llms.ollama",
    "OpenAILLM": "ragcore.llms.openai",
    "ExtractiveLLM": "ragcore.llms.extractive.backend",
    "FakeLLM": "ragcore.llms.fake",
    "resolve_llm": "ragcore.llms.resolve",
    # conversation
    "ChatMemory": "ragcore.memory",
    "ChatMode": "ragcore.chat",
    "ChatSession": "ragcore.chat",
    "FunctionTool": "ragcore.tools",
    "QueryEngineTool": "ragcore.tools",
    "ReActAgent": "ragcore.agent",
    "FunctionCallingAgent": "ragcore.agent",
    # state on disk
    "Workspace": "ragcore.workspace",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, globals(), __all__)
