"""The grammar of a sentence, shallowly: each word's part of speech and the phrase it belongs
to, and what they say about a candidate answer phrase.

An answer is mostly a whole noun phrase ("Carl Wilhelm Scheele"), not a piece of one
("Wilhelm Scheele") nor a run across two ("Scheele in Uppsala"), and where it stands in the
sentence's grammar tells its role: after "discovered by" it did the discovering. ``parse``
tags a sentence's tokens with TextBlob's shallow parser (Pattern's Brill tagger and chunker:
Penn Treebank tags, NP/VP/PP chunks; a lexicon and rules, no model, ~100k words a second);
``features`` turns a span's tags and chunks into named features for the span model
(``extractive_model``): the tags at its edges and around it, whether it is a whole chunk, the
preposition it follows, and the verbs on either side and whether the question asks them.
On 3,518 training questions (5-fold cross-validation of the first stage, folds by article or
paragraph), phrase F1 rose from 44.0 to 45.7; the chunks between the span and the nearest
asked word (a shallow stand-in for the SQuAD paper's dependency paths) added 0.02 and 47,000
weights, so they are left out.

TextBlob's own package imports NLTK (1.3 s) for what the tagger never uses, so the parser is
read from its module file directly (``_pattern``): the data files and the parser are
TextBlob's, as installed.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from .extractive_span import FUNCTION_WORDS, Span, Token

@dataclass(frozen=True, slots=True)
class Parse:
    """A sentence's tokens tagged: Penn tag, chunk (B-NP, I-NP, O, ...) and place in a
    prepositional noun phrase (B-PNP on "in" of "in Uppsala", I-PNP on "Uppsala", else O)."""

    tags: tuple[str, ...]
    chunks: tuple[str, ...]
    pnp: tuple[str, ...]


def parse(toks: Sequence[Token]) -> Parse:
    """The shallow parse of a sentence's tokens (one tag and chunk per token)."""
    parser = _parser()
    tagged = parser.find_tags([t.text for t in toks])
    chunked = parser.find_chunks([list(x) for x in tagged])  # prepositions too
    return Parse(*(tuple(x[k] for x in chunked) for k in (1, 2, 3)))


def features(toks: Sequence[Token], parsed: Parse, span: Span, kind: str,
             asked: Sequence[bool]) -> dict[str, float]:
    """The grammar features of ``span`` (``asked``: per token, whether the question asks its
    stem; ``kind``: the answer type, ``extractive_span.answer_type``)."""
    tags, chunks = parsed.tags, parsed.chunks
    a, b = span.first, span.last

    def tag(k: int) -> str:
        return tags[k] if 0 <= k < len(tags) else "^" if k < 0 else "$"

    out = {f"{kind}|pos_first={tag(a)}": 1.0, f"{kind}|pos_last={tag(b)}": 1.0,
           f"pos_first={tag(a)}|pos_last={tag(b)}": 1.0,
           f"{kind}|pos_prev={tag(a - 1)}": 1.0, f"{kind}|pos_next={tag(b + 1)}": 1.0,
           f"pos_prev={tag(a - 1)}|pos_first={tag(a)}": 1.0,
           f"pos_last={tag(b)}|pos_next={tag(b + 1)}": 1.0}
    start = a  # a chunk starts at the span when only function words ("the") precede it there
    while start > 0 and chunks[start].startswith("I-") and toks[start - 1].low in FUNCTION_WORDS:
        start -= 1
    starts = chunks[start].startswith("B-") or chunks[a] == "O"
    ends = not (b + 1 < len(chunks) and chunks[b + 1].startswith("I-"))
    out[f"{kind}|chunk_start={starts}|end={ends}|type={chunks[a][2:] or 'O'}"] = 1.0
    out[f"chunk_start={starts}|end={ends}"] = 1.0
    out[f"{kind}|chunks={min(sum(1 for k in range(a, b + 1) if chunks[k][:2] == 'B-'), 3)}"] = 1.0
    if parsed.pnp[a] == "I-PNP":  # the preposition it follows: "by", "in"
        k = a
        while k > 0 and parsed.pnp[k] != "B-PNP":
            k -= 1
        out[f"{kind}|pnp={toks[k].low}"] = 1.0
    nouns = sum(1 for k in range(a, b + 1) if tags[k].startswith("NN"))
    out[f"{kind}|nouns_in={nouns}"] = 1.0
    for side, ks in (("before", range(a - 1, -1, -1)), ("after", range(b + 1, len(toks)))):
        verb = next((k for k in ks if tags[k].startswith("VB")), None)
        if verb is not None:
            out[f"{kind}|verb_{side}={tags[verb]}"] = 1.0
            if asked[verb]:
                out[f"verb_{side}_asked"] = 1.0
                out[f"{kind}|verb_{side}_asked"] = 1.0
    return out


@lru_cache(maxsize=1)
def _parser() -> Any:
    """TextBlob's English parser, built as ``textblob.en`` builds it."""
    text = _pattern()
    root = Path(text.__file__).parent / "en"
    lexicon = text.Lexicon(path=str(root / "en-lexicon.txt"),
                           morphology=str(root / "en-morphology.txt"),
                           context=str(root / "en-context.txt"),
                           entities=str(root / "en-entities.txt"), language="en")
    return text.Parser(lexicon=lexicon, default=("NN", "NNP", "CD"), language="en")


def _pattern() -> Any:
    """``textblob._text`` (Pattern's parser), loaded from its file without running TextBlob's
    package ``__init__`` (which imports NLTK)."""
    name = "ragcore._textblob_text"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("textblob")
    if package is None or package.origin is None:
        raise ImportError("the offline answerer reads grammar with TextBlob: "
                          "pip install textblob")
    spec = importlib.util.spec_from_file_location(name, Path(package.origin).with_name("_text.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
