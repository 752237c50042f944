"""The shallow grammar of a sentence and the span features it gives (extractive_syntax)."""

from __future__ import annotations

import subprocess
import sys

from ragcore.llms.extractive_span import Span, tokens
from ragcore.llms.extractive_syntax import features, parse
from ragcore.search.lexical import stem

SENTENCE = "Oxygen was discovered by Carl Wilhelm Scheele in Uppsala in 1773 or earlier."


def _span(toks, text: str) -> Span:
    words = text.split()
    first = next(k for k, t in enumerate(toks) if [x.text for x in toks[k:k + len(words)]] == words)
    return Span(first, first + len(words) - 1)


def _features(text: str, asked: set[str] = frozenset(), sentence: str = SENTENCE
              ) -> dict[str, float]:
    toks = tokens(sentence)
    at = [stem(t.low) in {stem(w) for w in asked} for t in toks]
    return features(toks, parse(toks), _span(toks, text), "person", at)


def test_parse_tags_each_token_with_its_part_of_speech_and_chunk():
    toks = tokens(SENTENCE)
    parsed = parse(toks)
    assert len(parsed.tags) == len(parsed.chunks) == len(parsed.pnp) == len(toks)
    tagged = dict(zip((t.text for t in toks), zip(parsed.tags, parsed.chunks)))
    assert tagged["discovered"] == ("VBN", "I-VP")
    assert tagged["Carl"] == ("NNP", "B-NP")
    assert tagged["Scheele"] == ("NNP", "I-NP")
    assert parse([]) == parse(tokens(""))


def test_a_whole_noun_phrase_is_told_from_a_piece_of_one_and_a_run_across_two():
    whole = _features("Carl Wilhelm Scheele")
    assert whole["chunk_start=True|end=True"] == 1.0
    assert whole["person|chunks=1"] == 1.0
    assert "chunk_start=False|end=True" in _features("Wilhelm Scheele")
    assert "chunk_start=True|end=False" in _features("Carl Wilhelm")
    assert _features("Scheele in Uppsala")["person|chunks=2"] == 1.0
    # a phrase starts its chunk when only function words stand before it there ("the")
    normans = _features("Normans", sentence="The Normans gave their name to Normandy.")
    assert normans["chunk_start=True|end=True"] == 1.0


def test_the_preposition_a_phrase_follows_and_the_verb_before_it():
    feats = _features("Carl Wilhelm Scheele", asked={"discovered", "oxygen"})
    assert feats["person|pnp=by"] == 1.0
    assert feats["person|pos_prev=IN"] == 1.0
    assert feats["verb_before_asked"] == 1.0
    assert "verb_before_asked" not in _features("Carl Wilhelm Scheele", asked={"oxygen"})
    assert _features("Uppsala")["person|pnp=in"] == 1.0


def test_reading_grammar_never_imports_nltk():
    # TextBlob's package imports NLTK (over a second); the parser is read without it
    code = ("import sys; from ragcore.llms.extractive_syntax import parse; "
            "from ragcore.llms.extractive_span import tokens; parse(tokens('A test.')); "
            "print('nltk' in sys.modules, 'textblob' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert run.stdout.split() == ["False", "False"]
