"""Rejoin words a PDF's layout split in two ("e xtension"), using the document's own words.

Some typesetters (groff, for manual pages) set the letters of a justified line as far apart as
its word gaps, so even PDFium reads "e xtension", "ha ve", "gr ep". The glyph boxes cannot tell
such a gap from a word space (measured in gzip(1): 2.7 pt inside "extension", 2.9-3.1 pt between
the words of the same line), but the words can. Two adjacent tokens of one line are joined when

* the joined word is known: written whole elsewhere in the document (its own word list, in any
  language; not a CamelCase name such as "AssertionError"), or, in an English document, a word
  of the English lexicon (``search.english_words``);
* a half is not a word: nowhere a token of its own in the document (apart from places where it
  is itself a candidate half) and, in English, not a common word. A single letter is a word
  ("e"): beside one, the other half must be unknown ("xtension", "preserv");
* in English, the joined word is much likelier than the two halves side by side: the log-ratio
  of their frequencies in the lexicon is at least ``MIN_SCORE`` ("gi ven" 9.3, "gr ep" 7.0;
  "window pane" 3.7, "de luxe" 5.4, "nether world" 2.9 stay apart);
* neither half is a stopword ("a way" stays apart beside "away", "in to" beside "into"), the
  word has four letters or more, and the second half starts in lower case unless both are
  capitals ("Top Layer" is a name, "DEFLA TE" is "DEFLATE", "POSIX compliant" two words).

Measured by ``benchmarks/ingest/bench_pdf_text.py``: every split word of the man-page PDFs joined,
none on the NIST PDFs, and 1 join in 285 clean text files (9.8 million characters) of the corpus, an
old spelling ("SPERMA CETI"). No model and no I/O; a page without a candidate pair costs a set
lookup per token pair.
"""

from __future__ import annotations

import math
import operator
import re
import string
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, chain, compress, count

from ragcore.search.analysis import STOPWORDS
from ragcore.search.english_words import Lexicon

_SPACE = re.compile(r"(\s+)")
_PUNCT = string.punctuation + "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014"
# An English text is a third or more stopwords; a manual page about a fifth; French or German
# text a few percent (their function words are not English stopwords).
ENGLISH_STOPWORD_SHARE = 0.12
ENGLISH_SAMPLE = 5000  # tokens from the start of the document
# Letters run into a capital inside a token: a CamelCase name, not evidence of a word.
_CAMEL = re.compile(r"[a-z][A-Z]")
# A half counted this often in the lexicon is a word ("cycle" 10,869); "gi" (495), "ven" (455)
# and "ep" (177) are in the lexicon too, as fragments or abbreviations.
COMMON_COUNT = 1000
# A word known only from the document counts as the lexicon's rarest words.
RARE_COUNT = 50
MIN_SCORE = 6.0
# Shorter joins are letter-spaced headings ("o r", "s e" in a NIST report), not split words.
MIN_WORD_LENGTH = 4


@dataclass(frozen=True, slots=True)
class _Pair:
    page: int
    token: int  # index of the left half among the document's whitespace-separated tokens
    line: int  # its line on the page
    word: int  # and its index among the line's tokens
    left: str  # the halves' letters, lower case
    right: str


def rejoin_split_words(pages: list[str], *, lexicon: Lexicon | None) -> list[str]:
    """``pages`` (one document) with split words joined again; ``lexicon`` None: document only."""
    joins: dict[int, dict[int, set[int]]] = {}
    for pair in _joined(pages, lexicon):
        joins.setdefault(pair.page, {}).setdefault(pair.line, set()).add(pair.word)
    return [_join_page(page, joins[number]) if number in joins else page
            for number, page in enumerate(pages)]


def split_pairs(pages: list[str], *, lexicon: Lexicon | None) -> list[tuple[str, str]]:
    """The halves ``rejoin_split_words`` joins, in lower case (for measuring and checking it)."""
    return [(pair.left, pair.right) for pair in _joined(pages, lexicon)]


def _joined(pages: list[str], lexicon: Lexicon | None) -> list[_Pair]:
    per_page = [[token.strip(_PUNCT) for token in page.lower().split()] for page in pages]
    tokens = list(chain.from_iterable(per_page))
    vocabulary = set(tokens)
    if lexicon is not None and not _is_english(tokens):
        lexicon = None
    joins = list(map(operator.add, tokens, tokens[1:]))  # a C-speed map: this runs on every page
    known = _known(set(joins), vocabulary, lexicon)
    starts = list(accumulate(map(len, per_page), initial=0))
    hits = list(compress(count(), map(known.__contains__, joins)))  # C speed too
    pairs = _pairs(pages, starts, hits)
    # A token in two candidate pairs ("gi ven ven") is one suspect occurrence, not two.
    suspect = Counter(tokens[i] for i in {p.token for p in pairs} | {p.token + 1 for p in pairs})
    written = Counter(filter(suspect.__contains__, tokens))
    alone = {word for word in suspect if written[word] > suspect[word]}
    text = "\n".join(pages) if pairs else ""
    joined: list[_Pair] = []
    for pair in pairs:
        follows = bool(joined) and joined[-1].token + 1 == pair.token
        if (not follows and _is_split(pair.left, pair.right, alone, lexicon)
                and _known_form(pair.left + pair.right, text, lexicon)):
            joined.append(pair)
    return joined


def _known(joins: set[str], vocabulary: set[str], lexicon: Lexicon | None) -> set[str]:
    """The joins that are words of the document or of the lexicon, four letters or more."""
    found = joins & vocabulary
    if lexicon is not None:
        found.update(joins & lexicon.words)
    return {word for word in found if len(word) >= MIN_WORD_LENGTH and word.isalpha()
            and _splittable(word, vocabulary, lexicon)}


def _splittable(word: str, vocabulary: set[str], lexicon: Lexicon | None) -> bool:
    """Whether some two tokens of the document could be ``word``'s halves ("filename" cannot:
    "file" and "name" are common words). Weeds out most joins before any page is looked at."""
    return any(word[:cut] in vocabulary and word[cut:] in vocabulary
               and _is_split(word[:cut], word[cut:], set(), lexicon)
               for cut in range(1, len(word)))


def _known_form(word: str, text: str, lexicon: Lexicon | None) -> bool:
    """A lexicon word, or one the document writes whole somewhere not in CamelCase."""
    if lexicon is not None and word in lexicon.counts:
        return True
    pattern = rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])"
    return any(not _CAMEL.search(match.group())
               for match in re.finditer(pattern, text, re.IGNORECASE))


def _pairs(pages: list[str], starts: list[int], hits: list[int]) -> list[_Pair]:
    """The hits (document token indexes) whose two tokens stand on one line, shaped as halves."""
    pairs = []
    layout: dict[int, tuple[list[list[str]], list[int]]] = {}
    for index in hits:
        number = bisect_right(starts, index) - 1
        if number not in layout:
            lines = [line.split() for line in pages[number].split("\n")]
            layout[number] = (lines, list(accumulate(map(len, lines), initial=0)))
        lines, line_starts = layout[number]
        local = index - starts[number]
        line = bisect_right(line_starts, local) - 1
        word = local - line_starts[line]
        if word + 1 >= len(lines[line]):
            continue  # the last token of a line (or page) and the first of the next
        left, right = lines[line][word], lines[line][word + 1]
        if _halves_shape(left, right):
            pairs.append(_Pair(number, index, line, word, left.lower().strip(_PUNCT),
                               right.lower().strip(_PUNCT)))
    return pairs


def _is_split(left: str, right: str, alone: set[str], lexicon: Lexicon | None) -> bool:
    """Whether two halves that pass the shape tests are one word (the module's word tests)."""
    if left in STOPWORDS or right in STOPWORDS:
        return False

    def frequency(word: str) -> int:
        return lexicon.count(word) if lexicon is not None else 0

    def is_word(half: str) -> bool:
        return half in alone or frequency(half) >= COMMON_COUNT

    if min(len(left), len(right)) == 1:
        longer = left if len(left) > 1 else right
        fragment = longer not in alone and frequency(longer) == 0
    else:
        fragment = not is_word(left) or not is_word(right)
    if not fragment or lexicon is None:
        return fragment
    joined = frequency(left + right) or RARE_COUNT
    odds = joined * lexicon.total / ((frequency(left) + 1) * (frequency(right) + 1))
    return math.log10(odds) >= MIN_SCORE


def _is_english(tokens: list[str]) -> bool:
    """Whether enough of the first ``ENGLISH_SAMPLE`` tokens are English stopwords."""
    sample = Counter(tokens[:ENGLISH_SAMPLE])
    stopwords = sum(sample[word] for word in STOPWORDS)
    return bool(sample) and stopwords >= ENGLISH_STOPWORD_SHARE * min(len(tokens), ENGLISH_SAMPLE)


def _halves_shape(left: str, right: str) -> bool:
    """Punctuation only before the first half and after the second; no capital in between."""
    if not (left[-1:].isalpha() and right[:1].isalpha()):
        return False
    head = left.lstrip(_PUNCT)
    if right[0].isupper() or (len(head) > 1 and head.isupper()):
        return head.isupper() and right.rstrip(_PUNCT).isupper()
    return True


def _join_page(page: str, joins: dict[int, set[int]]) -> str:
    """``page`` without the whitespace after the tokens ``joins`` gives by line and position."""
    lines = page.split("\n")
    for number, words in joins.items():
        pieces = _SPACE.split(lines[number])  # token, space, token ...; "" first if it is space
        first = 2 if pieces[0] == "" else 0
        for word in words:
            pieces[first + 2 * word + 1] = ""
        lines[number] = "".join(pieces)
    return "\n".join(lines)
