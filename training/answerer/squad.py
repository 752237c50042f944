"""The SQuAD training files of ``data/``: the only articles the answerer is fitted or
calibrated on.

Unlike ``benchmarks/answers/squad.py`` (the held-out sample and the official measures), this
module knows no held-out file. Benchmarks may import it (a calibration on a training article);
it imports nothing from ``benchmarks``. Sources and licence: ``README.md`` of this package.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
# SQuAD 2.0's training articles, four of SQuAD 1.1's, and one untitled article of paragraphs
# sampled from the training split by other public projects (made by benchmarks/answers/
# squad_make.py and squad_samples.py, which split the source files into these and held-out).
TRAINING_FILES = ("train.json", "train_extra.json", "train_samples.json.gz")
# What the recipe of the shipped weights reads (``train``). The samples stay in ``data/`` (the
# benchmark tests check them against the held-out sample) but no recipe trains on them:
# trained on them too, held-out F1 did not move (benchmarks/answers/README.md, 21:10).
RECIPE_FILES = ("train.json", "train_extra.json")


def training_articles(folder: Path = DATA, files: tuple[str, ...] = TRAINING_FILES
                      ) -> list[dict]:
    """The articles (SQuAD JSON ``data`` entries) of ``files``, in order."""
    return [article for name in files for article in json.loads(_read(folder / name))["data"]]


def _read(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: make it as training/answerer/README.md says "
                                "(python -m benchmarks.answers.squad_make ...)")
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
