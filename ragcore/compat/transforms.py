"""LlamaIndex's query transforms and fusion retriever over ragcore's ``hyde`` and
``query_fusion`` modules: ``HyDEQueryTransform`` + ``TransformQueryEngine``, and
``QueryFusionRetriever`` (LlamaIndex's defaults: ``mode="simple"``, ``similarity_top_k=2``).
An LLM left out is ``Settings.llm``, then ``resolve_llm()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import ConfigError
from ..retrieval.hyde import HyDERetriever
from ..engines.from_index import default_llm
from ..query import QueryEngine
from ..retrieval.query_fusion import QueryFusionRetriever as _QueryFusion
from .refusals import refuse
from .settings import Settings

_HINTS = {
    "query_gen_prompt":
        "ragcore's query generation prompt is fixed (ragcore.retrieval.query_fusion)",
    "hyde_prompt": "ragcore's HyDE prompt is fixed (ragcore.retrieval.hyde)",
    "retriever_weights":
        "use mode='relative_score' with ragcore.search.fusion.fuse(weights=) directly",
}


@dataclass(slots=True)
class HyDEQueryTransform:
    """What ``TransformQueryEngine`` needs to search by an imagined answer."""

    llm: Any = None
    include_original: bool = True


class TransformQueryEngine(QueryEngine):
    """``query_engine`` searching through ``query_transform`` (HyDE), answering as before."""

    def __init__(self, query_engine: QueryEngine, query_transform: HyDEQueryTransform,
                 **unsupported: Any) -> None:
        refuse("TransformQueryEngine", unsupported, _HINTS)
        if not isinstance(query_transform, HyDEQueryTransform):
            raise ConfigError("ragcore transforms queries with HyDEQueryTransform only")
        retriever = query_engine.retriever
        vector = retriever if hasattr(retriever, "retrieve_by_vector") else getattr(
            retriever, "vector", None)  # a hybrid retriever's vector side
        if vector is None:
            raise ConfigError("HyDE searches by vector: build the query engine with "
                              "retrieval_mode='similarity' or 'hybrid'")
        hyde = HyDERetriever(vector, llm=default_llm(query_transform.llm or Settings.llm, "HyDE"),
                             include_original=query_transform.include_original)
        super().__init__(hyde, query_engine.synthesizer, postprocessors=query_engine.postprocessors)


def QueryFusionRetriever(  # noqa: N802 (LlamaIndex's class name)
    retrievers: Sequence[Any], llm: Any = None, mode: Any = "simple", similarity_top_k: int = 2,
    num_queries: int = 4, use_async: bool = True, verbose: bool = False, **unsupported: Any,
) -> _QueryFusion:
    """``ragcore.retrieval.query_fusion.QueryFusionRetriever`` with LlamaIndex's defaults; queries
    run one after another (``use_async`` changes nothing), the trace lists them (``verbose``)."""
    refuse("QueryFusionRetriever", unsupported, _HINTS)
    return _QueryFusion(retrievers, llm=default_llm(llm or Settings.llm, "query fusion"),
                        mode=str(getattr(mode, "value", mode)),
                        similarity_top_k=similarity_top_k, num_queries=num_queries)
