"""A question set: LlamaIndex's ``EmbeddingQAFinetuneDataset`` shape, saved as versioned JSON.

``queries`` maps a question id to its text, ``corpus`` a passage id to its text and
``relevant_docs`` a question id to the ids of the passages that answer it, as in LlamaIndex, so
code written for ``llama_index.core.evaluation`` reads one unchanged. ragcore adds what answer
metrics need: ``reference_answers`` (the expected answer, when known), ``expected_sources``
(files or documents an imported question names), how the set was made (``origin``) and what
went wrong making it (``problems``: unreadable model replies, skipped lines). How sets are made:
``generated`` (a language model), ``offline`` (none), ``imported``
(a user's CSV or JSONL).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError

FORMAT = "ragcore-question-set/1"


@dataclass(slots=True)
class EmbeddingQAFinetuneDataset:
    """Questions, the passages that answer them, and (optionally) their expected answers."""

    queries: dict[str, str]
    corpus: dict[str, str] = field(default_factory=dict)
    relevant_docs: dict[str, list[str]] = field(default_factory=dict)
    mode: str = "text"
    reference_answers: dict[str, str] = field(default_factory=dict)
    expected_sources: dict[str, list[str]] = field(default_factory=dict)
    origin: str = ""
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.relevant_docs) - set(self.queries))
        if unknown:
            raise ConfigError(f"relevant_docs names questions not in queries: {unknown[:5]}; "
                              "give every question id a query")

    def __len__(self) -> int:
        return len(self.queries)

    @property
    def query_docid_pairs(self) -> list[tuple[str, list[str]]]:
        """(question, ids of its passages) pairs, in question order (LlamaIndex's name)."""
        return [(q, self.relevant_docs.get(qid, [])) for qid, q in self.queries.items()]

    def expected_ids(self, query_id: str) -> list[str]:
        """What a retrieved passage must be to count: its passage ids, else its sources."""
        return list(self.relevant_docs.get(query_id) or self.expected_sources.get(query_id, []))

    def head(self, count: int) -> EmbeddingQAFinetuneDataset:
        """The first ``count`` questions (for a quick run), with their passages."""
        ids = list(self.queries)[:count]
        keep = {d for i in ids for d in self.relevant_docs.get(i, [])}
        return EmbeddingQAFinetuneDataset(
            {i: self.queries[i] for i in ids},
            {d: t for d, t in self.corpus.items() if d in keep},
            {i: self.relevant_docs[i] for i in ids if i in self.relevant_docs},
            self.mode,
            {i: self.reference_answers[i] for i in ids if i in self.reference_answers},
            {i: self.expected_sources[i] for i in ids if i in self.expected_sources},
            self.origin, list(self.problems))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "queries": self.queries, "corpus": self.corpus,
                "relevant_docs": self.relevant_docs, "mode": self.mode,
                "reference_answers": self.reference_answers,
                "expected_sources": self.expected_sources, "origin": self.origin,
                "problems": self.problems}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "the question set"
                  ) -> EmbeddingQAFinetuneDataset:
        """A set from its dict; LlamaIndex's files (no format tag) are read too."""
        tag = data.get("format")
        if tag not in (None, FORMAT) or not isinstance(data.get("queries"), dict):
            raise ConfigError(f"{where} is not a question set (format {tag!r}, expected "
                              f"{FORMAT!r} with a 'queries' object): choose a question-set file")
        return cls(
            queries={str(k): str(v) for k, v in data["queries"].items()},
            corpus={str(k): str(v) for k, v in (data.get("corpus") or {}).items()},
            relevant_docs={str(k): [str(d) for d in v]
                           for k, v in (data.get("relevant_docs") or {}).items()},
            mode=str(data.get("mode") or "text"),
            reference_answers={str(k): str(v)
                               for k, v in (data.get("reference_answers") or {}).items()},
            expected_sources={str(k): [str(s) for s in v]
                              for k, v in (data.get("expected_sources") or {}).items()},
            origin=str(data.get("origin") or ""),
            problems=[str(p) for p in data.get("problems") or []],
        )

    def save_json(self, path: str | Path) -> None:
        """Write the set as JSON (LlamaIndex reads the queries, corpus and relevant_docs)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n",
                              encoding="utf-8")

    @classmethod
    def from_json(cls, path: str | Path) -> EmbeddingQAFinetuneDataset:
        """Read a set saved by ``save_json`` (or by LlamaIndex)."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"question set {path} not found: check the path") from exc
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"question set {path} cannot be read ({exc}): "
                              "choose a JSON file saved by save_json") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"question set {path} holds no JSON object: choose a question set")
        return cls.from_dict(data, where=f"question set {path}")


# The name ragcore's own code and the app use; LlamaIndex's name is the class's.
QuestionSet = EmbeddingQAFinetuneDataset
