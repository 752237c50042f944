"""An answer to one fact located: the passage sentence that holds it and states what was asked;
and what a question names that no passage mentions.

The verdict's claim features (``verdict``) leave many right answers undecided on documents
nobody tuned on: "**150-300ms**." is a few characters, and a paraphrase and a wrong entity of the
same passage score alike. What tells them apart is where the answer stands: a right one sits in
a sentence that also states most of the question ("Raft recommends ... election timeouts ...
150-300ms"); a wrong one sits in a sentence about something else, or states only a word of it
(an example's ``GOPROXY=...`` for "the default GOPROXY"). ``asked_share`` measures that, the
question's words about the document itself left out ("the paper", "according to the guide"),
and the name of what the documents are about (their titles' words the question names: "TOML"
in a question over the file titled "TOML"): a sentence of the document never restates them. A
sentence answer ("The short form of the `--text` flag is `-a`.") is located by what it adds to
the question (``-a``); a "why" or "how" is explained in the model's words, and is not.
``LOCATED_SHARE`` is the share to reach, fitted on SQuAD's training questions against the same
questions with their answer's sentence removed (``training/answerer/located.py``; the titled
articles of the training split with their titles as subjects, beside):

    share   right answers' sentences reaching it   best other sentence reaching it
                samples       titled, subjects       samples       titled, subjects
    0.5         72.5 %        69.0 %                 29.0 %        22.8 %
    0.6         58.1 %        53.0 %                 14.9 %        11.1 %   <- chosen
    0.7         40.2 %        35.7 %                  6.5 %         5.4 %
    0.8         29.2 %        25.3 %                  3.7 %         3.4 %

(chosen on the unseen set's tune half: 0.7 first refused right short answers at 0.6-0.7; the
titled articles without subjects: 70.3 / 54.1 % against 25.9 / 13.1 % at 0.5 / 0.6, so the
titles take out more wrong sentences than right ones). The other sentence is the one stating
most of the question: an upper bound for where a wrong answer stands. ``unmentioned`` is the
premise check: a name, an unlisted word or code of the question ("etcd", "Consul") that no
passage holds means the documents do not speak of it, and an answer about it is not theirs.

Beside the word share, the trained reader (``stating``) reads the question with each sentence:
a sentence it gives ``stating.STATES`` locates an answer it holds and keeps one the features
vouch for ("The client waits a further interval called the grace period, 45s by default." does
not name the Chubby client it speaks of); ``stated_instead`` is the sentence it is sure of
(``stating.SURE``) where the model's answer is not. A part of a narrowed answer, and a
question naming what no passage mentions, and an answer the model itself followed with "Not
found in the documents.", are located by the words alone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Callable, Sequence, TypeVar

from .answer_type import asked_for, mention_topic, unshown, wants_an_explanation
from .claims import Claim, Span, sentence_spans, short_answer, written_words
from .facts import Facts, facts_of, missing_facts
from .holding import Check as _Check, holds, holds_answer, stated_by, what_locates
from .kinds import asks_one_fact, list_part
from . import stating
from .text import NEGATION, UNIT_WORDS, content_stems, fold, refers_back


ClaimCheck = TypeVar("ClaimCheck", bound=_Check)

LOCATED_SHARE = 0.6
POINTED_BACK = 2  # the sentences after an answer's read with it, each pointing back
# "in the SSDF document", "the Raft paper": a name of the document, not of what it speaks of.
_NAMED_DOCUMENT = re.compile(r"\b[\w.-]+(?=\s+(?:document|paper|guide|manual|spec|"
                             r"specification|report|book|chapter|article|proposal|standard|"
                             r"whitepaper|white paper|RFC)s?\b)", re.IGNORECASE)
# A short answer the features vouch for stands in a sentence stating at least this share of
# the question (78.0 % of right answers' sentences do, at most 38.6 % of the others): below it,
# it is an example's value or a neighbour's fact ("GOPROXY=https://proxy.site/path" for "the
# default GOPROXY").
VETO_SHARE = 0.4
# A claim of the model's restates a passage sentence when it holds this share of its content
# words: written from it ("Alexander I married Sybilla of Normandy." of "... Alexander I
# married Sybilla of Normandy, ..."; "Ralph was charged with defending the Marches and warring
# with the Welsh." of a sentence naming Edward the Confessor and the earldom of Hereford too).
# 0.6 -> 0.5 (`benchmarks/reader/README.md`): the training article 57 -> 58 right, 14 wrong
# both; then SQuAD dev 146 -> 148 right, 21 wrong and 68 unanswerable shown both.
RESTATED = 0.5
_POSSESSIVE = re.compile(r"['\u2019]s\b")
# A reply that points at the passages instead of naming an answer: "The passage states that
# ...", "According to the documents, ...", "The text mentions ...".
POINTS_AT = re.compile(r"^\W*(?:(?:the|this|that)\s+)?(?:passages?|documents?|text|context|"
                       r"sources?|excerpts?)\s+(?:\w+\s+)?(?:states?|says?|mentions?|notes?|"
                       r"describes?|indicates?|reads?)\b|^\W*according\s+to\s+the\s+"
                       r"(?:passages?|documents?|text|context|sources?)\b", re.IGNORECASE)
# A question's words about the document itself: "the paper", "according to the guide".
_DOCUMENT_WORDS = frozenset(content_stems(
    "paper papers document documents article chapter guide manual specification spec report "
    "book section according passage passages text author say says"))


@lru_cache(maxsize=256)
def asked_stems(question: str, subjects: tuple[str, ...] = ()) -> frozenset[str]:
    """The question's content words (stems) a sentence answering it would state: not its words
    about the document itself ("the paper"), nor the name of what the documents are about
    (``subjects``: their titles; "TOML" in "What prefix do octal integers use in TOML?", which
    the TOML specification's sentences never restate)."""
    # each word once: "Dai's" as "Dai", "date-times" as "date" and "times" (a sentence writing
    # "W. Dai," or "date and time" states them)
    stems = content_stems(_POSSESSIVE.sub("", question))
    return (frozenset(s for s in stems if "-" not in s) - _DOCUMENT_WORDS
            - subject_stems(question, subjects))


def subject_stems(question: str, subjects: Sequence[str]) -> frozenset[str]:
    """The words of ``subjects`` (the documents' titles) that ``question`` names (a name, an
    unlisted word or code of it, as ``facts`` reads them): "toml" for a question about "TOML"
    over the file titled "TOML"; not "cash" of "Bitcoin: A Peer-to-Peer Electronic Cash System"."""
    if not subjects:
        return frozenset()
    facts = facts_of(question)
    named = set(content_stems(" ".join(sorted(facts.names | facts.terms | facts.code))))
    return frozenset(named & set(content_stems(" ".join(subjects))))


def asked_share(question: str, sentence: str, subjects: tuple[str, ...] = ()) -> float:
    """The share of the question's content words (``asked_stems``) that ``sentence`` holds
    (0 for a question with none)."""
    asked = asked_stems(question, subjects)
    if not asked:
        return 0.0
    return len(asked & set(content_stems(sentence))) / len(asked)


def unmentioned(question: str, passages: Sequence[str], subjects: Sequence[str] = (),
                held: Callable[[str], bool] | None = None) -> list[str]:
    """The names, unlisted words and code of ``question`` that none of ``passages`` holds, as
    the question writes them ("etcd", "Consul"); [] when every one is there. A name of what
    the documents are about (``subjects``, their titles: "TOML") is theirs wherever it stands,
    and so is one the index holds beyond the passages (``held``: the index's words; "President"
    in a question about a speech whose passages found never write it)."""
    facts = facts_of(_NAMED_DOCUMENT.sub("", question))
    theirs = subject_stems(question, tuple(subjects))

    def kept(found: frozenset[str]) -> frozenset[str]:
        return frozenset(f for f in found if not set(content_stems(f)) <= theirs)

    premise = Facts(names=kept(facts.names), terms=kept(facts.terms), code=kept(facts.code))
    if not passages:
        return []
    joined = "\n\n".join(passages)
    missing = [_as_written(m, question) for m in missing_facts(premise, joined)]
    absent = [name for name in missing if held is None or not held(name)]
    # what a question asks them to mention, a word of which neither the passages nor the index
    # hold ("quantum computing" in a speech never writing "quantum"): only with the index to ask
    topic = mention_topic(question)
    if topic and held is not None and not held(topic) and not set(
            content_stems(topic)) <= set(content_stems(joined)) and not any(
            name.casefold() in topic.casefold() for name in absent):
        absent.append(topic)
    return absent


def _as_written(missing: str, question: str) -> str:
    """"the name consul" as the question writes it: "Consul"."""
    word = missing.split(" ", 2)[-1]
    for token in question.replace("?", " ").replace(",", " ").split():
        if token.strip("`'\"()").casefold().removesuffix("'s") == word.casefold():
            return token.strip("`'\"()").removesuffix("'s")
    return word


def restated(checks: Sequence[ClaimCheck], question: str) -> ClaimCheck:
    """The first check, vouched for when it is a short answer left unverified ("**39**.") that
    a later claim the passages state restates with the question ("There are thirty-nine
    enormous beryls in the beryl coronet."): that claim's words hold the answer's and the
    question's, so its support is the answer's. A restatement missing a word of the question
    ("Craig has signed on for two more films" for "Who has signed on for three more films?")
    vouches for nothing."""
    lead = checks[0]
    if lead.supported or lead.refuted or not short_answer(lead.claim):
        return lead
    wanted = set(lead.claim.stems) | set(content_stems(question))
    for check in checks[1:]:
        if check.supported and wanted <= set(check.claim.stems):
            return replace(lead, supported=True, support=check.support)
    return lead


def decided(lead: ClaimCheck, passages: Sequence[str], question: str,
            subjects: tuple[str, ...] = (), absent: bool = False,
            doubted: bool = False) -> ClaimCheck:
    """An answer to one fact (``asks_one_fact``) the verdict's features left undecided, decided:
    a short answer, or what a sentence answer adds to the question, vouched for by the passage
    sentence that holds all of it and states ``LOCATED_SHARE`` of the question or that the
    trained reader finds stating the answer (``located``),
    taken for invented otherwise ("The documents don't say ..." is shown, not a hedge). One the
    features vouch for is taken for invented when its sentence states little of the question
    (``VETO_SHARE``), or when the question names what the documents do not mention
    (``absent``: "the default election timeout in etcd") and the sentence does not state the
    question. A short answer
    no such sentence holds whole, or with a fact no passage states, is narrowed to the most of
    it one does hold (``_narrowed``: "**Kegel**." of "**Dan Kegel**."), and shown so. A why or
    how is explained, not located (``present.answer_quotes``)."""
    short = short_answer(lead.claim)
    stems, forms = what_locates(lead.claim, short, question)
    own = set(lead.claim.stems) - set(content_stems(question))
    adds = bool(own) or bool(missing_facts(lead.claim.facts, question)) or bool(forms)
    # "The passage states that “There are also a few parameters for tuning the replication
    # backlog ...”": a pointer at a sentence answers only where that sentence states the question
    pointer = not short and bool(POINTS_AT.match(lead.claim.text))
    # refuted only for a fact the question gives ("**Emma's brother** was Duke Richard II of
    # Normandy." of "Who was Emma's brother?", where the passage writes "Emma, sister of Duke
    # Richard II"): the answer is what it adds, located in a sentence the reader is sure of
    # (``stating.SURE``: the question's phrase unwritten, "his nephew Tancred" may state
    # another relation than "Tancred's nephew"; the reader gave that one 0.83)
    asked_only = lead.refuted and _refuted_for_the_question(lead, question)
    refuted = lead.refuted and not asked_only
    if (lead.claim.item or not adds or not asks_one_fact(question)
            or (not short and (wants_an_explanation(question) or refuted
                               or (lead.supported and not pointer)))):
        return lead  # "**SDLC**." only repeats the question; a "why" is explained, not located
    # an answer the model itself followed with "Not found in the documents." (``doubted``) is
    # located by the words alone: its own doubt outweighs the reader's chance
    read = {} if doubted else {(s.passage, s.span): s.chance
                               for s in stating.stated(question, passages)}
    if lead.supported and not lead.refuted:
        found = [_stating_share(lead, stems, forms, passages[p], span, question, subjects,
                                read, p) for p, span in lead.support if p < len(passages)]
        share = max((f[0] for f in found), default=0.0)
        chance = max((f[1] for f in found if f[1] is not None), default=None)
        # a question naming what no passage mentions is stated only by its words: the reader
        # cannot know the name it lacks ("When does the Fastnet lighthouse light its lamp?")
        if ((answers(share, chance) if pointer else kept(share, chance))
                and not (absent and share < LOCATED_SHARE)):
            return lead
    invented = lead if lead.refuted else replace(lead, supported=False, refuted=True,
                                                 support=(), score=min(lead.score, 0.5))
    if absent or pointer:  # a pointer's sentence was read above: it is the only one it names
        return invented
    # the short answer as written (unless a fact of it is not the passages'), else the most of
    # it a sentence stating the question holds ("**Kegel**." of "**Dan Kegel**.": "Dan Kegel
    # outlines ...", then "Kegel coined ...")
    whole = () if refuted else (lead.claim,)
    for claim in (*whole, *(_narrowed(lead.claim, question) if short else ())):
        held = replace(lead, claim=claim)
        # a part of the answer is located by the words alone: the reader's sentence states
        # the answer, not that part ("**metres**." of "**620 metres**.")
        best = _stating(held, *what_locates(claim, short, question), passages, question,
                        subjects, read if claim is lead.claim else {})
        if best is not None and asked_only and read.get(best, 0.0) < stating.SURE:
            continue
        if best is not None:
            return replace(held, supported=True, refuted=False, support=(best,),
                           score=max(lead.score, 0.5), missing=() if asked_only else held.missing)
    return invented


def stated_instead(question: str, passages: Sequence[str], lead: _Check | None, *,
                   absent: bool = False, restating: Sequence[str] = ()
                   ) -> tuple[int, str] | None:
    """The passage sentence that states the answer to ``question`` when the model's answer
    (``lead``; None: it refused) is not it: (its passage's position, the sentence), or None,
    and None when the question names what the documents do not mention (``absent``).

    Either the reader is sure of the sentence (``stating.SURE``) and it does not hold the
    model's answer, or two readers agree on it: it is the reader's likeliest sentence, likely
    enough (``stating.STATES``), and one of the reply's other claims the passages support
    (``restating``) restates it ("**Alexander I**. Alexander I married Sybilla of Normandy."):
    the short answer was wrong where the model's sentence was right. The sentence must show
    the kind of thing asked for (a sum of money, a count, a year: ``answer_type.unshown``).
    Seen on SQuAD dev's rows, where 12 of the 19 right replies refused were of this shape
    (``benchmarks/reader/README.md``)."""
    if absent or not asks_one_fact(question) or wants_an_explanation(question):
        return None
    found = stating.stated(question, passages)
    if not found:
        return None
    best = found[0]
    sentence = " ".join(passages[best.passage][slice(*best.span)].split())
    if best.chance >= stating.SURE and (lead is None or not holds_answer(lead, question,
                                                                         sentence)):
        return best.passage, sentence
    if best.chance < stating.STATES or not _restated(sentence, restating) or unshown(
            question, sentence):  # "How much does it cost?": a sentence with no sum of money
        return None
    return best.passage, sentence


def _refuted_for_the_question(lead: _Check, question: str) -> bool:
    """Whether every fact ``lead`` lacks in the passages is one ``question`` states, and none
    is displaced."""
    missing = set(lead.missing)
    return (bool(missing) and not lead.displaced
            and not missing - set(stated_by(question, lead.claim.facts)))


def _restated(sentence: str, claims: Sequence[str]) -> bool:
    """Whether one of ``claims`` says half or more of what ``sentence`` says (``RESTATED`` of its
    content words): the model wrote it from that sentence."""
    own = set(content_stems(sentence))
    return bool(own) and any(len(own & set(content_stems(c))) >= RESTATED * len(own)
                             for c in claims)


def located(share: float, chance: float | None) -> bool:
    """Whether a sentence holding an answer states what was asked: it repeats
    ``LOCATED_SHARE`` of the question, or the reader gives it ``stating.STATES``."""
    return share >= LOCATED_SHARE or (chance is not None and chance >= stating.STATES)


def answers(share: float, chance: float | None) -> bool:
    """Whether the sentence a reply points at ("The passage states that ...") answers: the
    reader gives it ``stating.STATES`` (the words it shares with the question say what it is
    about, not that it answers), or, without the reader, it repeats ``LOCATED_SHARE`` of the
    question."""
    return share >= LOCATED_SHARE if chance is None else chance >= stating.STATES


def kept(share: float, chance: float | None) -> bool:
    """Whether an answer the claim features vouch for stays vouched for where it stands: as
    ``located``, with ``VETO_SHARE`` for the words' share."""
    return share >= VETO_SHARE or (chance is not None and chance >= stating.STATES)


def _stating(lead: _Check, stems: set[str], forms: Sequence[str], passages: Sequence[str],
             question: str, subjects: tuple[str, ...], read: dict[tuple[int, Span], float]
             ) -> tuple[int, Span] | None:
    """The passage sentence that holds ``lead`` and states what was asked (``located``), the
    reader's likeliest first (``read``: its chance for each), then the most of the question."""
    best: tuple[float, float, int, Span] | None = None
    for position, passage in enumerate(passages):
        spans = sentence_spans(passage, wrapped=True)
        for at, span in enumerate(spans):
            sentence = passage[span[0]:span[1]]
            if not holds(lead, stems, forms, sentence, question):
                continue
            share, chance = asked_share(question, sentence, subjects), read.get((position, span))
            if not located(share, chance):
                read_with = _read_with(passage, spans, at, question, subjects, read, position)
                if read_with is None:
                    continue
                share, chance, span = read_with
            key = (chance or 0.0, share, position, span)
            if best is None or key[:2] > best[:2]:
                best = key
    return None if best is None else (best[2], best[3])


def _read_with(passage: str, spans: Sequence[Span], at: int, question: str,
               subjects: tuple[str, ...], read: dict[tuple[int, Span], float], position: int
               ) -> tuple[float, float | None, Span] | None:
    """The sentence read with the one at ``at`` that states what was asked (``located``): one
    of the two before it when the one before ends in a colon ("The two configurations
    directives to use are:" above ``replica-announce-port 1234``), or one of the
    ``POINTED_BACK`` after it, each pointing back ("If you travel 20 miles east of Columbus,
    Ohio, ... / It won't look like much ... / This is where Intel is going to build its ...
    mega site"): (its share, the reader's chance, the span of both); None when none does."""
    colon = at > 0 and passage[slice(*spans[at - 1])].rstrip().endswith(":")
    after = list(spans[at + 1:at + 1 + POINTED_BACK])
    after = after[:next((k for k, s in enumerate(after)
                         if not refers_back(passage[slice(*s)])), len(after))]
    for other in (*(spans[max(0, at - 2):at][::-1] if colon else ()), *after):
        share = asked_share(question, passage[slice(*other)], subjects)
        chance = read.get((position, other))
        if located(share, chance):
            ends = sorted((other, spans[at]))
            return share, chance, (ends[0][0], ends[1][1])
    return None


def _narrowed(claim: Claim, question: str) -> list[Claim]:
    """A short answer with words the passages do not state dropped from its edges, longest
    first ("**Kegel**." of "**Dan Kegel**.", where the passage writes "Kegel coined ...";
    "**millisecond precision**." of "**1 millisecond precision**."): each keeps at least half
    of its content words, one the question lacks, and what the question asks for (a "how
    long" keeps its number and shows a length of time); a unit never loses its number
    ("**metres**." of "**620 metres**."); an answer with a negation is never narrowed."""
    words = written_words(claim)
    if len(words) < 2 or NEGATION.search(fold(claim.text)):
        return []
    asked, form = set(content_stems(question)), asked_for(question)
    out = []
    for size in range(len(words) - 1, 0, -1):
        for start in range(len(words) - size + 1):
            part = " ".join(words[start:start + size])
            stems, text = tuple(content_stems(part)), f"**{part}**."
            facts = facts_of(text)
            dropped = not claim.facts.numbers <= facts.numbers
            if (2 * len(stems) < len(claim.stems) or not set(stems) - asked
                    or unshown(question, part) or (form and dropped)
                    or (dropped and set(stems) <= UNIT_WORDS)):  # a unit without its number
                continue
            out.append(Claim(text, claim.span, stems, facts, claim.item))
    return out


def _stating_share(lead: _Check, stems: set[str], forms: Sequence[str], passage: str,
                   centre: Span, question: str, subjects: tuple[str, ...] = (),
                   read: dict[tuple[int, Span], float] | None = None, position: int = -1
                   ) -> tuple[float, float | None]:
    """How much of the question the sentence stating a vouched answer holds, and the reader's
    chance that it states the answer (None without the reader): the sentence of the verdict's
    window (its centre and neighbours) that holds the answer, the best of the window's when
    none holds it whole ("... is called, mellifluously, PyEval_EvalFrameEx" beside the centre
    "The standard Python interpreter is written in C.")."""
    spans = sentence_spans(passage, wrapped=True)
    at = spans.index(centre) if centre in spans else None
    window = spans if at is None else spans[max(0, at - 1):at + 2]
    holding = [s for s in window
               if holds(lead, stems, forms, passage[s[0]:s[1]], question)] or window
    share = max((asked_share(question, passage[a:b], subjects) for a, b in holding),
                default=0.0)
    chances = [read[(position, s)] for s in holding if read and (position, s) in read]
    return share, (max(chances) if chances else None)


def listed(check: ClaimCheck, passages: Sequence[str], question: str,
           subjects: tuple[str, ...] = ()) -> ClaimCheck:
    """An item of a list answer vouched for only by a passage about something else ("Google"
    for "Which companies use Raft?", cited to a passage naming Google for another reason): its
    support dropped, so it carries no marker; neither is it taken for invented (the passages
    do name it). What is about the list is what the list part of the question asks
    (``kinds.list_part``): "explain why each matters for a small startup" is in no passage."""
    if not check.supported or not check.claim.item or not asked_stems(question, subjects):
        return check
    asked = {question, list_part(question)}
    if any(asked_share(a, passages[p], subjects) >= VETO_SHARE for p, _ in check.support
           for a in asked if p < len(passages)):
        return check
    return replace(check, supported=False, support=(), score=min(check.score, 0.5))
