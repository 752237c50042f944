"""The reader on ONNX Runtime: the chance that a sentence states the answer to a question.

A cross-encoder: all-MiniLM-L6-v2 fine-tuned here (``training/reader/``) to read a question
and a sentence together (``text.reader_text``: the sentence, its heading, the sentence before)
and give one logit. Its int8 weights ship in this package's ``weights/`` folder with their
recipe and SHA-256 (``reader.json``); the file is checked against that digest when it opens,
and a process needs only onnxruntime and tokenizers (the packaged embedder's tokenizer). Pairs
run one by one: int8 quantises activations with one scale per run, so a pair's score would
otherwise depend on its batch-mates (as the embedder's int8 vectors would), and unpadded runs
cost no more on two cores.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError
from .text import masked

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
MODEL_FILE = "reader-int8.onnx"
RECIPE_FILE = "reader.json"
MAX_TOKENS = 128  # question and sentence with its context, as trained
MAX_QUESTION_CHARS = 300  # of a question too long to leave the sentence room (~70 tokens)
_CACHE = 16384  # scored pairs kept: a chat's passages are read again by each step of the check


class Reader:
    """Scores (question, sentence-with-context) pairs: the chance the sentence states the
    answer. Thread-safe; loads on first use."""

    def __init__(self, *, folder: Path = WEIGHTS_DIR, threads: int = 1) -> None:
        if threads < 1:
            raise ConfigError(f"threads ({threads}) must be at least 1")
        self.folder = Path(folder)
        self.threads = threads
        self._runtime: tuple[Any, Any] | None = None
        self._lock = threading.Lock()
        self._scores: dict[tuple[str, str], float] = {}
        self._available: bool | None = None

    @property
    def available(self) -> bool:
        """Whether the weights are there (a checkout without them reads by words alone):
        looked for once, not on every answer checked."""
        if self._available is None:
            self._available = (self.folder / MODEL_FILE).is_file()
        return self._available

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """The chance that each of ``texts`` states the answer to ``question``."""
        out = []
        for text in texts:
            key = (question, text)
            cached = self._scores.get(key)
            if cached is None:
                cached = self._run(question, text)
                if len(self._scores) >= _CACHE:
                    self._scores.clear()
                self._scores[key] = cached
            out.append(cached)
        return out

    def _run(self, question: str, text: str) -> float:
        session, tokenizer = self._load()
        question, text = masked(question, text)  # code's names read as names
        try:
            encoding = tokenizer.encode(question, text)
        except Exception:  # a question longer than the window: its start is what it asks
            encoding = tokenizer.encode(question[:MAX_QUESTION_CHARS], text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64)}
        logit = float(session.run(None, feed)[0].reshape(-1)[0])
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))

    def _load(self) -> tuple[Any, Any]:
        if self._runtime is None:
            with self._lock:
                if self._runtime is None:
                    self._runtime = (open_session(self.folder / MODEL_FILE,
                                                  RECIPE_FILE, self.threads,
                                                  "training.reader.train"),
                                     pair_tokenizer())
        return self._runtime

def open_session(path: Path, recipe_file: str, threads: int, rebuild: str) -> Any:
    """An ONNX Runtime session on ``path``, once its SHA-256 is the one its recipe
    (``recipe_file`` beside it) records; ``rebuild``: the module that makes the file."""
    import onnxruntime

    if not path.is_file():
        raise ConfigError(f"the weights {path} are missing: rebuild them with "
                          f"`python -m {rebuild}` (training/reader/README.md)")
    expected = json.loads((path.parent / recipe_file).read_text()).get("sha256")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if expected != actual:
        raise ConfigError(f"{path} has SHA-256 {actual}, not the recipe's {expected}: "
                          "restore it from the repository or rebuild it")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    log.info("loading %s", path)
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=2)
def pair_tokenizer(max_tokens: int = MAX_TOKENS) -> Any:
    """The packaged embedder's tokenizer, truncating the pair's second text to ``max_tokens``
    in all."""
    from tokenizers import Tokenizer

    from ..embeddings.sentence_transformers import packaged_model_path

    tokenizer = Tokenizer.from_file(str(packaged_model_path() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens, strategy="only_second")
    return tokenizer


_SHARED: Reader | None = None


def shared_reader() -> Reader:
    """The one reader of this process (its session and cache shared by every answer)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Reader()
    return _SHARED
