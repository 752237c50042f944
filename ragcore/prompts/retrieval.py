"""The retrieval prompts: the LLM writes queries, a hypothetical passage, relevance grades, a
route or sub-questions, each to be parsed by its stage (never shown to the user as an answer).

    template           stage                      fields
    QUERY_GENERATION   retrieval.query_fusion     count, query
    HYDE               retrieval.hyde             query
    RERANK             retrieval.rerank           documents (numbered passages), query
    ROUTER             engines.router             choices (numbered descriptions), query
    SUB_QUESTION       engines.sub_question       tools (one "- name: description" a line),
                                                  question

Each stage formats its template and reads the reply with its own tolerant parser; the offline
extractive backend writes no free text, so these are only sent to models that do. Unlike
``answer.py`` and ``chat.py``, these replies are data, not answers: the prompts ask for a fixed
reply format instead of the answer shape.
"""

from __future__ import annotations

from . import PromptTemplate

QUERY_GENERATION = PromptTemplate(
    name="query_generation",
    system=(
        "You write search queries for a document search engine. Reply with the queries only, one "
        "per line, without numbering or explanations."
    ),
    user=(
        "Write {count} different search queries that together find what is needed to answer this "
        "question (other wordings, and the parts it is made of).\nQuestion: {query}\nQueries:"
    ),
)

HYDE = PromptTemplate(
    name="hyde",
    system=(
        "You write the passage of a reference document that would answer a question. Write it as "
        "the document would: facts and key terms, no hedging, no mention of the question."
    ),
    user="Question: {query}\nPassage:",
)

RERANK = PromptTemplate(
    name="rerank",
    system=(
        "You judge which documents help answer a question. For each helpful document write one "
        "line 'Doc: <number>, Relevance: <1-10>', most relevant first; leave out documents that "
        "do not help. Write nothing else."
    ),
    user="{documents}\n\nQuestion: {query}\nAnswer:",
)

ROUTER = PromptTemplate(
    name="router",
    system=("You route questions. Reply with the number of the one choice best suited to answer "
            "the question, then a short reason on the same line."),
    user="Choices:\n{choices}\n\nQuestion: {query}\nChoice:",
)

# Braces doubled: the system text is formatted too, and the reply's JSON shape is literal.
SUB_QUESTION = PromptTemplate(
    name="sub_question",
    system=(
        "You split a question into simpler questions, each answerable by one of the tools listed. "
        'Reply with a JSON list only: [{{"sub_question": "...", "tool_name": "..."}}, ...].'
    ),
    user="Tools:\n{tools}\n\nQuestion: {question}\nSub-questions:",
)
