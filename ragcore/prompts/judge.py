"""The evaluation prompts: a language model as judge, and as writer of a question set.

The judge prompts (``evaluation.judge``, used by ``evaluation.answer_evaluators``) are plain
``str.format`` texts asking for a verdict (YES or NO) or a score on the first line and a
reason after it; the readers that forgive the format stay in ``evaluation.judge``.
``DEFAULT_QA_GENERATE_PROMPT`` is LlamaIndex's ``qa_generate_prompt_tmpl`` in our words: its
``{context_str}`` and ``{num_questions_per_chunk}`` are replaced as text, so a caller's own
template keeps LlamaIndex's field names (``evaluation.question_generation``). These are sent as
one user message; unlike the answer prompts, no section markers.
"""

from __future__ import annotations

FAITHFULNESS_PROMPT = (
    "You check answers against their sources.\n\nSources:\n---------------------\n"
    "{context}\n---------------------\n\nAnswer:\n{answer}\n\n"
    "Is every statement of the answer supported by the sources? Reply YES or NO on the first "
    "line, then one sentence saying why."
)
RELEVANCY_PROMPT = (
    "You check whether answers respond to questions.\n\nQuestion: {query}\n\nSources:\n"
    "---------------------\n{context}\n---------------------\n\nAnswer:\n{answer}\n\n"
    "Does the answer respond to the question, in line with the sources? Reply YES or NO on the "
    "first line, then one sentence saying why."
)
CORRECTNESS_PROMPT = (
    "You grade answers against a reference answer.\n\nQuestion: {query}\n\n"
    "Reference answer:\n{reference}\n\nAnswer to grade:\n{answer}\n\n"
    "How correct and complete is the answer, from 1 (wrong or unrelated) to 5 (says what the "
    "reference says)? Reply 'Score: N' on the first line, then one sentence saying why."
)

# Question generation: one passage in, ``num_questions_per_chunk`` questions out, one a line.
DEFAULT_QA_GENERATE_PROMPT = (
    "Below is a passage from a user's documents.\n"
    "---------------------\n{context_str}\n---------------------\n"
    "Write {num_questions_per_chunk} questions that this passage answers, for a quiz about the "
    "documents. Each question must be answerable from the passage alone and must not mention "
    "'the passage' or 'the text'. Write one question a line, with nothing else."
)

# The grounding verdict's judge (``grounding.judge``): one claim against one passage, answered by
# the first token's Yes/No chances. Narrower than answering, and short: a claim's window of the
# passage, not the whole context.
CLAIM_CHECK_SYSTEM = "You check whether a passage states a claim. Reply Yes or No."
CLAIM_CHECK = (
    "Passage:\n{passage}\n\nClaim: {claim}\n\nDoes the passage state this claim, as written? "
    "Reply Yes or No."
)
# The same question in the answer's own prompt, in place of its cue line (``judge.IN_PROMPT``):
# the passages and the question are already before the model.
CLAIM_IN_PROMPT = "Claim: {claim}\nDo the passages state this claim, as written? Reply Yes or No."
