"""The feature families the shipped weights were trained on, and the filter that keeps the
recipe to them.

``ragcore.llms.extractive`` computes a few features the shipped ``weights.json`` has no weight
for: experiments measured and rejected (``benchmarks/answers/README.md``, the 21:10 column)
that stay in the code and weigh 0 at run time. The recipe of the shipped weights must not
learn weights for them, so ``train`` reads only the families named here, not whatever the
answerer happens to compute. A feature's family is its name with the answer kind and the
values after "=" left out: "person|prev2=of|prev=Cap" is "{kind}|prev2=|prev=".

Left out, as rejected: the span conjunctions of an asked word beside the phrase with the word
between them ("{kind}|prev2_asked|prev=", "{kind}|next2_asked|next=", "{kind}|prev_asked|next=",
"{kind}|next_asked|prev=") and the answer features ``missing_pairs_share`` and
``missing_name_pairs``. A new feature is trained on only once its family is added here.
"""

from __future__ import annotations

# First stage of the span model (both variants; sentence_meaning only comes with the model).
SPAN_FAMILIES = frozenset({
    # the phrase's look and length
    "shape=", "len=", "{kind}|shape=", "{kind}|len=", "head=|shape=",
    # the words around it
    "prev=", "next=", "{kind}|prev=", "{kind}|next=", "{kind}|prev2=|prev=",
    "{kind}|first=|last=",
    # asked words right beside it
    "prev_asked", "next_asked", "prev2_asked", "next2_asked", "{kind}|prev_asked",
    "{kind}|next_asked", "{kind}|prev2_asked", "{kind}|next2_asked",
    # what it repeats of the question
    "repeats_share", "{kind}|repeats_share", "repeats_any", "repeats_question",
    "{kind}|repeats_question", "rarity", "holds_head_noun",
    # how close the asked words stand
    "near_left_3", "near_left_6", "near_left_12", "near_right_3", "near_right_6",
    "near_right_12", "log_distance", "distance=", "side_agrees", "head_noun_beside", "commas",
    # its passage
    "in_topic", "{kind}|in_topic", "spread", "new_name", "{kind}|new_name",
    # its sentence as an answer to the whole question
    "sentence_rank=", "sentence_rank", "sentence_score", "sentence_gap", "sentence_words",
    "sentence_meaning",
})
# Second stage (semantic variant): the first stage's and the phrase's likeness to the type words.
TYPED_FAMILIES = SPAN_FAMILIES | {"type_sim", "{kind}|type_sim"}
# The answer model.
ANSWER_FAMILIES = frozenset({
    "bias", "kind=", "best_score", "best_words", "best_share", "best_meaning",
    "missing_passages_share", "missing_passages_rarest", "missing_best_share",
    "missing_best_rarest", "missing_names", "phrase_probability", "phrase_margin",
})


def family(name: str) -> str:
    """``name`` without its values and answer kind: a name of two or more parts whose first
    part holds no "=" starts with the kind ("date|len=2" is "{kind}|len=")."""
    parts = [p.split("=", 1)[0] + "=" if "=" in p else p for p in name.split("|")]
    if len(parts) > 1 and not parts[0].endswith("="):
        parts[0] = "{kind}"
    return "|".join(parts)


def shipped_only(feats: dict[str, float], families: frozenset[str]) -> dict[str, float]:
    """The features of ``feats`` whose family is one of ``families``."""
    return {name: value for name, value in feats.items() if family(name) in families}
