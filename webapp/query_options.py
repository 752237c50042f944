"""What a person chooses before asking a question, validated, and turned into pipeline parts.

The Query page collects a response mode, how to search (``SEARCH_BY``: by meaning, keywords or
both; the Chat page offers the same choice), the retriever (standard or one of the advanced
ones of ``ragcore.engines.by_name``), top-k, a similarity cutoff and a set of
postprocessors; ``QueryOptions`` validates them in one place (with messages that say what to
change) and builds the postprocessor chain, so the page only renders widgets.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ragcore.errors import ConfigError
from ragcore.postprocess import (
    KeywordNodePostprocessor,
    LongContextReorder,
    PrevNextNodePostprocessor,
    SimilarityPostprocessor,
)
from ragcore.retrieval.retrievers import DEFAULT_MODE, RETRIEVAL_MODES
from ragcore.engines import CHOICES
from ragcore.synthesis import ResponseMode

# name -> one-line explanation shown beside the choice
POSTPROCESSOR_DESCRIPTIONS: dict[str, str] = {
    "similarity_cutoff": "Drop passages whose similarity score is below the cutoff.",
    "keywords": "Keep only passages that contain the required words and none of the excluded.",
    "neighbours": "Add the chunk that follows each passage, for more surrounding context.",
    "long_context_reorder": (
        "Put the best passages at the start and end of the prompt, where models read best."
    ),
}

# retrieval mode -> (label, one-line explanation) for the "Search by" choice; the first is the
# default (ragcore's: hybrid finds more answers than either search alone).
SEARCH_BY: dict[str, tuple[str, str]] = {
    "hybrid": (
        "meaning and keywords",
        "Both searches fused: passages found by meaning and by words come first.",
    ),
    "similarity": (
        "meaning",
        "Passages that mean the same as the question, even in other words (embeddings).",
    ),
    "keyword": (
        "keywords",
        "Passages containing the question's words: best for names, acronyms, codes (BM25).",
    ),
}


@dataclass(slots=True)
class QueryOptions:
    """A validated set of query choices (keyword-only, like every ragcore option)."""

    response_mode: str = ResponseMode.COMPACT.value
    top_k: int = 4
    postprocessors: tuple[str, ...] = ()
    similarity_cutoff: float = 0.3
    required_keywords: tuple[str, ...] = ()
    exclude_keywords: tuple[str, ...] = ()
    retrieval_mode: str = DEFAULT_MODE
    retriever: str = "standard"  # a name of ragcore.engines.by_name.CHOICES
    cross_encoder: str = ""  # the cross-encoder's folder, for retriever "cross_encoder"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.response_mode = ResponseMode.parse(self.response_mode).value
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise ConfigError(f"top-k ({self.top_k!r}) must be a whole number of at least 1")
        if not -1.0 <= float(self.similarity_cutoff) <= 1.0:
            raise ConfigError(
                f"similarity cutoff ({self.similarity_cutoff}) must be between -1 and 1"
            )
        if self.retrieval_mode not in RETRIEVAL_MODES:
            choices = ", ".join(RETRIEVAL_MODES)
            raise ConfigError(f"search mode {self.retrieval_mode!r} is unknown: use {choices}")
        if "similarity_cutoff" in self.postprocessors and self.retrieval_mode in (
            "keyword", "hybrid"
        ):
            raise ConfigError(
                f"the similarity cutoff compares meaning scores, but searching by "
                f"{SEARCH_BY[self.retrieval_mode][0]} ranks passages another way: turn the "
                "cutoff off or search by meaning"
            )
        if self.retriever not in CHOICES:
            raise ConfigError(f"retriever {self.retriever!r} is unknown: choose from "
                              f"{', '.join(CHOICES)}")
        self.cross_encoder = str(self.cross_encoder or "").strip()
        if self.retriever == "cross_encoder" and not self.cross_encoder:
            raise ConfigError("cross-encoder reranking needs the folder of a cross-encoder model: "
                              "enter it, or choose another retriever")
        unknown = [p for p in self.postprocessors if p not in POSTPROCESSOR_DESCRIPTIONS]
        if unknown:
            choices = ", ".join(POSTPROCESSOR_DESCRIPTIONS)
            noun = "postprocessor" if len(unknown) == 1 else "postprocessors"
            raise ConfigError(f"unknown {noun} {unknown}: choose from {choices}")
        self.postprocessors = tuple(self.postprocessors)
        self.required_keywords = _clean(self.required_keywords)
        self.exclude_keywords = _clean(self.exclude_keywords)
        if "keywords" in self.postprocessors and not (
            self.required_keywords or self.exclude_keywords
        ):
            raise ConfigError(
                "the keyword filter is on but no words are given: enter required or excluded "
                "words, or turn the keyword filter off"
            )

    def build_postprocessors(self, index: Any) -> list[Any]:
        """The chosen postprocessors, in the order they run (``index`` serves neighbours)."""
        chain: list[Any] = []
        if "similarity_cutoff" in self.postprocessors:
            chain.append(SimilarityPostprocessor(similarity_cutoff=float(self.similarity_cutoff)))
        if "keywords" in self.postprocessors:
            chain.append(
                KeywordNodePostprocessor(
                    required_keywords=list(self.required_keywords),
                    exclude_keywords=list(self.exclude_keywords),
                )
            )
        if "neighbours" in self.postprocessors:
            chain.append(PrevNextNodePostprocessor(index, num_nodes=1, mode="next"))
        if "long_context_reorder" in self.postprocessors:
            chain.append(LongContextReorder())
        return chain

    def to_dict(self) -> dict[str, Any]:
        """The options as plain data (saved with chats and shown in exports)."""
        data = asdict(self)
        data["postprocessors"] = list(self.postprocessors)
        data["required_keywords"] = list(self.required_keywords)
        data["exclude_keywords"] = list(self.exclude_keywords)
        if "similarity_cutoff" not in self.postprocessors:
            data.pop("similarity_cutoff")
        if self.retriever != "cross_encoder":
            data.pop("cross_encoder")
        data.update(data.pop("extra"))
        return data


def parse_keywords(text: str) -> tuple[str, ...]:
    """Words typed in a box, separated by commas or spaces (a comma keeps phrases together)."""
    separator = "," if "," in text else None
    return _clean(text.split(separator))


def _clean(words: Any) -> tuple[str, ...]:
    if isinstance(words, str):
        words = [words]
    return tuple(w.strip() for w in words if w and w.strip())

