"""The packaged model's fast path: derived graphs (fused, int8) cached safely, same vectors, order.

The cache tests build with a fake builder (no onnxruntime graph work): built once, rebuilt when
stale or damaged, one build when two threads or two processes ask at once, never a half-written
file. The slow tests run the real model: the fused graph gives the exported graph's vectors,
fused int8 nearly, a damaged fused file in a cache is rebuilt, and texts of every length come
back in the order given.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ragcore.embeddings import OnnxEmbedder, packaged
from ragcore.embeddings.onnx import derived as onnx_derived
from ragcore.embeddings.onnx.derived import FUSED_FILE, FUSED_INT8_FILE, ensure_derived, sidecar
from ragcore.embeddings.onnx.export import FP32_FILE, ensure_exported, export_folder
from ragcore.errors import ConfigError, EmbeddingError

CONFIG = {"model_type": "bert", "num_attention_heads": 12, "hidden_size": 384}


def fake_builder(log: Path, delay: float = 0.0):
    """A builder that writes its source's bytes reversed, slowly, and logs each build."""

    def build(source: Path, target: Path, config: dict) -> None:
        with open(log, "a") as handle:
            handle.write(target.name[1:].split(".onnx-")[0] + ".onnx\n")  # temporary name
        data = source.read_bytes()[::-1]
        with open(target, "wb") as out:
            for start in range(0, len(data), 1000):
                out.write(data[start : start + 1000])
                time.sleep(delay / max(1, len(data) // 1000))
    return build


@pytest.fixture
def exported(tmp_path, monkeypatch) -> Path:
    """A fake export folder (one 'model.onnx') and fake builders logging to builds.log."""
    folder = tmp_path / "cache" / "model-abc"
    folder.mkdir(parents=True)
    (folder / FP32_FILE).write_bytes(bytes(range(256)) * 40)
    build = fake_builder(tmp_path / "builds.log", delay=0.3)
    monkeypatch.setattr(onnx_derived, "_BUILDERS", {FUSED_FILE: build, FUSED_INT8_FILE: build})
    return folder / FP32_FILE


def builds(exported: Path) -> list[str]:
    log = exported.parents[2] / "builds.log"
    return log.read_text().split() if log.exists() else []


# -- the cache ----------------------------------------------------------------------------------


def test_a_derived_graph_is_built_once_then_reused(exported):
    first = ensure_derived(exported, FUSED_INT8_FILE, model_config=CONFIG)
    again = ensure_derived(exported, FUSED_INT8_FILE, model_config=CONFIG)
    assert first == again == exported.parent / FUSED_INT8_FILE
    assert builds(exported) == [FUSED_FILE, FUSED_INT8_FILE]  # int8 is made from the fused one
    assert (exported.parent / FUSED_FILE).read_bytes() == exported.read_bytes()[::-1]
    assert sorted(p.name for p in exported.parent.iterdir()) == sorted(
        [FP32_FILE, FUSED_FILE, FUSED_FILE + ".json", FUSED_INT8_FILE, FUSED_INT8_FILE + ".json"])


@pytest.mark.parametrize("change", ["new source", "new recipe", "new onnxruntime"])
def test_a_stale_graph_is_rebuilt(exported, monkeypatch, change):
    ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    if change == "new source":  # the model was exported again
        exported.write_bytes(exported.read_bytes()[:-1])
    elif change == "new recipe":
        monkeypatch.setattr(onnx_derived, "DERIVED_VERSION", onnx_derived.DERIVED_VERSION + 1)
    else:
        import onnxruntime

        monkeypatch.setattr(onnxruntime, "__version__", "0.0.1")
    ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    assert builds(exported) == [FUSED_FILE, FUSED_FILE]
    assert (exported.parent / FUSED_FILE).read_bytes() == exported.read_bytes()[::-1]


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "no sidecar", "bad sidecar"])
def test_a_damaged_graph_is_rebuilt(exported, damage):
    target = ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    whole = target.read_bytes()
    if damage == "flipped byte":
        target.write_bytes(whole[:500] + bytes([whole[500] ^ 1]) + whole[501:])
    elif damage == "truncated":
        target.write_bytes(whole[:-100])
    elif damage == "no sidecar":
        sidecar(target).unlink()
    else:
        sidecar(target).write_text("{not json", encoding="utf-8")
    ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    assert builds(exported) == [FUSED_FILE, FUSED_FILE]
    assert target.read_bytes() == whole
    assert json.loads(sidecar(target).read_text())["bytes"] == len(whole)


def test_a_failed_build_leaves_nothing_and_says_what_to_do(exported, monkeypatch):
    def broken(source, target, config):
        target.write_bytes(b"half")
        raise RuntimeError("optimizer blew up")

    monkeypatch.setattr(onnx_derived, "_BUILDERS", {FUSED_FILE: broken})
    with pytest.raises(EmbeddingError, match=f"blew up. Delete its folder {exported.parent}"):
        ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    assert [p.name for p in exported.parent.iterdir()] == [FP32_FILE]


def test_a_build_removes_what_killed_builders_left_but_not_a_live_ones_file(exported):
    dead = exported.parent / f".{FUSED_FILE}-999999999-x1.onnx"  # no such process
    live = exported.parent / f".{FUSED_FILE}-{os.getpid()}-x2.onnx"
    for stray in (dead, live):
        stray.write_bytes(b"half a model")
    ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    assert not dead.exists() and live.exists()


def test_threads_building_at_once_build_once_and_never_see_half_a_file(exported):
    target = exported.parent / FUSED_FILE
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:  # every size a reader could see: none, or the whole file
        while not done.is_set():
            seen.append(target.stat().st_size if target.exists() else 0)

    watcher = threading.Thread(target=watch)
    watcher.start()
    results: list[Path] = []
    workers = [threading.Thread(target=lambda: results.append(
        ensure_derived(exported, FUSED_FILE, model_config=CONFIG))) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    done.set()
    watcher.join()
    assert results == [target] * 3 and builds(exported) == [FUSED_FILE]
    assert set(seen) <= {0, exported.stat().st_size}


def _build_in_child(exported: Path, log: Path) -> None:
    onnx_derived._BUILDERS[FUSED_FILE] = fake_builder(log, delay=0.5)
    ensure_derived(exported, FUSED_FILE, model_config=CONFIG)
    # Leave without the interpreter's teardown: a native library's thread destroyed at exit
    # once aborted the child ("terminate called without an active exception", exit -6) after
    # its build had finished; an exception above still exits 1.
    os._exit(0)


def test_two_processes_building_at_once_build_once(exported):
    context = multiprocessing.get_context("spawn")
    log = exported.parents[2] / "builds.log"
    children = [context.Process(target=_build_in_child, args=(exported, log)) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=120)
    assert [child.exitcode for child in children] == [0, 0]
    assert builds(exported) == [FUSED_FILE]
    assert (exported.parent / FUSED_FILE).read_bytes() == exported.read_bytes()[::-1]
    assert not [p for p in exported.parent.iterdir() if p.name.startswith(".")]


# -- which variant new indexes get --------------------------------------------------------------


@pytest.mark.parametrize("value, name", [
    ("", packaged.DEFAULT_NAME), ("int8", packaged.INT8_NAME), ("Float32", packaged.FLOAT32_NAME),
    (packaged.INT8_NAME, packaged.INT8_NAME),
])
def test_the_environment_chooses_the_variant_of_new_indexes(monkeypatch, value, name):
    monkeypatch.setenv(packaged.VARIANT_ENV, value)
    assert packaged.new_index_variant() == name
    assert packaged.default_embedder().model_name == name
    assert packaged.default_embedder(packaged.FLOAT32_NAME).model_name == packaged.FLOAT32_NAME


def test_an_unknown_variant_in_the_environment_says_which_exist(monkeypatch):
    monkeypatch.setenv(packaged.VARIANT_ENV, "int4")
    with pytest.raises(ConfigError, match=r"RAGCORE_PACKAGED_VARIANT is 'int4'.*float32.*int8"):
        packaged.default_embedder()


def test_only_bert_models_are_fused(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(OnnxEmbedder().model_path, folder,
                    ignore=shutil.ignore_patterns("*.safetensors", "*.bin", "*.onnx"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    assert OnnxEmbedder().fused and not OnnxEmbedder(model_path=folder).fused
    assert not OnnxEmbedder(fused=False).fused


# -- the real model -----------------------------------------------------------------------------


def corpus_texts(corpus: Path) -> list[str]:
    """Paragraphs of several lengths (a few words to past the 256-token window), unsorted."""
    text = (corpus / "python_peps" / "pep-0008.rst").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if len(p.split()) > 3]
    return paragraphs[5:13] + [" ".join(paragraphs[20:40]), "Tabs or spaces?"]


@pytest.mark.slow
def test_fused_graphs_give_the_exported_graphs_vectors(corpus_dir):
    texts = corpus_texts(corpus_dir)
    exported = OnnxEmbedder(fused=False).embed_batch(texts)
    fused = packaged.default_embedder(packaged.FLOAT32_NAME).embed_batch(texts)
    int8 = packaged.default_embedder(packaged.INT8_NAME).embed_batch(texts)
    assert np.einsum("ij,ij->i", fused, exported).min() > 0.9999
    agreement = np.einsum("ij,ij->i", int8, exported)
    assert agreement.mean() > 0.995 and agreement.min() > 0.99


@pytest.mark.slow
@pytest.mark.parametrize("name", [packaged.FLOAT32_NAME, packaged.INT8_NAME])
def test_texts_sorted_by_length_come_back_in_the_order_given(corpus_dir, name):
    texts = corpus_texts(corpus_dir)
    lengths = [len(t) for t in texts]
    assert lengths != sorted(lengths) and lengths != sorted(lengths, reverse=True)
    embedder = packaged.default_embedder(name)
    together = embedder.embed_batch(texts)
    alone = np.vstack([embedder.embed_batch([text]) for text in texts])
    assert np.einsum("ij,ij->i", together, alone).min() > 0.9999


@pytest.mark.slow
def test_a_damaged_fused_graph_in_the_cache_is_rebuilt(tmp_path, monkeypatch):
    # the optimizer's work is tested above; here the exported graph stands in for the fused one
    monkeypatch.setitem(onnx_derived._BUILDERS, FUSED_FILE,
                        lambda source, target, config: shutil.copyfile(source, target))
    reference = OnnxEmbedder()
    source = ensure_exported(reference.model_path, packaged.FLOAT32_NAME, quantized=False,
                             cache_root=reference.cache_dir)
    folder = export_folder(reference.model_path, packaged.FLOAT32_NAME, tmp_path)
    folder.mkdir()
    shutil.copyfile(source, folder / FP32_FILE)  # no torch export: the exported graph copied
    first = OnnxEmbedder(cache_dir=tmp_path).embed_batch(["Tabs or spaces?"])
    fused = folder / FUSED_FILE
    fused.write_bytes(fused.read_bytes()[: fused.stat().st_size // 2])
    again = OnnxEmbedder(cache_dir=tmp_path).embed_batch(["Tabs or spaces?"])
    assert float(first[0] @ again[0]) > 0.9999
    assert onnx_derived.is_current(fused, folder / FP32_FILE)
