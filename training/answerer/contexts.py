"""What the offline answerer reads for each training question: the prompt a user's query makes.

The answerer's scorer is trained on what it will see in use, so every training question goes
through ``index.as_query_engine()`` (default retrieval, 4 passages) over an index of the
training articles' paragraphs (one Document each, as a user's files would be), with a
recording model in place of the answerer. The context and question sections of each prompt
are kept with the question's gold answers, in ``.cache/answerer-contexts-*.jsonl`` beside
this file.

Sentence vectors are cached too (``CachedEmbedder``): the answerer embeds the candidate
sentences of every prompt, and the same paragraphs come back for many questions.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

CACHE_DIR = Path(__file__).resolve().parent / ".cache"


class CachedEmbedder:
    """An embedder that embeds each text once (kept in memory; saved with ``save``)."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.model_name = getattr(inner, "model_name", "")
        self.dimension = getattr(inner, "dimension", None)
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path, allow_pickle=False)
            texts = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            self.vectors = dict(zip(texts, data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            for text, vector in zip(missing, np.asarray(self.inner.embed_batch(missing))):
                self.vectors[text] = vector.astype(np.float32)
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 384))

    def save(self) -> None:
        texts = list(self.vectors)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        np.save(self.path, np.stack([self.vectors[t] for t in texts]))
        self.path.with_suffix(".json").write_text(json.dumps(texts), encoding="utf-8")


def squad_questions(articles: list[dict]) -> Iterator[dict]:
    """Each question of SQuAD-format ``articles`` with its gold answers and paragraph."""
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                golds = list(dict.fromkeys(x["text"] for x in qa.get("answers", [])))
                yield {"id": qa["id"], "title": article["title"], "question": qa["question"],
                       "answers": golds, "impossible": bool(qa.get("is_impossible")),
                       "paragraph": f"{a}-{p}"}


def paragraph_documents(articles: list[dict]) -> list[Any]:
    from ragcore.types import Document

    return [Document(text=paragraph["context"], doc_id=f"{a}-{p}",  # samples have no title
                     metadata={"title": article["title"].replace("_", " ")} if article["title"]
                     else {})
            for a, article in enumerate(articles)
            for p, paragraph in enumerate(article["paragraphs"])]


def build_contexts(articles: list[dict], embedder: Any, *, name: str) -> list[dict]:
    """The prompts of all questions (cached by ``name`` and the articles' content)."""
    from ragcore import VectorStoreIndex
    from ragcore.llms.fake import FakeLLM
    from ragcore.prompts import CONTEXT, QUESTION, read_sections

    digest = hashlib.sha256(json.dumps(articles, sort_keys=True).encode()).hexdigest()[:12]
    path = CACHE_DIR / f"answerer-contexts-{name}-{digest}.jsonl"
    if path.exists():
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    index = VectorStoreIndex.from_documents(paragraph_documents(articles), embedder=embedder)
    prompts: list[str] = []
    llm = FakeLLM(default=lambda messages: prompts.append(messages[-1].content) or "ok")
    engine = index.as_query_engine(llm=llm)
    rows = []
    for q in squad_questions(articles):
        before = len(prompts)
        response = engine.query(q["question"])
        response.text  # the reply is made when it is read
        sections = read_sections(prompts[-1] if len(prompts) > before else "")
        given = [n.node.ref_doc_id for n in response.source_nodes]
        rows.append({**q, "context": sections.get(CONTEXT, ""),
                     "asked": sections.get(QUESTION, q["question"]),
                     "retrieved": q["paragraph"] in given})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return rows
