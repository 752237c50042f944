"""What a person is shown of a generated answer: what its grounding verdict allows.

    verdict       shown
    supported     the answer, markers [n] placed by ragcore after each claim (sentence, line or
                  list item) on the passages that state it; the model's own markers removed;
                  but a factoid's short answer ("**Alabama**.") or a bare one is shown with the
                  passage sentence stating it, quoted, then the model's sentences saying more
                  than the quote, cited (its words for what the quote says are left out)
    partly        the same, and after each claim taken for invented (a fact no passage states),
                  ``UNSUPPORTED_MARK``; a claim neither vouched for nor refuted stays unmarked
                  (left out after a factoid's quoted sentence)
    unverified    ``NOT_CONFIRMED`` first, then the answer (its invented claims marked); so
    or empty      too a partly supported factoid whose short answer is not vouched for, and an
                  answer with nothing in it to check ("- l - O - I", "Yes."); after a
                  factoid's short answer, the passage sentence mentioning it (its facts and
                  some of the question's words), cited, to check it against; after a list of
                  items too short to check ("- l - O - I"), the passage sentence holding
                  every item and some of the question's words, cited
    unsupported   for a factoid, not the answer: "The documents don't say <what was asked>."
                  first (and, for a short answer of another kind than asked for, that it is
                  not one), then what the passage nearest to the question says, cited; a summary,
                  list or comparison is never refused: ``NOT_STATED`` first, each sentence
                  marked
    refused       the refusal, its first sentence worded for the question ("The documents don't
                  say how many employees NIST has."); so too a factoid's short answer the model
                  itself followed with "Not found in the documents." and that is not vouched
                  for ("**47**. Not found in the documents."), said to be the model's guess

A question answered yes or no ("Is Chubby a lock service?") is answered "**Yes**." or "**No**."
with the passage sentence stating the whole question, quoted and cited ("No" where one of them
is negated), and a word when the model's reply said otherwise (``answer_quotes.yes_or_no``).

A factoid refused or unsupported while the trained reader is sure of a sentence that does not
hold the model's answer, or finds one stating it that the model's own reply restates (a wrong
short answer above a right sentence: ``grounding.located.stated_instead``), is shown with that
sentence instead: "**The documents say:** “...” [1]", then what became of the model's answer.

A why or how the model answered (any verdict but refused or empty) is shown with the passage
sentences that explain it, when a sentence states most of the question and it names nothing the
documents never mention (``answer_quotes.explanation``): "The passages explain it: “...” [1]",
then the model's claims saying more about those sentences, cited, and its invented ones, marked.

Whatever the verdict, an answer to "What does SDLC stand for?" that is not refused and lacks the
words a passage spells the acronym out with is followed by that passage's sentence, cited.

The verdict itself is ``ragcore.grounding``'s, computed in ``support.cite``; this module only
writes the text, for the app's Query and Chat pages and the CLI alike (``markers.mark_listing``
calls it).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Callable, Sequence

from ..grounding import (
    EMPTY,
    REFUSED,
    UNSUPPORTED,
    UNVERIFIED,
    ClaimCheck,
    QuestionKind,
    asks_one_fact,
    closest_with_position,
    not_said,
    question_kind,
)
from ..grounding.answer_type import REPEATS
from ..grounding.claims import sentence_spans
from ..grounding.located import stated_instead
from ..grounding.nearest import not_mentioned
from ..grounding.text import content_stems, fold, without_markers
from ..llms.extractive.question import asked_acronym
from ..llms.extractive.text import LIST_ITEM
from ..prompts.answer import NOT_FOUND_SENTENCE
from ..readers.markdown.readable import without_tags
from ..retrieval.acronyms import expanded, expansion_in
from .answer_quotes import (about_it, explanation, holds_draft, quoted, short,
                            stating_sentence, yes_or_no)
from .sources import ListedSource, SourceListing
from .support import NEAREST

UNSUPPORTED_MARK = "**(not in the documents)**"
# An agent's reply when no tool showed it a passage: its answer is the model's own.
UNOBSERVED = ("**Not from the documents:** the agent's tools showed it no passage, so this "
              "answer is the model's own.")
# A reply that read no passage: an answer from the conversation alone.
UNREAD = "*From our conversation, not checked against your documents.*"
NEAREST_LEAD = "What they say nearest to it:"
STATED_LEAD = "**The documents say:**"
LOCATED_LEAD = "Where the passages mention it:"
EXPLAINED_LEAD = "The passages explain it:"
LISTED_LEAD = "Where the passages list them:"
SPELLED_LEAD = "Where the passages spell it out:"
_TRAILING_REFUSAL = re.compile(r"(?<=\S)[ \t]*\**" + re.escape(NOT_FOUND_SENTENCE.rstrip(".")) +
                               r"\.?\**[ \t]*$")
_WORD = re.compile(r"\w")
NOT_CONFIRMED = ("**Not confirmed by the passages:** this answer could not be matched to what "
                 "they say; check it against the sources below.")
NOT_STATED = ("**Check this answer against the sources:** none of its sentences could be matched "
              "to the passages; the ones stating what no passage holds are marked.")


def grounded_text(answer: str, listing: SourceListing, listed: Sequence[ListedSource],
                  marker: Callable[[int], str]) -> tuple[str, tuple[int, ...]]:
    """The answer as shown, and the cited sources in marker order (0-based positions in
    ``listed``, the listing's sources sorted by number)."""
    text, order = _shown(answer, listing, listed, marker)
    question = listing.question
    if listing.verdict is not None and question.strip() and not text.startswith(
            (not_said(question), NOT_FOUND_SENTENCE)):
        text, order = _spelled_out(text, listed, question, order, marker)
    return text, order


def _shown(answer: str, listing: SourceListing, listed: Sequence[ListedSource],
           marker: Callable[[int], str]) -> tuple[str, tuple[int, ...]]:
    verdict = listing.verdict
    text = without_markers(answer)
    if verdict is None or not _WORD.search(text):  # "…": stopped before a word, nothing to check
        return text, ()
    polar = yes_or_no(listing.question, text, listed)
    if polar is not None:  # "Is ...?": Yes or No, by the sentence that states the question
        answer, said, position, quote = polar
        other = (f"\n\n*The model answered \u201c{said}\u201d; this sentence says otherwise.*"
                 if said and said != answer else "")
        return f"**{answer}**. \u201c{quote}\u201d {marker(1)}{other}", (position,)
    factoid = asks_one_fact(listing.question)
    lead = verdict.claims[0] if verdict.claims else None
    explained = (explanation(listing.question, verdict, listed)
                 if verdict.label not in (REFUSED, EMPTY) and not _disowned(lead, text) else None)
    if explained is not None:  # a why or how: the passage sentences explaining it, quoted
        position, span, quote = explained
        shown = f"{EXPLAINED_LEAD} \u201c{quote}\u201d {marker(1)}", (position,)
        return _after_its_sentence(shown, about_it(verdict.claims, listing.question, position,
                                                   span), marker)
    if (verdict.label in (UNSUPPORTED, REFUSED) or _disowned(lead, text)) and factoid:
        instead = stated_instead(listing.question, [s.scored.node.text for s in listed],
                                 lead, absent=bool(verdict.unmentioned), restating=[
                                     c.text for c in verdict.claims[1:] if c.supported])
        if instead is not None:  # the reader is sure a sentence states it: that, quoted
            position, quote = instead
            return _instead_of(lead, verdict.label == REFUSED, quote, marker), (position,)
    if (verdict.label == UNSUPPORTED or _disowned(lead, text)) and factoid:
        return _not_said(listing, listed, marker, guessed=_disowned(lead, text))
    if verdict.label != REFUSED:  # "**150**. Not found in the documents.": the model's slip
        text = _TRAILING_REFUSAL.sub("", text)
    if verdict.label == UNSUPPORTED:  # a summary or a list is never refused: its sentences marked
        text, order = _marked(text, verdict.claims, marker)
        return f"{NOT_STATED}\n\n{text}", order
    if verdict.label == REFUSED:
        return _refusal(text, listing.question, verdict.unmentioned), ()
    # A short answer alone, or a factoid's short answer whatever the model wrote around it:
    # shown with the sentence stating it, then what the model added, cited or marked.
    if lead is not None and lead.supported and (len(verdict.claims) == 1 or (
            short(lead.claim) and factoid)):
        shown = _with_its_sentence(lead, listed, marker, listing.question)
        if shown is not None:
            return _after_its_sentence(shown, verdict.claims[1:], marker)
    text, order = _marked(text, verdict.claims, marker)
    if _unconfirmed_answer(lead, listing.question):
        # said first, plainly: not the short answer itself; then where the passages mention it
        text, order = _located(lead, listed, listing.question, text, order, marker)
        return f"{NOT_CONFIRMED}\n\n{text}", order
    if verdict.label == EMPTY and question_kind(listing.question) is QuestionKind.LIST:
        text, order = _listed_together(text, listed, listing.question, order, marker)
    if verdict.label in (UNVERIFIED, EMPTY) and text.strip():
        # nothing here is vouched for, or nothing in it could be checked ("- l - O - I")
        return f"{NOT_CONFIRMED}\n\n{text}", order
    return text, order


def _disowned(lead: ClaimCheck | None, text: str) -> bool:
    """A short answer the model itself followed with "Not found in the documents." and that
    nothing in the passages confirms ("**47**. Not found in the documents."): its guess."""
    return (lead is not None and not lead.supported and short(lead.claim)
            and bool(_TRAILING_REFUSAL.search(text)))


def _unconfirmed_answer(lead: ClaimCheck | None, question: str) -> bool:
    """A factoid's short answer neither vouched for nor refuted ("**1234**. The HTTP protocol
    does not place any a priori limit on the length of a URI. [1]"): the sentence after it may
    be the passages', the answer is not."""
    return (lead is not None and not lead.supported and not lead.refuted
            and short(lead.claim) and question_kind(question) is QuestionKind.FACTOID)


def _with_its_sentence(check: ClaimCheck, listed: Sequence[ListedSource],
                       marker: Callable[[int], str], question: str = ""
                       ) -> tuple[str, tuple[int, ...]] | None:
    """A short answer ("**Alabama**.") with the passage sentence that states it, quoted and
    cited, in place of whatever the model wrote around it: a factoid is shown with its
    sentence. The sentence is the one that states the answer's facts and holds most of its
    words, then of the question's, then in or beside the windows the verdict found. None for
    an answer that is a sentence, or when no passage sentence states it."""
    if not check.support:
        return None
    found = stating_sentence(check, listed, question, [
        *((position, spans.index(span)) for position, span in check.support
          if position < len(listed)
          and span in (spans := sentence_spans(listed[position].scored.node.text, wrapped=True))),
        # any sentence stating it with more of the question's words: "**2**." is quoted with
        # "... two blank lines." rather than "... a two character keyword ..."
        *((position, None) for position in range(len(listed)))])
    if found is None:
        return None
    position, quote = found
    return f"{check.claim.text} \u201c{quote}\u201d {marker(1)}", (position,)


def _after_its_sentence(shown: tuple[str, tuple[int, ...]], rest: Sequence[ClaimCheck],
                        marker: Callable[[int], str]) -> tuple[str, tuple[int, ...]]:
    """A short answer quoted with its sentence (``shown``), then the model's other claims: the
    ones taken for invented, marked; the supported ones saying more than the quote, cited; the
    rest (the model's words for what the quote says, or what nothing confirms) left out."""
    text, order = shown[0], list(shown[1])
    said = set(content_stems(text))
    parts = [text]
    for check in rest:
        if check.refuted:
            parts.append(f"{check.text} {UNSUPPORTED_MARK}")
        elif check.supported and not set(check.claim.stems) <= said:
            origins = sorted({p for p, _ in check.support})
            order += [o for o in origins if o not in order]
            numbers = sorted(order.index(o) + 1 for o in origins)
            parts.append(check.text + "".join(f" {marker(n)}" for n in numbers))
    return " ".join(parts), tuple(order)


def _located(lead: ClaimCheck, listed: Sequence[ListedSource], question: str,
             text: str, order: tuple[int, ...], marker: Callable[[int], str]
             ) -> tuple[str, tuple[int, ...]]:
    """An unconfirmed short answer with the passage sentence that mentions it (its facts or
    words, and the question's), for the reader to check it against; ``text`` unchanged when
    no passage sentence does."""
    found = stating_sentence(lead, listed, question,
                              [(position, None) for position in range(len(listed))],
                              asked_too=True)
    if found is None:
        return text, order
    position, quote = found
    return _followed_by(text, LOCATED_LEAD, quote, position, order, marker)


def _followed_by(text: str, lead: str, quote: str, position: int, order: tuple[int, ...],
                 marker: Callable[[int], str]) -> tuple[str, tuple[int, ...]]:
    """``text``, then ``lead`` and the passage sentence ``quote`` of the listed source at
    ``position``, cited (the source added to the cited ``order`` if new)."""
    order = order if position in order else (*order, position)
    return f"{text}\n\n{lead} \u201c{quote}\u201d {marker(order.index(position) + 1)}", order


def _listed_together(text: str, listed: Sequence[ListedSource], question: str,
                     order: tuple[int, ...], marker: Callable[[int], str]
                     ) -> tuple[str, tuple[int, ...]]:
    """A list of items too short to check ("- l - O - I") with the passage sentence holding
    every item as a word of its own, written as the answer writes it, and the most of the
    question's words (one at least); ``text`` unchanged for fewer than two items or when no
    sentence holds them all."""
    items = [_ITEM_MARKUP.sub("", LIST_ITEM.sub("", line)).strip()
             for line in text.splitlines() if LIST_ITEM.match(line)]
    if len(items) < 2 or not all(items):
        return text, order
    words = [re.compile(rf"(?<![\w-]){re.escape(item)}(?![\w-])") for item in items]
    asked = set(content_stems(question))
    best: tuple[int, int, str] | None = None
    for position, source in enumerate(listed):
        node_text = source.scored.node.text
        for start, end in sentence_spans(node_text, wrapped=True):
            sentence = node_text[start:end]
            held = len(asked & set(content_stems(sentence)))
            if held and all(w.search(sentence) for w in words) and (
                    best is None or held > best[0]):
                best = (held, position, sentence)
    if best is None:
        return text, order
    _, position, sentence = best
    return _followed_by(text, LISTED_LEAD, quoted(sentence), position, order, marker)


_ITEM_MARKUP = re.compile(r"[*`\"'\u2018\u2019\u201c\u201d]|[.;,]$")


def _spelled_out(text: str, listed: Sequence[ListedSource], question: str,
                 order: tuple[int, ...], marker: Callable[[int], str]
                 ) -> tuple[str, tuple[int, ...]]:
    """For "What does SDLC stand for?", an answer lacking the words a passage spells the
    acronym out with ("**SDLC**. SDLC is also widely used for “system development life
    cycle.”") followed by that passage's sentence, cited; ``text`` unchanged otherwise."""
    acronym = asked_acronym(question)
    if acronym is None:
        return text, order
    for position, source in enumerate(listed):
        sentence = expansion_in(source.scored.node.text, acronym)
        words = None if sentence is None else expanded(sentence, acronym)
        if words is None:
            continue
        if fold(words) in fold(text):
            return text, order
        return _followed_by(text, SPELLED_LEAD, quoted(sentence), position, order, marker)
    return text, order


def unobserved(text: str) -> str:
    """An agent's reply no tool observation backs, said so first, its markers left out."""
    return f"{UNOBSERVED}\n\n{without_markers(text)}" if text.strip() else text


def unread(text: str) -> str:
    """A reply that read no passage (from memory), said so first, its markers left out."""
    return f"{UNREAD}\n\n{without_markers(text)}" if text.strip() else text


def _not_said(listing: SourceListing, listed: Sequence[ListedSource],
              marker: Callable[[int], str], guessed: bool = False
              ) -> tuple[str, tuple[int, ...]]:
    passages = [source.scored.node.text for source in listed]
    absent = listing.verdict.unmentioned if listing.verdict is not None else ()
    if absent:  # what the question names, no passage mentions: said so, plainly
        first = not_mentioned(listing.question, absent)
    else:
        first = not_said(listing.question) if listing.question else NOT_FOUND_SENTENCE
        first += _why_not(listing.verdict.claims[0] if listing.verdict and listing.verdict.claims
                          else None, guessed)
    lead = listing.verdict.claims[0] if listing.verdict and listing.verdict.claims else None
    avoid = None if lead is None else partial(holds_draft, lead, listing.question)
    for position, source in enumerate(listed):
        if source.use.note == NEAREST and source.use.spans:
            start, end = source.use.spans[0]
            quote = " ".join(without_tags(source.scored.node.text[start:end]).split())
            if avoid is None or not avoid(quote):
                return f"{first}\n\n{NEAREST_LEAD} \u201c{quote}\u201d {marker(1)}", (position,)
    quote, position = closest_with_position(listing.question, passages, avoid=avoid)
    if quote:
        return f"{first}\n\n{NEAREST_LEAD} \u201c{quoted(quote)}\u201d {marker(1)}", (position,)
    return first, ()


def _why_not(lead: ClaimCheck | None, guessed: bool = False) -> str:
    """Why a short answer was not shown: it is not what was asked for, or the model's guess
    that it said is not in the documents."""
    if lead is None:
        return ""
    written = " ".join(without_markers(lead.text).replace("*", "").split()).rstrip(". ")
    if guessed:
        return (f" The answer written, \u201c{written}\u201d, is the model's guess: it wrote "
                "that the documents do not say, and no passage confirms it.")
    if not lead.off_question:
        return ""
    if lead.off_question == REPEATS:
        said = "a word" if len(written.split()) == 1 else "words"
        return (f" The answer written, \u201c{written}\u201d, only gives back {said} of your "
                "question, so it tells you nothing new.")
    return f" The answer written, \u201c{written}\u201d, is not {lead.off_question}."


def _instead_of(lead: ClaimCheck | None, refused: bool, quote: str,
                marker: Callable[[int], str]) -> str:
    """The sentence the reader is sure states the answer, quoted and cited first; then what
    became of the model's answer: its refusal, or its short answer, which the sentence does
    not hold."""
    first = f"{STATED_LEAD} \u201c{quote}\u201d {marker(1)}"
    if refused or lead is None:
        return f"{first}\n\n*The model wrote that the documents do not say; this sentence does.*"
    written = " ".join(without_markers(lead.text).replace("*", "").split()).rstrip(". ")
    return (f"{first}\n\n*The model's answer, \u201c{written}\u201d, is not the answer "
            "this sentence gives, so it is not shown as the answer.*")


def _refusal(text: str, question: str, absent: Sequence[str] = ()) -> str:
    """The refusal with its fixed first sentence worded for ``question`` (what it names that
    the documents never write: ``absent``)."""
    if question.strip() and text.startswith(NOT_FOUND_SENTENCE):
        first = not_mentioned(question, absent) if absent else not_said(question)
        return first + text[len(NOT_FOUND_SENTENCE):]
    return text


def _marked(text: str, checks: Sequence[ClaimCheck], marker: Callable[[int], str]
            ) -> tuple[str, tuple[int, ...]]:
    """``text`` with markers after supported claims and the mark after the others. A claim
    followed on its line by a supported claim citing the same passages leaves the marker to it
    ("**80 bytes**. The field is 80 bytes long. [1]")."""
    order: list[int] = []
    inserts: list[tuple[int, str]] = []
    ordered = sorted(checks, key=lambda c: c.claim.span)
    for i, check in enumerate(ordered):
        end = check.claim.span[1]
        if check.refuted:
            inserts.append((end, f" {UNSUPPORTED_MARK}"))
        if not check.supported:
            continue
        origins = sorted({p for p, _ in check.support})
        following = ordered[i + 1] if i + 1 < len(ordered) else None
        if (following is not None and following.supported and "\n" not in
                text[end:following.claim.span[0]]
                and sorted({p for p, _ in following.support}) == origins):
            continue
        for origin in origins:
            if origin not in order:
                order.append(origin)
        numbers = sorted(order.index(o) + 1 for o in origins)
        inserts.append((end, "".join(f" {marker(n)}" for n in numbers)))
    pieces, position = [], 0
    for at, insert in sorted(inserts, key=lambda x: x[0]):
        at = _after_punctuation(text, at)
        pieces += [text[position:at], insert]
        position = at
    pieces.append(text[position:])
    return "".join(pieces), tuple(order)


def _after_punctuation(text: str, at: int) -> int:
    """Past a closing ``**`` or quote right at ``at``, so a marker never splits emphasis."""
    while at < len(text) and text[at] in "*\u201d\"'":
        at += 1
    return at
