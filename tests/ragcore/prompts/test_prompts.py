"""Prompt templates: stable markers, a parser that round-trips them, honest token estimates."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore import prompts
from ragcore.prompts import PromptTemplate, answer, chat, message_tokens
from ragcore.errors import ConfigError
from ragcore.tokens import count_tokens
from ragcore.types import Message

CONTEXT_TEMPLATES = [answer.QA, answer.SUMMARY, answer.SIMPLE_SUMMARIZE]
ALL = [
    *CONTEXT_TEMPLATES,
    answer.REFINE,
    answer.GENERATION,
    chat.CONDENSE,
    chat.CONTEXT_CHAT,
]


@pytest.mark.parametrize("template", CONTEXT_TEMPLATES, ids=lambda t: t.name)
def test_context_prompts_are_system_plus_user_with_markers(template):
    system, user = template.format(context="The tide rose.", question="Did it rise?")
    assert (system.role, user.role) == ("system", "user")
    assert user.content.startswith(prompts.CONTEXT + "\n")
    assert user.content.rstrip().endswith(prompts.ANSWER)
    assert prompts.read_sections(user.content) == {
        prompts.CONTEXT: "The tide rose.",
        prompts.QUESTION: "Did it rise?",
        prompts.ANSWER: "",
    }


def test_refine_prompt_round_trips_existing_answer_new_context_and_question():
    _, user = answer.REFINE.format(
        existing_answer="It rose.", context="At noon it fell.", question="What did the tide do?"
    )
    sections = prompts.read_sections(user.content)
    assert sections[prompts.EXISTING_ANSWER] == "It rose."
    assert sections[prompts.NEW_CONTEXT] == "At noon it fell."
    assert sections[prompts.QUESTION] == "What did the tide do?"
    assert user.content.rstrip().endswith(prompts.REFINED_ANSWER)


def test_condense_prompt_carries_the_conversation_and_the_follow_up():
    history = chat.format_history(
        [Message("user", "What is PEP 8?"), Message("assistant", "A style guide.")]
    )
    _, user = chat.CONDENSE.format(history=history, question="Who wrote it?")
    sections = prompts.read_sections(user.content)
    assert sections[prompts.CONVERSATION] == "user: What is PEP 8?\nassistant: A style guide."
    assert sections[prompts.FOLLOW_UP] == "Who wrote it?"
    assert prompts.STANDALONE_QUESTION in sections


def test_context_chat_prompt_is_a_system_message_ending_with_the_context():
    (system,) = chat.CONTEXT_CHAT.format(context="Passage one.\n\nPassage two.")
    assert system.role == "system"
    assert prompts.read_sections(system.content)[prompts.CONTEXT] == "Passage one.\n\nPassage two."


def test_generation_prompt_has_no_context():
    _, user = answer.GENERATION.format(question="Why is the sky blue?")
    assert prompts.CONTEXT not in user.content
    assert prompts.read_sections(user.content)[prompts.QUESTION] == "Why is the sky blue?"


def test_marker_lines_inside_passages_stay_in_the_context():
    passages = "FAQ\nQuestion: can I swim?\nAnswer: yes.\nContext: beach rules"
    _, user = answer.QA.format(context=passages, question="When is high tide?")
    sections = prompts.read_sections(user.content)
    assert sections[prompts.CONTEXT] == passages
    assert sections[prompts.QUESTION] == "When is high tide?"


def test_missing_or_unknown_fields_are_refused():
    with pytest.raises(ConfigError, match=r"missing \['question'\]"):
        answer.QA.format(context="x")
    with pytest.raises(ConfigError, match=r"unexpected \['extra'\]"):
        answer.QA.format(context="x", question="y", extra="z")


def test_field_names_are_discovered_from_the_text():
    assert answer.REFINE.fields == {"existing_answer", "context", "question"}
    assert chat.CONTEXT_CHAT.fields == {"context"}


def test_our_prompts_are_our_own_words():
    text = " ".join(t.system + (t.user or "") for t in ALL)
    for phrase in (
        "Context information is below",
        "not prior knowledge",
        "expert Q&A system",
        "We have the opportunity to refine",
    ):
        assert phrase not in text


@settings(max_examples=30, deadline=None, derandomize=True)
@given(context=st.text(min_size=0, max_size=300), question=st.text(min_size=1, max_size=80))
def test_the_token_estimate_is_an_upper_bound(context, question):
    messages = answer.QA.format(context=context, question=question)
    actual = sum(count_tokens(m.content) for m in messages)
    estimate = answer.QA.tokens_with(context=context, question=question)
    assert actual <= estimate


def test_fixed_tokens_are_cached_per_template():
    first = answer.REFINE.fixed_tokens()
    assert answer.REFINE.fixed_tokens() == first
    assert prompts._fixed_tokens.cache_info().hits >= 1


def test_a_field_used_twice_is_counted_twice_in_the_budget():
    # A template may ask the question before the passages and again after them (LlamaIndex
    # users write such templates): the budget must count every slot, or the prompt overflows.
    once = PromptTemplate("once", "", "{context}\nQuestion: {question}")
    twice = PromptTemplate("twice", "", "Question: {question}\n{context}\nQuestion: {question}")
    question = "Which passage says how high the tide rose at Brest on Monday morning?"
    assert (twice.uses("question"), twice.uses("query_str"), twice.slots) == (2, 2, 3)
    grown = twice.tokens_with(question=question) - once.tokens_with(question=question)
    assert grown >= count_tokens(question)
    (message,) = twice.format(context="", question=question)
    assert message_tokens(message) <= twice.tokens_with(question=question)
