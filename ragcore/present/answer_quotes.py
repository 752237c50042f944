"""The passage sentences a reply is shown with, quoted: the one stating a short answer
(``stating_sentence``), and the ones explaining a why or how (``explanation``).

A factoid is shown with its sentence (``grounded``). A "why" or "how" is answered in the
model's words, and the verdict can only say whether those words are the passages': a packaged
model's explanation is often a true sentence of the wrong passage ("The receiver generates a new
key pair ..." for why a new key pair is used for each transaction), or its restatement of the
question, refused as unsupported while the passage holding the reason was found. Where the reason
stands is the general signal, as for a short answer (``grounding.located``): beside the passage
sentence that states the question (at least ``LOCATED_SHARE`` of its content words; of several,
the one the trained reader finds likeliest to state the answer), which is
followed by its reason ("... we need no mutex around changes to shared data ... / There is no
preemptive multitasking, so ...": the sentence the budgeted reader reads with it,
``retrieval.neighbours.explained``) or points back to it ("This means that whether a file is
detected as binary ..."). That sentence, with the one before it when it points back and the one
after, is the answer shown, quoted and cited; then the model's claims saying more about the same
sentences, cited, and the ones taken for invented, marked (``grounded``). A question naming what
the documents never mention, and a reply the model itself refused, are not explained.

On SQuAD's training why and how questions (``training/answerer/located.py``), at the share the
located rule uses (0.6; 0.5 / 0.7 beside): the quote holds the answer for 59.8 % of them (72.3 /
40.6 %), and with the answer's sentence removed from the paragraph a quote is still found for
19.6 % (37.1 / 6.9 %), where the model's own refusal is the remaining guard.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from ..grounding import Claim, ClaimCheck, Verdict
from ..grounding.answer_type import asks_yes_or_no, wants_an_explanation
from ..grounding.claims import sentence_spans
from ..grounding.facts import facts_of, missing_facts
from ..grounding.holding import holds_answer
from ..grounding.located import LOCATED_SHARE, asked_share, asked_stems
from ..grounding.numbers import NUMBER
from ..grounding.stating import stated
from ..grounding.text import NEGATION, content_stems, fold, refers_back
from ..grounding.verdict import SHORT_CLAIM_STEMS
from ..readers.markdown.readable import without_tags
from ..retrieval.neighbours import REFERRING_TOKENS
from ..tokens import count_tokens
from .sources import ListedSource, document_subjects

QUOTED_WORDS = 60  # of each sentence a reply is shown with


def quoted(sentence: str) -> str:
    """``sentence`` as quoted: its whitespace collapsed, its code fences' marks and HTML tags
    left out ("... create a shell alias: ```", "types <kbd>5</kbd>"), cut after
    ``QUOTED_WORDS`` words."""
    words = [word for word in without_tags(sentence).split() if not word.startswith("```")]
    return " ".join(words[:QUOTED_WORDS]) + (" \u2026" if len(words) > QUOTED_WORDS else "")


def stating_sentence(check: ClaimCheck, listed: Sequence[ListedSource], question: str,
                     where: Sequence[tuple[int, int | None]], asked_too: bool = False
                     ) -> tuple[int, str] | None:
    """The sentence stating the short answer ``check`` (its facts, "**2**": "two blank lines";
    else its words), among the listed passages at ``where``'s positions: in or beside the
    sentence of the index given, or any. The one holding most of its words, then of the
    question's (one at least, with ``asked_too``), then one beside an index given, nearest
    it. None for an answer that is a sentence, names the question's own subject ("**ARPA-H**."
    to "What is ARPA-H?") or that no sentence states."""
    stems, asked = set(check.claim.stems), set(content_stems(question))
    if not short(check.claim) or (stems and stems <= asked):
        return None
    best: tuple[tuple[int, int, bool, int], int, str] | None = None
    for position, at in where:
        text = listed[position].scored.node.text
        spans = sentence_spans(text, wrapped=True)
        centre = 0 if at is None else at
        around = range(len(spans)) if at is None else range(max(0, at - 1),
                                                            min(len(spans), at + 2))
        for i in around:
            sentence = text[spans[i][0]:spans[i][1]]
            held = set(content_stems(sentence))
            window = None if at is None else " ".join(
                text[a:b] for a, b in spans[max(0, i - 1):i + 2])
            if (_unstated(check, sentence, window) if check.claim.facts
                    else not stems & held) or (asked_too and not asked & held):
                continue
            rank = (len(stems & held), len(asked & held), at is not None, -abs(i - centre))
            if best is None or rank > best[0]:
                best = (rank, position, sentence)
    if best is None:
        return None
    _, position, sentence = best
    if sentence[:1] in "\u201c\"" and sentence.rstrip()[-1:] in "\u201d\"":
        sentence = sentence[1:].rstrip()[:-1]  # a quoted line of dialogue: quoted once
    else:
        sentence = _nested(sentence)
    return position, quoted(sentence)


def _unstated(check: ClaimCheck, sentence: str, window: str | None) -> bool:
    """Whether ``sentence`` leaves a fact of the claim unstated. In a window the verdict found
    (``window``: the sentence with its neighbours), a name the sentence before it states is
    stated ("The practices are organized into four groups:" after "... Framework (SSDF) ..."),
    as the verdict read it; never a number ("Section 4e ... SSDF practices" does not state
    that the SSDF practices are four groups)."""
    missing = missing_facts(check.claim.facts, sentence)
    if window is None or not missing:
        return bool(missing)
    beside = set(missing_facts(check.claim.facts, window))
    return any(m in beside or not m.startswith("the name ") for m in missing)


def yes_or_no(question: str, reply: str, listed: Sequence[ListedSource]
              ) -> tuple[str, str, int, str] | None:
    """For a question answered yes or no, (the answer the passages give, the one the model's
    reply begins with or "", the listed source's position, the sentence that decides it,
    quoted): the sentence holding every content word and fact of the question (the
    documents' names aside), the most of them first, then the first listed; "No" where one of
    the question and the sentence is negated ("not", "never", ...) and the other is not. None
    for another question, or when no sentence states the whole question."""
    if not asks_yes_or_no(question):
        return None
    subjects = tuple(sorted(set(document_subjects([source.scored for source in listed]))))
    asked, facts = asked_stems(question, subjects), facts_of(question)
    best: tuple[int, int, str] | None = None
    for position, source in enumerate(listed):
        text = source.scored.node.text
        for start, end in sentence_spans(text, wrapped=True):
            sentence = text[start:end]
            held = asked & set(content_stems(sentence))
            if (asked and held == asked and not missing_facts(facts, sentence)
                    and (best is None or len(held) > best[0])):
                best = (len(held), position, sentence)
    if best is None:
        return None
    _, position, sentence = best
    negated = bool(NEGATION.search(fold(sentence))) != bool(NEGATION.search(fold(question)))
    said = _SAID.match(fold(reply))
    return ("No" if negated else "Yes", said.group(1).capitalize() if said else "", position,
            quoted(_nested(sentence)))


_SAID = re.compile(r"^\W*(yes|no)\b")


def holds_draft(lead: ClaimCheck, question: str, sentence: str) -> bool:
    """Whether ``sentence`` holds the draft's answer: its first claim (``holds_answer``), or
    the short answer in bold it opens with ("**6**. **pdfgrep** took 6 seconds ..." in "...
    -c 6"): a refusal never quotes it as what the documents say nearest."""
    bold = _BOLD.match(lead.claim.text)
    return holds_answer(lead, question, sentence) or bool(bold and re.search(
        rf"(?<!\w){re.escape(fold(bold[1]))}(?!\w)", fold(sentence)))


_BOLD = re.compile(r"\s*\*\*(.+?)\*\*")


def short(claim: Claim) -> bool:
    """Whether ``claim`` is a short answer as shown: a few words besides its numbers ("**300
    pounds in gold and 700 in notes**", "**80 bytes**"), not a list item."""
    return not claim.item and len([s for s in claim.stems if not NUMBER.fullmatch(s)]
                                  ) <= SHORT_CLAIM_STEMS


def explanation(question: str, verdict: Verdict, listed: Sequence[ListedSource]
                ) -> tuple[int, tuple[int, int], str] | None:
    """For a why or how, the listed source (its position), the span of its text and the quoted
    sentences that explain it: the sentence outside code stating the question's facts (its
    numbers, names, code) when one does, then the one the trained reader finds likeliest to
    state the answer (``grounding.stating``), then most of its words (the first listed of equals),
    with the sentence before when it points back and the one after (not a heading or code).
    None for another question, a question naming what the documents don't mention, or when no
    sentence states ``LOCATED_SHARE`` of the question."""
    if not wants_an_explanation(question) or verdict.unmentioned:
        return None
    subjects = tuple(sorted(set(document_subjects([source.scored for source in listed]))))
    return _explanation(question, tuple(source.scored.node.text for source in listed), subjects)


@lru_cache(maxsize=64)
def _explanation(question: str, texts: tuple[str, ...], subjects: tuple[str, ...]
                 ) -> tuple[int, tuple[int, int], str] | None:
    """``explanation`` over the passages' ``texts``: asked once for the reply's text and once
    for its source's note (``markers``), found once."""
    facts = facts_of(question)
    chances = {(s.passage, s.span): s.chance for s in stated(question, texts)}
    best: tuple[tuple[bool, float, float], int, int] | None = None
    for position, text in enumerate(texts):
        spans = sentence_spans(text, wrapped=True)
        for i in _prose(text, spans):
            sentence = text[spans[i][0]:spans[i][1]]
            share = asked_share(question, sentence, subjects)
            # a sentence stating the question states its facts ("0" of "Why is the default
            # opt-level for dev 0?"): "Cargo will use the defaults for the dev profile" does not;
            # of those stating the question, the one the reader finds stating the answer
            rank = (not missing_facts(facts, sentence),
                    chances.get((position, tuple(spans[i])), 0.0), share)
            if share >= LOCATED_SHARE and (best is None or rank > best[0]):
                best = (rank, position, i)
    if best is None:
        return None
    _, position, i = best
    text = texts[position]
    spans = sentence_spans(text, wrapped=True)
    first, last = explaining(text, spans, i)
    quote = " ".join(quoted(_nested(text[start:end])) for start, end in spans[first:last + 1]
                     if not _fence(text, (start, end)))
    return position, (spans[first][0], spans[last][1]), quote


def explaining(text: str, spans: Sequence[tuple[int, int]], i: int) -> tuple[int, int]:
    """The first and last of ``text``'s sentences (``spans``) that explain what its sentence
    ``i`` states: the one before when ``i`` points back to it, and the one after."""
    first = last = i
    if i > 0 and refers_back(text[spans[i][0]:spans[i][1]]) and _neighbour(text, spans[i - 1]):
        first = i - 1
    if i + 1 < len(spans) and _neighbour(text, spans[i + 1]):
        last = i + 1
    return first, _introduced(text, spans, last)


def _introduced(text: str, spans: Sequence[tuple[int, int]], last: int) -> int:
    """The quote's last sentence, or when it ends in a colon, the last of what it introduces: the
    code block or line after it, and the sentence continuing after that ("If you want a type to
    be available in every ripgrep command, then you should either create a shell alias:", the
    alias, "or add `--type-add=...` to your ripgrep configuration file."); all within
    ``REFERRING_TOKENS``."""
    if not text[slice(*spans[last])].rstrip().endswith(":") or last + 1 >= len(spans):
        return last
    end = last + 1
    if _fence(text, spans[end]):  # the block, through its closing fence
        end = next((k for k in range(end + 1, len(spans)) if _fence(text, spans[k])), last)
    if end == last or count_tokens(text[spans[last + 1][0]:spans[end][1]]) > REFERRING_TOKENS:
        return last
    after = end + 1
    if (after < len(spans) and text[spans[after][0]:spans[after][1]].lstrip()[:1].islower()
            and _neighbour(text, spans[after])):
        end = after
    return end


def _fence(text: str, span: tuple[int, int]) -> bool:
    """Whether a sentence is a code fence's line alone (```` ``` ````, ``~~~``)."""
    return text[span[0]:span[1]].strip().startswith(("```", "~~~"))


def about_it(checks: Sequence[ClaimCheck], question: str, position: int,
             span: tuple[int, int]) -> list[ClaimCheck]:
    """The claims an explanation is shown with: the ones the passage at ``position`` supports
    within ``span`` (the model's words about the same sentences), and the ones stating what no
    passage does (to be marked); not a true sentence standing elsewhere, nor the model's
    restatement of the question ("**The crawler stops its workers once the crawl is
    finished**.")."""
    asked = set(content_stems(question))

    def within(check: ClaimCheck) -> bool:
        return any(where == position and span[0] <= start < span[1]
                   for where, (start, _) in check.support)

    return [check for check in checks if not set(check.claim.stems) <= asked and (
        (check.refuted and (check.missing or check.displaced))
        or (check.supported and within(check)))]


def _prose(text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
    """The indexes of ``text``'s sentences (``spans``) outside code blocks: a line of code
    ("[profile.dev] opt-level = 0") states no reason."""
    prose, inside = [], False
    for i, (start, end) in enumerate(spans):
        fences = sum(1 for line in text[start:end].splitlines()
                     if line.lstrip().startswith(("```", "~~~")))
        if not inside and not fences:
            prose.append(i)
        inside ^= fences % 2 == 1
    return prose


def _neighbour(text: str, span: tuple[int, int]) -> bool:
    """Whether a sentence may be quoted beside the one stating the question: not a heading
    or a code fence, and no longer than the budgeted reader reads beside a sentence
    (``REFERRING_TOKENS``)."""
    sentence = text[span[0]:span[1]].strip()
    return (not sentence.startswith(("#", "```", "~~~"))
            and count_tokens(sentence) <= REFERRING_TOKENS)


def _nested(sentence: str) -> str:
    """A quotation inside a quoted sentence, nested in single marks."""
    return sentence.replace("\u201c", "\u2018").replace("\u201d", "\u2019")
