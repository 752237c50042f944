"""LlamaIndex's import paths over ragcore: port code by changing only its import lines.

``from llama_index.core import VectorStoreIndex`` becomes ``from ragcore.compat.core import
VectorStoreIndex``, and so on for every path below. The layer is thin: most names *are*
ragcore's own classes (LlamaIndex's spellings live on them as aliases: ``response.response``,
``tool.metadata.fn_schema_str``, ``postprocess_nodes`` ...); the rest are adapters that
translate LlamaIndex's keywords and defaults into ragcore's calls, and refuse a keyword with a
different meaning with an error naming ragcore's equivalent. No second implementation lives here.

    ragcore.compat.core                       VectorStoreIndex, SummaryIndex, Document (id_=),
                                              SimpleDirectoryReader, StorageContext,
                                              load_index_from_storage, Settings,
                                              PromptTemplate, get_response_synthesizer ...
    ragcore.compat.core.node_parser           SentenceSplitter, HierarchicalNodeParser ...
    ragcore.compat.core.schema                Document, TextNode, NodeWithScore, QueryBundle
    ragcore.compat.core.ingestion             IngestionPipeline
    ragcore.compat.core.tools                 FunctionTool, QueryEngineTool (metadata=),
                                              ToolMetadata
    ragcore.compat.core.agent                 ReActAgent (and FunctionCallingAgent)
    ragcore.compat.core.postprocessor         SimilarityPostprocessor, LongContextReorder ...
    ragcore.compat.core.query_engine          RetrieverQueryEngine, CitationQueryEngine,
                                              RouterQueryEngine, SubQuestionQueryEngine
    ragcore.compat.core.retrievers            VectorIndexRetriever
    ragcore.compat.core.response_synthesizers get_response_synthesizer, ResponseMode
    ragcore.compat.core.vector_stores         MetadataFilters, MetadataFilter, ExactMatchFilter
    ragcore.compat.core.llms                  ChatMessage, MessageRole
    ragcore.compat.core.memory                ChatMemoryBuffer
    ragcore.compat.core.evaluation            RetrieverEvaluator, FaithfulnessEvaluator ...
    ragcore.compat.llms.ollama / .openai      Ollama, OpenAI
    ragcore.compat.embeddings.huggingface     HuggingFaceEmbedding
    ragcore.compat.agent                      OpenAIAgent (LlamaIndex 0.9's path)

``Settings`` is the one global here, and only here: ragcore itself takes its collaborators as
arguments. The compat adapters read it at their edge (an index's embedder and splitter, an
engine's LLM); ``llm`` left unset means ragcore's default, ``resolve_llm()``.
"""
