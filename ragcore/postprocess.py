"""Node postprocessors: filter, reorder or expand retrieved nodes before synthesis.

Each is a plain class with one method, ``postprocess(nodes, query) -> nodes``; the query engine
applies them in order and times each as a trace stage. The base ``Postprocessor`` adds
LlamaIndex's spelling of the same call, ``postprocess_nodes(nodes, query_bundle=None,
query_str=None)``. They never modify the nodes they are
given (the index's nodes are shared); a changed node is a copy.

    SimilarityPostprocessor           drop nodes scoring below a cutoff
    KeywordNodePostprocessor          keep nodes with a required keyword, drop excluded ones
    LongContextReorder                best nodes at both ends, weakest in the middle (LlamaIndex's
                                      exact order)
    PrevNextNodePostprocessor         add each node's neighbours in its document
    ListContinuation                  complete a node that ends inside a list from the next one
                                      (the engines' default: a list is read whole)
    MetadataReplacementPostProcessor  show the LLM a metadata value instead of the text
"""

from __future__ import annotations

import dataclasses
import logging
import re
from abc import ABC, abstractmethod
from typing import Protocol, Sequence, runtime_checkable

from .errors import ConfigError, StoreError
from .llms.extractive.text import LIST_ITEM  # what the answerer reads as a list's item
from .types import Node, ScoredNode

logger = logging.getLogger(__name__)


@runtime_checkable
class NodePostprocessor(Protocol):
    """Turns retrieved nodes into the nodes the synthesizer sees."""

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]: ...


class Postprocessor(ABC):
    """The base of the postprocessors here: LlamaIndex's ``postprocess_nodes`` over
    ``postprocess``, which each subclass defines."""

    @abstractmethod
    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]: ...

    def postprocess_nodes(
        self, nodes: Sequence[ScoredNode], query_bundle: object = None, query_str: str | None = None
    ) -> list[ScoredNode]:
        """``postprocess`` with the query given as a string or as anything with ``query_str``."""
        if query_str is None:
            query_str = getattr(query_bundle, "query_str", query_bundle)
        return self.postprocess(list(nodes), "" if query_str is None else str(query_str))


class NodeLookup(Protocol):
    """What the neighbour postprocessor needs from an index."""

    def get_node(self, node_id: str) -> Node: ...


class SimilarityPostprocessor(Postprocessor):
    """Drops nodes whose score is below ``similarity_cutoff`` (and nodes without a score)."""

    def __init__(self, *, similarity_cutoff: float) -> None:
        if not isinstance(similarity_cutoff, (int, float)) or isinstance(similarity_cutoff, bool):
            raise ConfigError(
                f"similarity_cutoff ({similarity_cutoff!r}) must be a number, e.g. 0.3"
            )
        self.similarity_cutoff = float(similarity_cutoff)

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        cutoff = self.similarity_cutoff
        return [n for n in nodes if n.score is not None and n.score >= cutoff]


class KeywordNodePostprocessor(Postprocessor):
    """Keeps nodes containing at least one required keyword and none of the excluded ones.

    As in LlamaIndex, one required keyword is enough. Keywords match whole words or phrases,
    ignoring case unless ``case_sensitive``.
    """

    def __init__(
        self,
        *,
        required_keywords: Sequence[str] = (),
        exclude_keywords: Sequence[str] = (),
        case_sensitive: bool = False,
    ) -> None:
        self.required_keywords = _keywords(required_keywords, "required_keywords")
        self.exclude_keywords = _keywords(exclude_keywords, "exclude_keywords")
        flags = 0 if case_sensitive else re.IGNORECASE
        self._required = _pattern(self.required_keywords, flags)
        self._excluded = _pattern(self.exclude_keywords, flags)

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return [n for n in nodes if self._keeps(n.node.text)]

    def _keeps(self, text: str) -> bool:
        if self._required is not None and not self._required.search(text):
            return False
        return self._excluded is None or not self._excluded.search(text)


def _keywords(words: Sequence[str], option: str) -> tuple[str, ...]:
    if isinstance(words, str):
        raise ConfigError(f"{option} must be a list of keywords, e.g. [{words!r}], not a string")
    cleaned = tuple(w.strip() for w in words if isinstance(w, str) and w.strip())
    if len(cleaned) != len(words):
        raise ConfigError(f"{option} ({list(words)!r}) must hold non-empty strings only")
    return cleaned


def _pattern(words: tuple[str, ...], flags: int) -> re.Pattern[str] | None:
    if not words:
        return None
    # \b only where the keyword starts/ends with a word character, so "C++" still matches.
    parts = [
        (r"\b" if w[0].isalnum() or w[0] == "_" else "")
        + re.escape(w)
        + (r"\b" if w[-1].isalnum() or w[-1] == "_" else "")
        for w in words
    ]
    return re.compile("|".join(parts), flags)


class LongContextReorder(Postprocessor):
    """Puts the best nodes at the start and end, the weakest in the middle.

    Models use the middle of a long context least ("lost in the middle"), so the strongest
    evidence goes where they look. The order is LlamaIndex's exactly: walking the nodes from
    weakest to best (a node without a score counts as 0), even steps go to the front and odd
    steps to the back, so the best node ends up first or last depending on how many there are.
    """

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        weakest_first = sorted(nodes, key=lambda n: 0.0 if n.score is None else n.score)
        front: list[ScoredNode] = []  # built reversed: the last one added is the first
        back: list[ScoredNode] = []
        for step, node in enumerate(weakest_first):
            (front if step % 2 == 0 else back).append(node)
        return front[::-1] + back


_NEIGHBOUR_MODES = ("next", "previous", "both")


class PrevNextNodePostprocessor(Postprocessor):
    """Adds up to ``num_nodes`` neighbours of each node in its document, in reading order.

    Neighbours come right before (``previous``) or after (``next``) the node they extend and
    carry no score (they were not retrieved); a neighbour that was itself retrieved keeps its
    score and appears once.
    """

    def __init__(self, index: NodeLookup, *, num_nodes: int = 1, mode: str = "next") -> None:
        if not hasattr(index, "get_node"):
            raise ConfigError(f"{index!r} has no get_node(node_id): pass a VectorStoreIndex")
        if not isinstance(num_nodes, int) or num_nodes < 1:
            raise ConfigError(f"num_nodes ({num_nodes!r}) must be a whole number of at least 1")
        if mode not in _NEIGHBOUR_MODES:
            raise ConfigError(f"mode ({mode!r}) must be one of {', '.join(_NEIGHBOUR_MODES)}")
        self.index = index
        self.num_nodes = num_nodes
        self.mode = mode

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        retrieved = {n.node.node_id: n for n in nodes}
        seen: set[str] = set()
        result: list[ScoredNode] = []
        for scored in nodes:
            if scored.node.node_id in seen:
                continue
            before = self._walk(scored.node, "prev_id") if self.mode != "next" else []
            after = self._walk(scored.node, "next_id") if self.mode != "previous" else []
            for node in [*reversed(before), scored.node, *after]:
                if node.node_id not in seen:
                    seen.add(node.node_id)
                    result.append(retrieved.get(node.node_id) or ScoredNode(node, None))
        return result

    def _walk(self, node: Node, link: str) -> list[Node]:
        found: list[Node] = []
        current = node
        for _ in range(self.num_nodes):
            next_id = getattr(current, link)
            if next_id is None:
                break
            try:
                current = self.index.get_node(next_id)
            except StoreError:
                # A neighbour deleted from the index since this node was stored: stop here.
                logger.warning("neighbour node %s of %s is not in the index", next_id, node.node_id)
                break
            found.append(current)
        return found


MAX_CONTINUATION = 2000  # characters a list's rest may add to a node


class ListContinuation(Postprocessor):
    """Completes each node whose text ends inside a list (its last line is an item) with the
    rest of that list from the node after it: the items up to the list's end, within
    ``MAX_CONTINUATION`` characters. A chunk border inside the rules of a list ("Each value
    has an owner. / There can only be one owner. / [border] When the owner goes out of
    scope ...") would otherwise show the reader, or the LLM, two rules of three. The next node
    may overlap this one or start after the blank lines the chunker left out (``MAX_GAP``:
    then only for a node ending in an item, joined with a blank line). The completed node is
    a copy whose ``end_char`` covers what was added."""

    def __init__(self, index: NodeLookup) -> None:
        self.index = index

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return [self._completed(scored) for scored in nodes]

    def _completed(self, scored: ScoredNode) -> ScoredNode:
        node = scored.node
        lines = node.text.rstrip().splitlines()
        if not lines or not _ends_in_list(lines) or node.next_id is None \
                or node.end_char is None:
            return scored
        try:
            after = self.index.get_node(node.next_id)
        except StoreError:
            return scored
        if after.start_char is None or after.ref_doc_id != node.ref_doc_id or not \
                node.end_char - len(after.text) <= after.start_char <= node.end_char + MAX_GAP:
            return scored
        # The next node overlaps this one, or starts after the blank lines the chunker cut
        # (when this one ends in an item: an announcement alone may precede anything).
        gap = after.start_char - node.end_char
        indent = _item_indent(lines)
        if gap > 0 and indent is None:
            return scored
        rest = _list_rest(after.text[max(0, -gap):], _next_number(lines), indent)
        if not rest:
            return scored
        joint = "\n\n" if gap > 0 else ""
        grown = dataclasses.replace(node, text=node.text + joint + rest,
                                    end_char=max(node.end_char, after.start_char) + len(rest))
        return dataclasses.replace(scored, node=grown)


_BARE_NUMBER = re.compile(r"^\s*\(?(\d{1,2})[.)]\s*$")  # "2." alone: the next item's text follows
_NUMBER = re.compile(r"^\s*\(?(\d{1,2})[.)](?:\s|$)")
_ANNOUNCES = re.compile(r"(?::|\bfollowing|\bas follows)\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s*$")


def _ends_in_list(lines: list[str]) -> bool:
    """A node's last line is an item, a bare item number, or announces a list; or it wraps an
    item that starts at most ``WRAPPED_LINES`` lines up: a numbered one (a PDF's item lines),
    or any item whose lines after it are indented past its marker (a plain-text RFC's)."""
    line = lines[-1]
    if LIST_ITEM.match(line) or _BARE_NUMBER.match(line) or _ANNOUNCES.search(line):
        return True
    above = lines[-1 - WRAPPED_LINES:-1]
    for k, up in enumerate(above):
        if _NUMBER.match(up):
            return True
        item = LIST_ITEM.match(up)
        if item and all(_indent(x) > _indent(up) for x in [*above[k + 1:], line] if x.strip()):
            return True
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


WRAPPED_LINES = 3
MAX_GAP = 16  # characters between two nodes (blank lines and indents the chunker left out)


def _next_number(lines: list[str]) -> int | None:
    """The number the list's next item will carry, when the node's list is numbered ("1." to
    "2." seen, "2." alone at the end too: 3; an announcement with no item yet: 1)."""
    for line in reversed(lines[-1 - WRAPPED_LINES:]):
        match = _NUMBER.match(line)
        if match:
            return int(match.group(1)) + 1
    return 1 if _ANNOUNCES.search(lines[-1]) else None


def _item_indent(lines: list[str]) -> int | None:
    """The indent of the last item among a node's last lines (None: no item there)."""
    for line in reversed(lines[-1 - WRAPPED_LINES:]):
        if LIST_ITEM.match(line):
            return _indent(line)
    return None


def _list_rest(text: str, expect: int | None = None, indent: int | None = None) -> str:
    """The start of ``text`` up to the end of the list it continues: the rest of the item it
    starts in, then item lines and the lines under them (indented, or wrapped lines of a PDF),
    no blank line before a line that is no item, nor before one indented no deeper than the
    list's items (``indent``: a plain-text RFC indents its prose too). A numbered list ends
    after the item whose sentence ends where no item numbered next follows."""
    end, pos = 0, 0
    lines = text[:MAX_CONTINUATION].splitlines(keepends=True)
    after_blank = False
    for k, line in enumerate(lines):
        pos += len(line)
        if not line.strip():
            after_blank = True
            continue
        numbered = _NUMBER.match(line)
        shallow = (after_blank and indent is not None and not LIST_ITEM.match(line)
                   and _indent(line) <= indent)
        after_blank = False
        if expect is not None and numbered and int(numbered.group(1)) == expect:
            expect += 1
        elif shallow or not (LIST_ITEM.match(line) or line[:1].isspace() or k == 0 or
                             (expect is not None and end == pos - len(line))) \
                or pos > MAX_CONTINUATION:
            break
        end = pos
        following = next((x for x in lines[k + 1:] if x.strip()), "")
        if expect is not None and _SENTENCE_END.search(line) and not (
                (m := _NUMBER.match(following)) and int(m.group(1)) == expect):
            break
    return text[:end].rstrip()


class MetadataReplacementPostProcessor(Postprocessor):
    """Replaces each node's text with its ``target_metadata_key`` value, when it has one.

    Used with nodes that embed a small unit (a sentence) but carry a larger one (its window)
    in metadata. The copy's offsets are cleared (they described the old text) and the key is
    hidden from the metadata header, so the LLM does not see the text twice.
    """

    def __init__(self, *, target_metadata_key: str) -> None:
        if not isinstance(target_metadata_key, str) or not target_metadata_key:
            raise ConfigError(
                f"target_metadata_key ({target_metadata_key!r}) must be a metadata key, "
                "e.g. 'window'"
            )
        self.target_metadata_key = target_metadata_key

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return [self._replace(n) for n in nodes]

    def _replace(self, scored: ScoredNode) -> ScoredNode:
        key = self.target_metadata_key
        node = scored.node
        value = node.metadata.get(key)
        if value is None:
            return scored
        copy = dataclasses.replace(
            node,
            text=str(value),
            start_char=None,
            end_char=None,
            metadata=dict(node.metadata),
            excluded_llm_metadata_keys=_with_key(node.excluded_llm_metadata_keys, key),
            excluded_embed_metadata_keys=_with_key(node.excluded_embed_metadata_keys, key),
        )
        return ScoredNode(copy, scored.score)


def _with_key(keys: Sequence[str], key: str) -> list[str]:
    return list(keys) if key in keys else [*keys, key]
