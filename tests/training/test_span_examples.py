"""The span reader's training examples (``training/reader/span.py``): each answer is found at
the tokens that spell it, and the "no answer" examples point at the [CLS] token."""

from __future__ import annotations

import pytest

from training.answerer.squad import training_articles
from training.reader.span import encode, examples


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from ragcore.embeddings.sentence_transformers import packaged_model_path

    return AutoTokenizer.from_pretrained(str(packaged_model_path()))


def test_each_answer_is_labelled_at_the_tokens_that_spell_it(tokenizer):
    made = examples(training_articles()[:1])
    assert sum(e.start < 0 for e in made) > 0  # "no answer" ones: siblings, swaps, SQuAD 2.0's
    batch = made[:48]
    encoded, starts, ends = encode(tokenizer, batch)
    for i, example in enumerate(batch):
        if example.start < 0:
            assert (starts[i], ends[i]) == (0, 0)
        elif starts[i]:
            said = tokenizer.decode(encoded["input_ids"][i][starts[i]:ends[i] + 1])
            assert said.replace(" ", "") == example.context[
                example.start:example.end].casefold().replace(" ", "")
