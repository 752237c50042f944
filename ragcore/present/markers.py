"""Inline numbered markers: "[1]" after each answer sentence, naming the source it came from.

Which passages an answer used is decided in ``support.py`` (``SourceUse`` spans); this module
only says, sentence by sentence, which of those used passages a sentence came from, and writes
the markers. A sentence that quotes a used passage (or a used passage sentence it holds whole)
came from that passage; a generated sentence that quotes nothing came from the used passages
whose supporting sentences share the most of its wording. A sentence the support check found
unsupported, or too short to make a claim, gets no marker, nor does the label line of an
extractive answer (its short answer is marked where it is quoted: the quote line below it).
Markers are numbered in order of first use, and ``renumber`` lists the sources under the answer
with the same numbers, cited ones first, each note agreeing with the markers (``agreeing_use``).
``AnswerCheck`` does both for the engines: an answer cited, then written as a person is shown it.
(Copy's plain text of a reply as shown, its markers without their links: ``format.copied_text``.)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import re
from typing import Any, Callable, Collection, Sequence

from ..grounding import SUPPORTED, asks_one_fact
from ..grounding.answer_type import wants_an_explanation
from ..llms.extractive.answer import LABEL
from ..llms.cut_short import split_cut_short
from ..types import ScoredNode
from .answer_quotes import explanation
from .grounded import (
    EXPLAINED_LEAD, NEAREST_LEAD, NOT_CONFIRMED, NOT_STATED, UNSUPPORTED_MARK, grounded_text,
)
from .quotes import MIN_QUOTE_WORDS, Span, quotes_in, sentence_spans, words_of
from .sources import ListedSource, SourceListing, answer_sources
from .support import (
    NEAREST, NO_SUPPORT, NOT_QUOTED, QUOTED, SUPPORT_MARGIN, SUPPORTS, TO_CHECK, SourceUse,
    is_extractive, lexical_similarity,
)

_LABEL_LINES = re.compile(r"^" + re.escape(LABEL) + r".*$", re.MULTILINE)
# A source marked only for a sentence's wording (``_best_match``): no quote, no vouching.
CLOSEST = "the answer's wording is closest to this passage"


@dataclass(frozen=True, slots=True)
class MarkedAnswer:
    """The answer with markers, and the sources cited: ``order[n - 1]`` is the 0-based position
    (in the passages given) of the source marked ``[n]``; ``quoted``: the positions a sentence
    quotes (the others were marked for sharing a sentence's wording)."""

    text: str
    order: tuple[int, ...]
    quoted: frozenset[int] = frozenset()


def sentence_sources(
    answer: str,
    passages: Sequence[str],
    uses: Sequence[SourceUse],
    *,
    unsupported: Sequence[str] = (),
) -> list[tuple[Span, tuple[int, ...]]]:
    """Each sentence of ``answer`` (its span) with the positions of the passages it came from."""
    return [(span, origins) for span, origins, _ in
            _sourced(answer, passages, uses, unsupported=unsupported)]


def _sourced(answer: str, passages: Sequence[str], uses: Sequence[SourceUse], *,
             unsupported: Sequence[str]) -> list[tuple[Span, tuple[int, ...], bool]]:
    """``sentence_sources``, each sentence also saying whether it quotes its passages."""
    if len(uses) != len(passages):
        raise ValueError(f"{len(uses)} source uses for {len(passages)} passages: give one "
                         "SourceUse per passage, in the same order (support.cite)")
    flagged = [words_of(s) for s in unsupported]
    labels = [m.span() for m in _LABEL_LINES.finditer(answer)]
    found = []
    for start, end in sentence_spans(answer):
        words = words_of(answer[start:end])
        if (len(words) < MIN_QUOTE_WORDS or any(_same_claim(words, f) for f in flagged)
                or any(a <= start < b for a, b in labels)):
            found.append(((start, end), (), False))
            continue
        found.append(((start, end), *_origins(answer[start:end], words, passages, uses)))
    return found


def plain_marker(number: int) -> str:
    return f"[{number}]"


def mark_answer(
    answer: str,
    passages: Sequence[str],
    uses: Sequence[SourceUse],
    *,
    unsupported: Sequence[str] = (),
    marker: Callable[[int], str] = plain_marker,
) -> MarkedAnswer:
    """``answer`` with " [n]" (``marker(n)``, e.g. a Markdown link to the source) after every
    sentence a used passage supports."""
    order: list[int] = []
    quoted: set[int] = set()
    pieces, position = [], 0
    for (_, end), origins, quotes in _sourced(answer, passages, uses, unsupported=unsupported):
        if not origins:
            continue
        if quotes:
            quoted.update(origins)
        for origin in origins:
            if origin not in order:
                order.append(origin)
        numbers = sorted(order.index(origin) + 1 for origin in origins)
        pieces.append(answer[position:end] + "".join(f" {marker(n)}" for n in numbers))
        position = end
    pieces.append(answer[position:])
    return MarkedAnswer("".join(pieces), tuple(order), frozenset(quoted))


def mark_listing(answer: str, listing: SourceListing, *,
                 marker: Callable[[int], str] = plain_marker) -> tuple[str, SourceListing]:
    """``answer`` with markers for the sources of ``listing``, and the listing numbered to match
    (what the Query and Chat pages show)."""
    answer, note = split_cut_short(answer)  # a reply stopped early says so, after its check
    if listing.without_sources:
        return answer + note, listing
    text, numbered = _marked_listing(answer, listing, marker)
    text = unbulleted_numbers(once_marked(text))
    numbered = dataclasses.replace(numbered, marked=UNSUPPORTED_MARK in text)
    return text + note, numbered


_MARKED_AGAIN = re.compile(re.escape(UNSUPPORTED_MARK) + r"(?:[ \t]*" + re.escape(UNSUPPORTED_MARK)
                           + r")+")
_BULLETED_NUMBER = re.compile(r"^([ \t]*)[-*+][ \t]+(\d{1,3})([.)])[ \t]+", re.MULTILINE)


def once_marked(text: str) -> str:
    """``text`` with the mark said once where two claims of one line each left it (issue 66:
    "(not in the documents) (not in the documents)")."""
    return _MARKED_AGAIN.sub(UNSUPPORTED_MARK, text)


def unbulleted_numbers(text: str) -> str:
    """A quoted numbered item ("- 2. Run it") as the numbered line it is, not a bullet holding
    a number ("• 2." on screen, issue 66); only a run numbered one by one that Markdown
    starts as a list where it stands (it renumbers a list's items from its first, and a list
    not starting at 1 cannot follow a line of text)."""
    lines = text.split("\n")
    found = [_BULLETED_NUMBER.match(line) for line in lines]
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and found[end] and (
                end == start or int(found[end][2]) == int(found[end - 1][2]) + 1):
            end += 1
        if end > start and (found[start][2] == "1" or not start or not lines[start - 1].strip()):
            for i in range(start, end):
                lines[i] = _BULLETED_NUMBER.sub(r"\1\2\3 ", lines[i], count=1)
        start = max(end, start + 1)
    return "\n".join(lines)


def _marked_listing(answer: str, listing: SourceListing, marker: Callable[[int], str]
                    ) -> tuple[str, SourceListing]:
    listed = _by_number(listing)
    if listing.verdict is not None:  # ragcore's grounding verdict decides what is shown
        text, order = grounded_text(answer, listing, listed, marker)
        numbered = renumber(listing, order)
        if NEAREST_LEAD not in text or not any(  # not a refusal quoting the nearest passage
                s.number == 1 and s.use.note == NEAREST for s in numbered.shown):
            numbered = _without_nearest(numbered, cited=len(order))
        if text.startswith((NOT_CONFIRMED, NOT_STATED)):  # the reader is asked to check it
            numbered = _to_check(numbered)
        if text.startswith(EXPLAINED_LEAD):  # the reply quotes a passage's explanation
            numbered = _explained(numbered, listed)
        return text, numbered
    marked = mark_answer(answer, [s.scored.node.text for s in listed], [s.use for s in listed],
                         unsupported=listing.unsupported, marker=marker)
    return marked.text, renumber(listing, marked.order, quoted=marked.quoted)


def renumber(listing: SourceListing, order: Sequence[int], *,
             quoted: Collection[int] | None = None) -> SourceListing:
    """The listing numbered like the markers: cited sources first, as ``[1]``, ``[2]``…, in
    marker order; then the other shown sources, then the hidden ones, numbered on.

    ``order`` holds 0-based positions among the listed sources sorted by their numbers;
    ``quoted``, those of them the answer quotes (None: all it cites, as the grounded text
    cites a passage only for a sentence it quotes or a claim the verdict found it states).
    """
    listed = _by_number(listing)
    cited = [listed[p] for p in order if p < len(listed)]
    quoting = [listed[p] for p in (order if quoted is None else quoted) if p < len(listed)]
    rest = [s for s in listing.shown if s not in cited]
    hidden = [s for s in listing.hidden if s not in cited]
    numbered = [dataclasses.replace(s, number=n, use=agreeing_use(
        s.use, cited=n <= len(cited), quoted=s in quoting))
        for n, s in enumerate([*cited, *rest, *hidden], 1)]
    shown_count = len(cited) + len(rest)
    return dataclasses.replace(listing, shown=tuple(numbered[:shown_count]),
                               hidden=tuple(numbered[shown_count:]))


def _explained(listing: SourceListing, listed: Sequence[ListedSource]) -> SourceListing:
    """Under a why or how shown with the passage sentences explaining it: that source is
    "quoted in the answer", those sentences marked (not "nearest to your question", which the
    verdict on the model's own words may have said)."""
    found = explanation(listing.question, listing.verdict, listed)
    if found is None:
        return listing
    position, span, _ = found

    def noted(source: ListedSource) -> ListedSource:
        if source.scored is not listed[position].scored:
            return source
        return dataclasses.replace(source, use=SourceUse((span,), QUOTED))

    return dataclasses.replace(listing, shown=tuple(map(noted, listing.shown)),
                               hidden=tuple(map(noted, listing.hidden)))


def _without_nearest(listing: SourceListing, *, cited: int) -> SourceListing:
    """Under a reply that is not a refusal: no source is "nearest to your question" (the
    verdict's note for the passage a refusal quotes), as the reply quotes none that way; one
    of the ``cited`` (numbered first) is "quoted in the answer", another "found by the search,
    not used", nothing of it marked."""
    def noted(source: ListedSource) -> ListedSource:
        if source.use.note != NEAREST:
            return source
        use = (dataclasses.replace(source.use, note=QUOTED) if source.number <= cited
               else SourceUse((), NO_SUPPORT))
        return dataclasses.replace(source, use=use)
    return dataclasses.replace(listing, shown=tuple(map(noted, listing.shown)),
                               hidden=tuple(map(noted, listing.hidden)))


def _to_check(listing: SourceListing) -> SourceListing:
    """Under an answer the check could not decide ("check it against the sources below"): a
    source it did not cite is one to check it against, not one "not used"."""
    def noted(source: ListedSource) -> ListedSource:
        if source.use.note != NO_SUPPORT:
            return source
        return dataclasses.replace(source, use=dataclasses.replace(source.use, note=TO_CHECK))
    return dataclasses.replace(listing, shown=tuple(map(noted, listing.shown)),
                               hidden=tuple(map(noted, listing.hidden)))


def agreeing_use(use: SourceUse, *, cited: bool, quoted: bool = True) -> SourceUse:
    """``use`` with a note agreeing with the shown answer: a source "states this" only when
    the answer carries its marker (``cited``); one the verdict found stating a claim the answer
    does not show (a refusal, a claim left out) was "found by the search, not used", nothing of
    it marked; one cited for a passage sentence the answer quotes (``quoted``) is "quoted in
    the answer", one cited only for an answer sentence's wording says that (``CLOSEST``)."""
    if cited and use.note in ("", NO_SUPPORT, NOT_QUOTED):
        return dataclasses.replace(use, note=QUOTED if quoted else CLOSEST)
    if not cited and use.note == SUPPORTS:
        return SourceUse((), NO_SUPPORT)
    return use


def _by_number(listing: SourceListing) -> list[ListedSource]:
    return sorted((*listing.shown, *listing.hidden), key=lambda s: s.number)


def _origins(sentence: str, words: list[str], passages: Sequence[str],
             uses: Sequence[SourceUse]) -> tuple[tuple[int, ...], bool]:
    """The passages ``sentence`` came from, and whether it quotes them (else: shares wording)."""
    used = [i for i, use in enumerate(uses) if use.used]
    quoted = tuple(i for i in used if _quotes(sentence, words, passages[i], uses[i].spans))
    if quoted:
        return quoted, True
    scores = {i: _best_match(sentence, passages[i], uses[i].spans) for i in used}
    best = max(scores.values(), default=0.0)
    if best <= 0:
        return (), False
    return tuple(i for i in used if scores[i] >= best - SUPPORT_MARGIN), False


def _quotes(sentence: str, words: list[str], passage: str, spans: Sequence[Span]) -> bool:
    if not any(quotes_in(passage[a:b], words) for a, b in spans):
        return any(_holds(sentence, passage[a:b]) for a, b in spans)
    return True


def _holds(sentence: str, cited: str) -> bool:
    """True when ``sentence`` holds a whole sentence of the cited text."""
    return any(
        len(words_of(cited[a:b])) >= MIN_QUOTE_WORDS and quotes_in(sentence, words_of(cited[a:b]))
        for a, b in sentence_spans(cited)
    )


def _best_match(sentence: str, passage: str, spans: Sequence[Span]) -> float:
    texts = [passage[a:b] for a, b in spans]
    if not texts:
        return 0.0
    return float(lexical_similarity([sentence], texts).max())


def _same_claim(words: list[str], claim: list[str]) -> bool:
    if not claim:
        return False
    joined, other = f" {' '.join(words)} ", f" {' '.join(claim)} "
    return joined in other or other in joined


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """An answer as a person is shown it: ``text`` as its grounding verdict allows it (markers
    [n], a refusal or the quoted sentence in its place), and the sources numbered to match."""

    text: str
    listing: SourceListing

    @property
    def verdict(self) -> Any:
        return self.listing.verdict


class AnswerCheck:
    """What the app and the CLI show of an answer, for the engines: cite it against its passages
    (``sources.answer_sources``, the grounding verdict), then write it (``mark_listing``).

    ``embedder``: the index's embedding model (similarity of meaning, resolved on first use);
    ``judge``: the LLM asked whether a passage states the answer's first claim, when it can;
    ``held``: whether the index holds a name anywhere (a question's name the passages found
    lack is not said to be missing from the documents when it is)."""

    def __init__(self, *, embedder: Any = None, judge: Any = None,
                 retrieval_mode: str = "hybrid", held: Callable[[str], bool] | None = None
                 ) -> None:
        self.embedder = embedder
        self.judge = judge
        self.retrieval_mode = retrieval_mode
        self.held = held

    def __call__(self, answer: str, nodes: Sequence[ScoredNode], *, question: str,
                 trace: Any = None, response_mode: str | None = None) -> CheckedAnswer:
        listing = self.listing(answer, nodes, question=question, trace=trace,
                               response_mode=response_mode)
        return CheckedAnswer(*mark_listing(answer, listing))

    def settled(self, lead: str, nodes: Sequence[ScoredNode], *, question: str,
                trace: Any = None, response_mode: str | None = None) -> CheckedAnswer | None:
        """A factoid's short answer on its own (``lead``: "**60 Million barrels**."), checked,
        when it is shown vouched for with the passage sentence stating it: what the model would
        write after it would not be shown (``CheckedReply.settling``); else None. Checked
        without the judge, which the verdict does not ask about such an answer either, so this
        is the reply's check, made once."""
        if not asks_one_fact(question) or wants_an_explanation(question):
            return None  # a why or a how is answered by what the model writes after it
        unjudged = AnswerCheck(embedder=self.embedder, retrieval_mode=self.retrieval_mode,
                               held=self.held)
        checked = unjudged(lead, nodes, question=question, trace=trace,
                           response_mode=response_mode)
        verdict = checked.verdict
        vouched = (verdict is not None and verdict.label == SUPPORTED
                   and len(verdict.claims) == 1
                   and checked.text.startswith(f"{verdict.claims[0].claim.text} \u201c"))
        return checked if vouched else None

    def listing(self, answer: str, nodes: Sequence[ScoredNode], *, question: str = "",
                trace: Any = None, response_mode: str | None = None) -> SourceListing:
        """The sources of ``answer`` with their verdict, not yet numbered like markers."""
        return answer_sources(answer, nodes, retrieval_mode=self.retrieval_mode,
                              extractive=is_extractive(trace), response_mode=response_mode,
                              embedder=self.embedder, question=question, judge=self.judge,
                              held=self.held)
