"""The query engine (retrieve -> postprocess -> synthesize, traced) and compare_modes."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError, LLMConnectionError
from ragcore.llms import FakeLLM
from ragcore.postprocess import KeywordNodePostprocessor, SimilarityPostprocessor
from ragcore.engines.from_index import query_engine_from_index
from ragcore.query import QueryEngine, compare_modes, iter_compare_modes
from ragcore.synthesis import NO_CONTEXT_ANSWER, ResponseMode, Synthesizer
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode


class FixedRetriever:
    """Returns the same nodes for every query, recording stages like the vector retriever."""

    def __init__(self, nodes: list[ScoredNode]) -> None:
        self.nodes = nodes
        self.queries: list[str] = []

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        self.queries.append(query)
        if trace is not None:
            with trace.stage("embed query"):
                pass
            with trace.stage("retrieve", top_k=len(self.nodes)):
                pass
        return list(self.nodes)


def corpus() -> list[ScoredNode]:
    texts = [
        ("The Moon's gravity raises two tidal bulges.", 0.82),
        ("Spring tides happen at new and full moon.", 0.74),
        ("Storm surge is unrelated to the Moon.", 0.61),
        ("Cats sleep most of the day.", 0.12),
    ]
    return [ScoredNode(Node(t, node_id=f"n{i}"), s) for i, (t, s) in enumerate(texts)]


def test_query_retrieves_postprocesses_and_synthesizes_with_a_trace():
    llm = FakeLLM(default="Tides come from the Moon.")
    engine = QueryEngine(
        FixedRetriever(corpus()),
        Synthesizer(llm),
        postprocessors=[
            SimilarityPostprocessor(similarity_cutoff=0.5),
            KeywordNodePostprocessor(exclude_keywords=["storm surge"]),
        ],
    )
    response = engine.query("Why are there tides?")
    assert list(response) and response.text == "Tides come from the Moon."
    assert [s.node_id for s in response.sources()] == ["n0", "n1"]
    assert "Cats" not in llm.calls[0][-1].content
    stages = [s.name for s in response.trace.stages]
    assert stages == [
        "embed query",
        "retrieve",
        "postprocess: SimilarityPostprocessor",
        "postprocess: KeywordNodePostprocessor",
        "pack context",
        "llm: qa",
    ]
    cutoff = response.trace.stages[2].detail
    assert (cutoff["nodes_in"], cutoff["nodes_out"]) == (4, 3)
    assert response.trace.notes["question"] == "Why are there tides?"
    assert response.mode is ResponseMode.COMPACT


def test_query_records_into_the_callers_trace():
    trace = Trace()
    engine = QueryEngine(FixedRetriever(corpus()), Synthesizer(FakeLLM()))
    response = engine.query("q?", trace=trace)
    response.text
    assert response.trace is trace and len(trace.llm_calls) == 1


def test_everything_filtered_out_gives_the_no_context_answer_without_a_call():
    llm = FakeLLM()
    engine = QueryEngine(
        FixedRetriever(corpus()),
        Synthesizer(llm),
        postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.99)],
    )
    assert engine.query("anything?").text == NO_CONTEXT_ANSWER
    assert llm.calls == []


def test_parts_and_questions_are_validated():
    with pytest.raises(ConfigError, match="retriever"):
        QueryEngine(object(), Synthesizer(FakeLLM()))
    with pytest.raises(ConfigError, match="postprocess"):
        QueryEngine(FixedRetriever([]), Synthesizer(FakeLLM()), postprocessors=[object()])
    engine = QueryEngine(FixedRetriever([]), Synthesizer(FakeLLM()))
    with pytest.raises(ConfigError, match="empty"):
        engine.query("   ")


def test_from_index_refuses_what_is_not_an_llm():
    with pytest.raises(ConfigError, match="needs an LLM"):
        query_engine_from_index(object(), llm="llama3")


def test_compare_modes_runs_every_mode_on_the_same_nodes():
    retriever = FixedRetriever(corpus())
    llm = FakeLLM(default="an answer", context_window=2048, num_output=64)
    modes = ["refine", "compact", "accumulate", "no_text", "generation"]
    results = compare_modes("Why tides?", retriever=retriever, llm=llm, modes=modes)
    assert retriever.queries == ["Why tides?"]  # retrieved once for all modes
    by_mode = {r.mode.value: r for r in results}
    assert list(by_mode) == modes
    assert by_mode["refine"].llm_calls == 4 and by_mode["compact"].llm_calls == 1
    assert by_mode["accumulate"].llm_calls == 4
    assert by_mode["no_text"].llm_calls == 0 and by_mode["no_text"].answer == ""
    assert by_mode["compact"].answer == "an answer"
    for result in results:
        assert result.error is None and result.seconds >= 0
        assert [n.node.node_id for n in result.source_nodes] == ["n0", "n1", "n2", "n3"]
        assert result.tokens_in == result.trace.total_tokens_in
        assert len(result.trace.llm_calls) == result.llm_calls
    assert by_mode["refine"].tokens_in > by_mode["compact"].tokens_in > 0


def test_compare_modes_takes_nodes_and_reports_a_failing_mode():
    def flaky(messages):
        if "Existing answer:" in messages[-1].content:
            raise LLMConnectionError("server at http://127.0.0.1:9 refused the connection")
        return "fine"

    results = compare_modes(
        "q?", nodes=corpus(), llm=FakeLLM(default=flaky), modes=["compact", "refine"]
    )
    assert results[0].answer == "fine" and results[0].error is None
    assert results[1].answer == "" and "refused the connection" in results[1].error


def test_compare_modes_yields_results_as_they_are_ready():
    stream = iter_compare_modes("q?", nodes=corpus(), llm=FakeLLM(), modes=["compact", "no_text"])
    first = next(stream)
    assert first.mode is ResponseMode.COMPACT
    assert [r.mode for r in stream] == [ResponseMode.NO_TEXT]


def test_compare_modes_needs_exactly_one_source_of_nodes():
    with pytest.raises(ConfigError, match="exactly one"):
        compare_modes("q?", llm=FakeLLM())
    with pytest.raises(ConfigError, match="exactly one"):
        compare_modes("q?", llm=FakeLLM(), nodes=[], retriever=FixedRetriever([]))
    with pytest.raises(ConfigError, match="unknown response mode"):
        compare_modes("q?", llm=FakeLLM(), nodes=[], modes=["fastest"])


def test_from_index_wires_the_vector_retriever_filters_and_postprocessors(fake_embedder):
    from ragcore.index import VectorStoreIndex
    from ragcore.types import Document

    documents = [
        Document(
            "The Moon raises the tides twice a day.", doc_id="tides", metadata={"topic": "sea"}
        ),
        Document(
            "Cats sleep most of the day in the sun.", doc_id="cats", metadata={"topic": "pets"}
        ),
    ]
    index = VectorStoreIndex.from_documents(documents, embedder=fake_embedder)
    llm = FakeLLM(default="answer")
    engine = index.as_query_engine(
        llm=llm,
        response_mode="refine",
        similarity_top_k=2,
        node_postprocessors=[KeywordNodePostprocessor(exclude_keywords=["cats"])],
        retrieval_mode="similarity",
    )
    response = engine.query("What raises the tides?")
    assert response.text == "answer" and response.mode is ResponseMode.REFINE
    assert [s.doc_id for s in response.sources()] == ["tides"]
    assert [s.name for s in response.trace.stages] == [
        "embed query",
        "retrieve",
        "postprocess: ListContinuation",
        "postprocess: FigureBodies",  # a caption under its figure is read with the figure
        "postprocess: KeywordNodePostprocessor",
        "postprocess: OrdinalItems",  # a list told in prose ("First, ...") is read whole
        "postprocess: AcronymExpansions",  # "What does SDLC stand for?" reads where it is said
        "postprocess: DocumentCards",  # a question about a document itself reads its card
        "pack context",
        "llm: qa",
    ]
    filtered = index.as_query_engine(llm=llm, filters={"topic": "pets"})
    assert [s.doc_id for s in filtered.query("What raises the tides?").sources()] == ["cats"]


def test_an_index_engine_without_llm_uses_the_default_resolver(monkeypatch, fake_embedder):
    from ragcore import Document, VectorStoreIndex

    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    index = VectorStoreIndex.from_documents([Document("Paris is in France.")],
                                            embedder=fake_embedder)
    engine = index.as_query_engine()
    assert type(engine.synthesizer.llm).__name__ == "ExtractiveLLM"
    assert "Paris" in engine.query("Where is Paris?").text
    assert type(index.as_chat_engine(chat_mode="context").llm).__name__ == "ExtractiveLLM"


def test_the_trace_is_told_the_passages_found_before_they_are_cut(fake_embedder):
    """A page shows the passages the moment the search returns them (``Trace.found``), before
    a postprocessor cuts them to what the model reads; the chat engines that search tell it
    too."""
    from ragcore import Document, VectorStoreIndex
    from ragcore.llms.fake import FakeLLM
    from ragcore.memory import ChatMemory
    from ragcore.trace import Trace

    texts = ["The harbour bridge opened in 1932.", "Its arch spans 503 metres."]
    index = VectorStoreIndex.from_documents([Document(t) for t in texts], embedder=fake_embedder)
    told: list[list] = []

    class Cut:
        def postprocess(self, nodes, query):
            assert told, "the passages were not told before the postprocessor ran"
            return nodes[:1]

    engine = index.as_query_engine(llm=FakeLLM(replies=["**1932**."]), node_postprocessors=[Cut()])
    response = engine.query("When did the bridge open?", trace=Trace(found=told.append))
    assert len(told[0]) == 2 and len(response.source_nodes) == 1
    chat = index.as_chat_engine(chat_mode="context", llm=FakeLLM(default="It opened in 1932."))
    chat.chat("When did the bridge open?", ChatMemory(token_limit=500),
              trace=Trace(found=told.append))
    assert len(told) == 2 and Trace().to_dict().keys() == {"stages", "llm_calls", "notes"}
