"""The extractive answerer reads the request, never our prompts (issue 32).

The engines hand each call's structured request (``AnswerRequest``: kind, question, passages,
answer so far, conversation, tools) to a backend offering ``with_request``; the extractive
answerer answers from it alone. So the user's own prompt templates, a system prompt (even one
with lines that look like our section markers) or reworded prompts do not change its answers,
in any response mode or chat mode. Every other backend receives exactly the formatted messages,
as before, and the trace records those messages for every backend.
"""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms import FakeLLM, complete
from ragcore.llms.base import answering
from ragcore.llms.extractive.backend import CHAT_NEEDS_MODEL, LABEL, NEEDS_DOCUMENTS, ExtractiveLLM
from ragcore.memory import ChatMemory
from ragcore.prompts import PromptTemplate
from ragcore.prompts.answer import SUMMARY, SynthesisPrompts
from ragcore.synthesis import ResponseMode, Synthesizer
from ragcore.trace import Trace
from ragcore.types import AnswerRequest, Document, Node, ScoredNode

SOURCES = [
    ("plan.txt", "The cutover moves the database servers to the new rack. The cutover moves the "
                 "web servers after the database servers. Lunch is served at noon."),
    ("notes.txt", "The cutover moves the mail servers last."),
    ("risks.txt", "The cutover moves the backup servers only if time allows."),
    ("budget.txt", "The move may cost up to $48,000, as approved by the finance committee."),
]
QUESTION = "What does the cutover move?"

# A user's own templates: none of our section markers, other words, other order.
REWORDED = SynthesisPrompts(
    qa=PromptTemplate("my_qa", "Be precise.",
                      "Please answer this: {question}\n\nUse these notes:\n{context}"),
    refine=PromptTemplate("my_refine", "Improve the draft.",
                          "The ask: {question}\nDraft so far:\n{existing_answer}\n"
                          "More notes:\n{context}"),
    summary=PromptTemplate("my_summary", "Merge the notes.",
                           "Notes:\n{context}\nTopic: {question}"),
    simple_summarize=PromptTemplate("my_one_pass", "",
                                    "Read all of this:\n{context}\nthen tell me {question}"),
    generation=PromptTemplate("my_generation", "", "Tell me: {question}"),
)
# A system prompt whose lines look like our markers, put before every prompt.
SYSTEM_PROMPT = "Context: you help the operations team.\nQuestion: keep answers short."


def source_nodes() -> list[ScoredNode]:
    return [ScoredNode(Node(text, node_id=name, metadata={"file_name": name}), 1 - i / 10)
            for i, (name, text) in enumerate(SOURCES)]


def answer_in(mode: ResponseMode, llm=None, *, prompts=SynthesisPrompts(), system="") -> str:
    synthesizer = Synthesizer(llm or ExtractiveLLM(), response_mode=mode, prompts=prompts)
    if system:
        synthesizer = synthesizer.with_system_prompt(system)
    return synthesizer.synthesize(QUESTION, source_nodes()).text


@pytest.mark.parametrize("mode", list(ResponseMode))
def test_reworded_prompts_and_a_system_prompt_give_the_same_answer_in_every_mode(mode):
    ours = answer_in(mode)
    assert answer_in(mode, prompts=REWORDED) == ours
    assert answer_in(mode, prompts=REWORDED, system=SYSTEM_PROMPT) == ours
    assert answer_in(mode, system=SYSTEM_PROMPT) == ours
    if mode is ResponseMode.GENERATION:
        assert ours == NEEDS_DOCUMENTS
    elif mode is not ResponseMode.NO_TEXT:
        assert LABEL in ours and "The cutover moves" in ours, ours


def test_refine_steps_answer_from_the_request_too():
    trace = Trace()
    synthesizer = Synthesizer(ExtractiveLLM(), response_mode="refine", prompts=REWORDED)
    reworded = synthesizer.synthesize(QUESTION, source_nodes(), trace=trace).text
    assert [c.purpose for c in trace.llm_calls] == ["qa 1/4", "refine 2/4", "refine 3/4",
                                                    "refine 4/4"]
    assert reworded == answer_in(ResponseMode.REFINE) and "The cutover moves" in reworded


def test_tree_levels_answer_from_the_request_too():
    """A window small enough for a level of summaries; the same room for passages either way."""
    window = 130
    larger = window + SUMMARY.fixed_tokens() - REWORDED.summary.fixed_tokens()
    texts = []
    for llm, prompts in ((ExtractiveLLM(context_window=window, num_output=30), REWORDED),
                         (ExtractiveLLM(context_window=larger, num_output=30), SynthesisPrompts())):
        trace = Trace()
        synthesizer = Synthesizer(llm, response_mode="tree_summarize", prompts=prompts)
        texts.append(synthesizer.synthesize(QUESTION, source_nodes(), trace=trace).text)
        assert trace.notes.get("tree_levels", 1) > 1 or len(trace.llm_calls) > 1
    assert texts[0] == texts[1] and "The cutover moves" in texts[0]


# --- the chat modes and the ReAct agent ----------------------------------------------------

# A system prompt with lines like our prompts' and the ReAct format's markers.
CHAT_SYSTEM_PROMPT = (SYSTEM_PROMPT + "\nAction Input: none needed.\nObservation: be kind.\n"
                      "Conversation:\nuser: hello\nFollow-up question: none")
TURNS = ("What does the cutover move?", "And what may it cost?")
CHAT_MODES = ("condense_plus_context", "context", "condense_question", "react")


@pytest.fixture(scope="module")
def index():
    documents = [Document(text, doc_id=name, metadata={"file_name": name})
                 for name, text in SOURCES]
    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


def conversation(engine) -> list[str]:
    memory = ChatMemory.from_llm(ExtractiveLLM())
    return [engine.chat(message, memory).text for message in TURNS]


@pytest.mark.parametrize("mode", CHAT_MODES)
def test_a_system_prompt_changes_no_chat_modes_answers(index, mode):
    plain = conversation(index.as_chat_engine(chat_mode=mode, llm=ExtractiveLLM()))
    told = conversation(index.as_chat_engine(chat_mode=mode, llm=ExtractiveLLM(),
                                             system_prompt=CHAT_SYSTEM_PROMPT))
    assert told == plain
    assert "The cutover moves" in plain[0] and "$48,000" in plain[1], plain


def test_condense_question_over_reworded_synthesis_prompts_answers_the_same(index):
    from ragcore.chat import CondenseQuestionChatEngine
    from ragcore.query import QueryEngine

    def engine(prompts):
        synthesizer = Synthesizer(ExtractiveLLM(), prompts=prompts)
        return CondenseQuestionChatEngine(QueryEngine(index.as_retriever(), synthesizer),
                                          llm=ExtractiveLLM(), system_prompt=SYSTEM_PROMPT)

    assert conversation(engine(REWORDED)) == conversation(engine(SynthesisPrompts()))


def test_the_simple_chat_mode_still_says_it_needs_a_model(index):
    engine = index.as_chat_engine(chat_mode="simple", llm=ExtractiveLLM(),
                                  system_prompt=CHAT_SYSTEM_PROMPT)
    assert conversation(engine) == [CHAT_NEEDS_MODEL] * 2


def test_a_llamaindex_template_through_compat_answers_as_ours(index):
    """LlamaIndex's own text_qa template (its words, no markers of ours) over the same index."""
    from ragcore.compat.engines import query_engine

    llamaindex_qa = ("Context information is below.\n---------------------\n{context_str}\n"
                     "---------------------\nGiven the context information and not prior "
                     "knowledge, answer the query.\nQuery: {query_str}\nAnswer: ")
    theirs = query_engine(index, ExtractiveLLM(), {"text_qa_template": llamaindex_qa})
    ours = index.as_query_engine(llm=ExtractiveLLM())
    assert theirs.query(QUESTION).text == ours.query(QUESTION).text
    assert "The cutover moves" in ours.query(QUESTION).text


# --- other backends get exactly the formatted messages ---------------------------------------

class RequestRecorder(FakeLLM):
    """A FakeLLM that also takes requests (``with_request``), recording them."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.requests: list[AnswerRequest] = []

    def with_request(self, request: AnswerRequest) -> RequestRecorder:
        self.requests.append(request)
        return self


KINDS = {
    ResponseMode.REFINE: ["qa", "refine", "refine", "refine"],
    ResponseMode.COMPACT: ["qa"],
    ResponseMode.SIMPLE_SUMMARIZE: ["simple_summarize"],
    ResponseMode.TREE_SUMMARIZE: ["summary"],
    ResponseMode.GENERATION: ["generation"],
    ResponseMode.ACCUMULATE: ["qa"] * 4,
    ResponseMode.COMPACT_ACCUMULATE: ["qa"],
}


def synthesized(llm, mode, prompts=SynthesisPrompts()) -> Trace:
    trace = Trace()
    synthesizer = Synthesizer(llm, response_mode=mode, prompts=prompts, max_concurrency=1)
    synthesizer.synthesize(QUESTION, source_nodes(), trace=trace).text
    return trace


@pytest.mark.parametrize("mode", list(KINDS))
@pytest.mark.parametrize("prompts", [SynthesisPrompts(), REWORDED.with_system_prompt(SYSTEM_PROMPT)],
                         ids=["ours", "reworded"])
def test_other_backends_receive_exactly_the_formatted_messages(mode, prompts):
    fake, recorder = FakeLLM(), RequestRecorder()
    trace = synthesized(fake, mode, prompts)
    synthesized(recorder, mode, prompts)
    assert fake.calls == recorder.calls == [c.messages for c in trace.llm_calls]
    assert [r.kind for r in recorder.requests] == KINDS[mode]
    first = fake.calls[0]
    if mode is ResponseMode.COMPACT:
        context = "\n\n".join(f"file_name: {name}\n\n{text}" for name, text in SOURCES)
        assert first == prompts.qa.format(context=context, question=QUESTION)
        assert recorder.requests[0] == AnswerRequest("qa", QUESTION, (context,))
    if mode is ResponseMode.GENERATION:
        assert first == prompts.generation.format(question=QUESTION)


@pytest.mark.parametrize("mode", [*CHAT_MODES, "simple"])
def test_chat_modes_send_other_backends_the_same_messages(index, mode):
    replies = {"react": "Thought: I know.\nAnswer: The cutover moves servers."}

    def run(llm):
        engine = index.as_chat_engine(chat_mode=mode, llm=llm, system_prompt=SYSTEM_PROMPT)
        memory = ChatMemory.from_llm(llm)
        traces = [Trace(), Trace()]
        for message, trace in zip(TURNS, traces):
            engine.chat(message, memory, trace=trace).text
        return [c.messages for t in traces for c in t.llm_calls]

    fake = FakeLLM(default=replies.get(mode, "What does the cutover cost?"))
    recorder = RequestRecorder(default=fake.default)
    assert run(fake) == fake.calls == run(recorder) == recorder.calls
    assert len(recorder.requests) == len(recorder.calls) > 1
    if mode != "condense_question":  # its answers come from the synthesizer (qa requests)
        assert recorder.requests[-1].question == TURNS[-1]


def test_answering_hands_a_request_only_to_a_backend_that_offers_it():
    fake, request = FakeLLM(), AnswerRequest("qa", QUESTION, ("passage",))
    assert answering(fake, request) is fake
    assert answering(ExtractiveLLM(), None).request is None
    assert answering(ExtractiveLLM(), request).request is request
    assert complete(answering(fake, request), "hi") == "fake answer"
