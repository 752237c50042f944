"""Questions written by a language model about each passage: LlamaIndex's
``generate_question_context_pairs``, with our own prompt (``ragcore.prompts.judge``) and a
parser that forgives.

The model gets one passage at a time and is asked for ``num_questions_per_chunk`` questions, one
a line. Numbering ("1.", "Q2:", "-") and blank lines are stripped; lines ending with "?" are the
questions (if none does, the lines opening like a question or a request: "Name the ..."). A reply with no question, or a model
error, is recorded in the set's ``problems`` and the next passage is asked: one bad reply does
not lose the rest. ``offline`` makes questions without a model.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ...errors import ConfigError, RagcoreError
from ...llms import complete
from ...prompts.judge import DEFAULT_QA_GENERATE_PROMPT
from ...types import Message
from .dataset import EmbeddingQAFinetuneDataset

MAX_PROBLEMS_QUOTED = 200  # characters of a bad reply kept in the set's problems
_ASKING = re.compile(r"(what|who|whom|whose|when|where|why|how|which|is|are|was|were|does|do|"
                     r"did|can|could|should|would|will|explain|describe|name|list|give|state)\b",
                     re.I)
_NUMBERING = re.compile(r"^\s*(?:[-*•]|\(?\d+[.):]|q(?:uestion)?\s*\d*\s*[.:)]|#+)\s*", re.I)


def parse_questions(reply: str, limit: int) -> list[str]:
    """The questions of a model's reply, numbering stripped, at most ``limit``: the lines
    ending with "?", else those opening like a question or a request ("Name the ...")."""
    lines = [_NUMBERING.sub("", line).strip().strip('"') for line in reply.splitlines()]
    lines = [line for line in lines if len(line.split()) >= 3]
    asked = [line for line in lines if line.endswith("?")]
    return (asked or [line for line in lines if _ASKING.match(line)])[:limit]


def generate_question_context_pairs(
    nodes: Sequence[Any],
    llm: Any,
    qa_generate_prompt_tmpl: str = DEFAULT_QA_GENERATE_PROMPT,
    num_questions_per_chunk: int = 2,
) -> EmbeddingQAFinetuneDataset:
    """A question set with ``num_questions_per_chunk`` model-written questions per passage."""
    if num_questions_per_chunk < 1:
        raise ConfigError(f"num_questions_per_chunk ({num_questions_per_chunk}) must be at "
                          "least 1")
    if "{context_str}" not in qa_generate_prompt_tmpl:
        raise ConfigError("qa_generate_prompt_tmpl has no {context_str}: put the passage's "
                          "place in the prompt")
    model = getattr(llm, "model", "") or type(llm).__name__
    dataset = EmbeddingQAFinetuneDataset({}, origin=f"written by {model}")
    for node in (getattr(n, "node", n) for n in nodes):
        prompt = qa_generate_prompt_tmpl.replace("{context_str}", node.text).replace(
            "{num_questions_per_chunk}", str(num_questions_per_chunk))
        try:
            reply = complete(llm, [Message("user", prompt)])
        except RagcoreError as exc:
            dataset.problems.append(f"passage {node.node_id}: the model failed ({exc})")
            continue
        questions = parse_questions(reply, num_questions_per_chunk)
        if not questions:
            dataset.problems.append(f"passage {node.node_id}: no question in the model's reply "
                                    f"{reply[:MAX_PROBLEMS_QUOTED]!r}")
        for question in questions:
            qid = f"q{len(dataset.queries) + 1:03d}"
            dataset.queries[qid] = question
            dataset.relevant_docs[qid] = [node.node_id]
            dataset.corpus[node.node_id] = node.text
    if not dataset.queries:
        first = dataset.problems[0] if dataset.problems else "no passage given"
        raise ConfigError(f"the model wrote no usable question ({first}): check the model, or "
                          "generate questions offline")
    return dataset
