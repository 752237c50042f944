"""Sentence optimizer: keep the sentences of the passages that are closest to the question.

LlamaIndex's ``SentenceEmbeddingOptimizer``: each passage is split into sentences (the splitter's
own rule, ``chunking.sentences``), the sentences and the question are embedded, and a passage
keeps only the sentences that pass ``percentile_cutoff`` (its best share) and/or
``threshold_cutoff`` (a similarity floor), with ``context_before``/``context_after`` neighbours.
Without an embedding model (``embed_model=None``: a keyword-only index, or one whose model is
not loaded) sentences are ranked by the question's words they share (stemmed, as BM25 reads).

``token_budget`` is ragcore's addition, the one rule a small local model needs: across all the
passages, the best sentences are kept until their tokens reach the budget (at least one
sentence, so a question always gets a passage). A model that reads ~50 tokens a second on two
cores answers within seconds only when it reads a few hundred tokens, and the answer to a
question is usually one or two sentences of the four passages retrieved. Under a budget the
sentences are ranked as hybrid retrieval ranks passages: meaning and words, each scaled to
0..1 over the sentences and weighed equally (``WORDS_WEIGHT``), the question's words weighed
by how rare they are among the sentences. A table row ("Snort  Sourcefire
http://www.snort.org/") or a header line ("Updates: 1738") shares the question's rarest word
and little of its meaning; the words bring it in (on the grounded set's 78 answerable
questions the gold sentence is read for 4 more at 160 tokens, 6 gained and 2 lost; 2 more at
300).

With ``by_kind`` (what the engines use) the budget is the base budget times the question's kind's
share (``ragcore.grounding.kinds``: a list needs its items, a summary more than a fact), noted
in the trace with the kind. A kept sentence that announces what follows ("... into four groups:
1.", "the following:") keeps the sentences after it in its passage, up to ``ANNOUNCED_TOKENS``
more, whatever the budget: a list cut off after its announcement is the answer lost (and a
caption under its figure, the figure's text before it: ``figures``). Likewise
under a budget, a sentence that points back ("This principle, known as shifting left, ...") is
read with the one before it: the next sentence of a kept one when it points back to it, the
sentence before a kept one that points back (each up to ``REFERRING_TOKENS``), also across a
chunk border when both passages were retrieved; a why's or how's best sentences, with the
sentence after each, its reason (``neighbours``).

Under a budget a sentence showing the form of what the question asks for (a currency for "how
much money", a cardinal for "how old": ``answer_type.asked_forms``) ranks ``FORM_WEIGHT``
higher: "She was but thirty at the time of her death" shares no word with "How old was Julia
when she died?". And with ``max_passages`` (the engines' top-k, when they retrieve a wider
pool for the reader: ``engines.from_index.reading_pool``) a factoid's sentences come from the
first that many passages its order reaches, a list's, summary's or comparison's from the first
that many passages retrieved (``KindProfile.pooled``: a list is read from its passages whole).
On the grounded set's 78 answerable questions (gold read, offline) the pool of 12 read 4 gained
3, 5 and 2 more at 160, 250 and 400 tokens. A list also reads up to ``REACHED_PASSAGES``
other passages of the pool that its ``REACHING_RANK`` best sentences stand in ("The first digit
of the Status-Code defines the class of response", in the 7th passage retrieved for "What are
the classes of HTTP status codes?"; further down, a speech's other requests of Congress
distracted the model from the gun-violence ones it was asked for); a kept sentence that is an
item of a list brings the run of items it stands in and the sentence announcing them, one at
most ``LEAD_IN`` sentences before an announcement the sentences up to it. A
sentence two passages hold (a passage grown by the rest of its list holds the next one's first
sentences) is read once.

A kept passage is a copy with the kept sentences in document order: where they are one run of
the original text its offsets still point at it (the app opens it in the document); gaps are
joined with " … " and the offsets cleared. Its metadata's ``CUT`` names the ends left out
("start", "end"), which a preview shows as "…" (the model and the embedder never read it).
Passages that keep nothing are dropped, and the trace's postprocess stage says how many went in
and out.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Sequence

import numpy as np

from ..chunking import sentences
from ..embeddings.base import Embedder, embed_query
from ..errors import ConfigError
from ..grounding.answer_type import asked_forms, wants_an_explanation
from ..grounding.kinds import QuestionKind, profile, question_kind
from ..llms.extractive.text import LIST_ITEM
from ..postprocess import Postprocessor
from ..search.lexical import terms
from ..tokens import count_tokens
from ..types import ScoredNode
from .figures import CAPTION, opens_with_caption
from .neighbours import (REFERRING_TOKENS, explained, following, read_across, read_together,
                         referring)
from .rows import names_table, rows_of_tables

GAP = " … "
CUT = "cut"  # in a kept passage's metadata: the ends of its text left out ("start", "end")
ANNOUNCED_TOKENS = 320  # what follows an announcing sentence, kept beyond the budget
REACHED_PASSAGES = 2  # a list's passages read beyond its top-k: those its best sentences reach
LEAD_IN = 2  # sentences after a kept one a list question looks for its list's announcement in
REACHING_RANK = 3  # how high a sentence must rank to bring its passage to a list's reading
WORDS_WEIGHT = 0.5  # of the question's words against its meaning, ranking sentences to read
FORM_WEIGHT = 0.15  # added for a sentence showing the form of what is asked (a sum, an age)
_ANNOUNCES = re.compile(r"(?::|\b(?:following|as follows|these|below))\s*(?:\(?\d{1,2}[.)]|[-*\u2022])?"
                        r"\s*$", re.IGNORECASE)


class SentenceEmbeddingOptimizer(Postprocessor):
    """Cuts each passage down to its sentences most similar to the question."""

    def __init__(
        self,
        embed_model: Embedder | None,
        *,
        token_budget: int | None = None,
        percentile_cutoff: float | None = None,
        threshold_cutoff: float | None = None,
        context_before: int = 0,
        context_after: int = 0,
        by_kind: bool = False,
        reader: Any = None,
        max_passages: int | None = None,
    ) -> None:
        if token_budget is None and percentile_cutoff is None and threshold_cutoff is None:
            raise ConfigError("SentenceEmbeddingOptimizer needs token_budget, percentile_cutoff "
                              "or threshold_cutoff (e.g. token_budget=200)")
        if token_budget is not None and token_budget < 1:
            raise ConfigError(f"token_budget ({token_budget}) must be at least 1 token")
        if percentile_cutoff is not None and not 0 < percentile_cutoff <= 1:
            raise ConfigError(f"percentile_cutoff ({percentile_cutoff}) must be in (0, 1], "
                              "the share of each passage's sentences to keep")
        if context_before < 0 or context_after < 0:
            raise ConfigError("context_before and context_after count sentences: 0 or more")
        self.embed_model = embed_model
        self.token_budget = token_budget
        self.percentile_cutoff = percentile_cutoff
        self.threshold_cutoff = threshold_cutoff
        self.context_before = context_before
        self.context_after = context_after
        self.by_kind = by_kind
        self.reader = reader
        self.max_passages = max_passages

    def budget_for(self, query: str) -> int | None:
        """The token budget for ``query``: the base one, times its kind's share with
        ``by_kind``."""
        return self._scaled(self._base_budget()[0], query)

    def _scaled(self, base: int | None, query: str) -> int | None:
        if base is None or not self.by_kind:
            return base
        return round(base * profile(question_kind(query)).reading_share)

    def _base_budget(self) -> tuple[int | None, str]:
        """The base budget now, and why: the reader's (fitted to its measured reading speed)
        when one is given, else ``token_budget``."""
        fitted = self.reader.reading_budget() if self.reader is not None else None
        if fitted is not None:
            return fitted.tokens, fitted.reason
        return self.token_budget, "set"

    def postprocess_traced(self, nodes: list[ScoredNode], query: str, trace: Any
                           ) -> list[ScoredNode]:
        """``postprocess``, the question's kind and the budget it set noted in ``trace``."""
        base, reason = self._base_budget()  # the reader is asked once a query
        budget = self._scaled(base, query)
        if self.by_kind and budget is not None:
            trace.notes["question_kind"] = question_kind(query).value
            trace.notes["reading_budget"] = budget
            trace.notes["reading_budget_base"] = {"tokens": base, "reason": reason}
        return self._kept(nodes, query, budget)

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return self._kept(nodes, query, self.budget_for(query))

    def _kept(self, nodes: list[ScoredNode], query: str, budget: int | None
              ) -> list[ScoredNode]:
        kind = question_kind(query)
        if budget is None and self.max_passages is not None and not profile(kind).pooled:
            nodes = nodes[: self.max_passages]  # a list or summary: the passages ranked first
        split = [sentences(scored.node.text) for scored in nodes]
        if budget is not None:  # a table's rows, one by one (``rows``)
            split = [rows_of_tables(parts) for parts in split]
        flat = [(i, j) for i, parts in enumerate(split) for j in range(len(parts))]
        if not flat or not query.strip():
            return nodes
        texts = [split[i][j] for i, j in flat]
        if self.embed_model is None:
            similarity = ranking = _shared_words(texts, query)
        else:
            vectors = self.embed_model.embed_batch(texts)
            similarity = ranking = np.asarray(vectors) @ embed_query(self.embed_model, query)
            if budget is not None:  # ragcore's reading: meaning and words, as retrieval
                ranking = ((1 - WORDS_WEIGHT) * _scaled(similarity)
                           + WORDS_WEIGHT * _scaled(_shared_words(texts, query)))
        if budget is not None:  # and the form of what is asked: "thirty" for "how old"
            forms = asked_forms(query)
            ranking = _scaled(ranking) + FORM_WEIGHT * np.array(
                [any(form.search(text) for form in forms) for text in texts], dtype=float)
        kept = self._chosen(flat, similarity, ranking, split, budget, kind)
        if budget is not None and wants_an_explanation(query):
            explained(kept, split, flat, ranking)
        joined = read_across(kept, split, following(nodes)) if budget is not None else []
        return [trimmed for i, parts, chosen in read_together(split, kept, joined)
                if (trimmed := _trimmed(_joined(nodes[i], parts, split[i]), parts, chosen))
                is not None]

    def _chosen(self, flat: list[tuple[int, int]], similarity: np.ndarray, ranking: np.ndarray,
                split: list[list[str]], budget: int | None, kind: QuestionKind
                ) -> dict[int, set[int]]:
        """Passage index -> the indexes of its sentences kept (before the context): the
        cutoffs on ``similarity``, the budget's order by ``ranking``."""
        passes = np.ones(len(flat), dtype=bool)
        if self.threshold_cutoff is not None:
            passes &= similarity >= self.threshold_cutoff
        if self.percentile_cutoff is not None:
            for i in {i for i, _ in flat}:
                rows = [r for r, (k, _) in enumerate(flat) if k == i]
                keep = max(1, round(len(rows) * self.percentile_cutoff))
                passes[sorted(rows, key=lambda r: -similarity[r])[keep:]] = False
        order = [r for r in np.argsort(-ranking, kind="stable") if passes[r]]
        if budget is not None:
            order = _distinct(order or [int(np.argmax(ranking))],
                              [split[i][j] for i, j in flat])
            if self.max_passages is not None:
                order = _from_first_passages(order, flat, self.max_passages,
                                             ranked_first=not profile(kind).pooled,
                                             reached=REACHED_PASSAGES
                                             if kind is QuestionKind.LIST else 0)
            order = _within(order, [split[i][j] for i, j in flat], budget)
        kept: dict[int, set[int]] = {}
        for r in order:
            i, j = flat[r]
            around = range(max(0, j - self.context_before),
                           min(len(split[i]), j + self.context_after + 1))
            kept.setdefault(i, set()).update(around)
        for i, chosen in kept.items():
            if kind is QuestionKind.LIST:
                chosen.update(_list_of(split[i], sorted(chosen)))
            chosen.update(_announced(split[i], sorted(chosen)))
            chosen.update(_captioned(split[i], sorted(chosen)))
            if budget is not None:  # ragcore's reading: LlamaIndex's cutoffs keep their own
                chosen.update(referring(split[i], sorted(chosen)))
        return kept


def _announced(parts: list[str], kept: list[int]) -> set[int]:
    """The sentences after each kept one that announces what follows (its list), up to
    ``ANNOUNCED_TOKENS``."""
    more: set[int] = set()
    for k in kept:
        if not (_ANNOUNCES.search(parts[k].strip()) or names_table(parts[k])):
            continue
        spent = 0
        for j in range(k + 1, len(parts)):
            spent += count_tokens(parts[j])
            if spent > ANNOUNCED_TOKENS:
                break
            more.add(j)
    return more


def _captioned(parts: list[str], kept: list[int]) -> set[int]:
    """The sentences before each kept caption that follows its figure ("Figure 3: Raft
    guarantees that each of these properties is true at all times.": ``figures``): the
    figure's body, up to ``ANNOUNCED_TOKENS`` and the caption before it."""
    more: set[int] = set()
    for k in kept:
        if not opens_with_caption(parts[k]):
            continue
        spent = 0
        for j in range(k - 1, -1, -1):
            spent += count_tokens(parts[j])
            if spent > ANNOUNCED_TOKENS or CAPTION.search(parts[j]):
                break
            more.add(j)
    return more


def _list_of(parts: list[str], kept: list[int]) -> set[int]:
    """For a list question, the items around each kept sentence that is a list item (the
    run of items it stands in) and the sentence before the run, up to ``ANNOUNCED_TOKENS``
    each: "- 2xx: Success" read without "- 3xx: Redirection" is half the answer; and the
    sentences up to an announcement at most ``LEAD_IN`` after a kept one."""
    more: set[int] = set()
    for k in kept:
        # a sentence a few before an announcement leads into the list ("The first digit
        # defines the class of response. ... There are 5 values for the first digit:")
        lead = next((j for j in range(k + 1, min(len(parts), k + 1 + LEAD_IN))
                     if _ANNOUNCES.search(parts[j].strip())), None)
        if lead is not None and count_tokens("".join(parts[k + 1:lead + 1])) <= REFERRING_TOKENS:
            more.update(range(k + 1, lead + 1))
        if not LIST_ITEM.match(parts[k]):
            continue
        spent, before = 0, k - 1
        for step in (-1, 1):
            j = k + step
            while 0 <= j < len(parts) and LIST_ITEM.match(parts[j]):
                spent += count_tokens(parts[j])
                if spent > ANNOUNCED_TOKENS:
                    break
                more.add(j)
                j += step
            if step < 0:
                before = j
        # what announces the run ("There are 5 values ...:"), unless the run was cut first
        if before >= 0 and not LIST_ITEM.match(parts[before]) \
                and count_tokens(parts[before]) <= REFERRING_TOKENS:
            more.add(before)
    return more


def _shared_words(texts: Sequence[str], query: str) -> np.ndarray:
    """Each text's share of the question's distinct terms, each weighed by how rare it is
    among ``texts`` (``log(1 + n / (1 + texts holding it))``), over the root of the text's own
    length (a long sentence does not win by length alone)."""
    asked = set(terms(query))
    found = [set(terms(text)) for text in texts]
    rarity = {term: np.log1p(len(texts) / (1 + sum(term in f for f in found))) for term in asked}
    return np.array([sum(rarity[t] for t in asked & f) / np.sqrt(len(f) + 1) for f in found])


def _scaled(scores: np.ndarray) -> np.ndarray:
    """``scores`` min-max scaled to 0..1 (all 0 when they are equal)."""
    low, high = float(scores.min()), float(scores.max())
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


def _from_first_passages(order: Sequence[int], flat: Sequence[tuple[int, int]], most: int,
                         ranked_first: bool = False, reached: int = 0) -> list[int]:
    """The sentences of ``order`` from the first ``most`` passages it reaches; with
    ``ranked_first``, from the first ``most`` passages retrieved and the first ``reached``
    others it reaches."""
    passages = list(range(most)) if ranked_first else []
    for rank, r in enumerate(order):
        i = flat[r][0]
        if i in passages:
            continue
        if ranked_first and reached > 0 and rank < REACHING_RANK:
            passages.append(i)
            reached -= 1
        elif not ranked_first and len(passages) < most:
            passages.append(i)
    return [r for r in order if flat[r][0] in passages]


def _distinct(order: Sequence[int], texts: Sequence[str]) -> list[int]:
    """``order`` without the sentences it already holds (a passage grown by the rest of its
    list holds the next passage's first sentences too): read once, paid once."""
    seen: set[str] = set()
    kept = []
    for r in order:
        key = " ".join(texts[r].split())
        if key not in seen:
            seen.add(key)
            kept.append(r)
    return kept


def _within(order: Sequence[int], texts: Sequence[str], budget: int) -> list[int]:
    """The leading sentences of ``order`` while their tokens fit ``budget`` (the first always;
    the rest stop at the first that does not fit: less similar ones only cost reading time)."""
    chosen, spent = [], 0
    for r in order:
        cost = count_tokens(texts[r])
        if chosen and spent + cost > budget:
            break
        chosen.append(r)
        spent += cost
    return chosen


def _joined(scored: ScoredNode, parts: list[str], own: list[str]) -> ScoredNode:
    """``scored`` holding ``parts`` when ``read_together`` joined another passage to its own
    sentences (``own``): the two passages' text, with no offsets (it spans a chunk border)."""
    if parts == own:
        return scored
    node = dataclasses.replace(scored.node, text="".join(parts), start_char=None, end_char=None)
    return ScoredNode(node, scored.score)


def _trimmed(scored: ScoredNode, parts: list[str], kept: list[int]) -> ScoredNode | None:
    """``scored`` with only sentences ``kept`` (sorted), None when it keeps none."""
    if not kept:
        return None
    if len(kept) == len(parts):
        return scored
    node = scored.node
    contiguous = kept == list(range(kept[0], kept[-1] + 1))
    if contiguous:
        before = sum(len(p) for p in parts[: kept[0]])
        text = "".join(parts[k] for k in kept)
        start = None if node.start_char is None else node.start_char + before
        end = None if start is None else start + len(text)
        lead = len(text) - len(text.lstrip())
        text = text.strip()
        if start is not None:
            start, end = start + lead, start + lead + len(text)
    else:
        text, start, end = GAP.join(parts[k].strip() for k in kept), None, None
    cut = [end for end, left in (("start", kept[0] > 0), ("end", kept[-1] < len(parts) - 1))
           if left]
    return ScoredNode(dataclasses.replace(
        node, text=text, start_char=start, end_char=end,
        metadata={**node.metadata, CUT: cut} if cut else node.metadata,
        excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, CUT],
        excluded_llm_metadata_keys=[*node.excluded_llm_metadata_keys, CUT]), scored.score)
