"""The packaged model on ONNX Runtime: identity, variants, export cache, agreement with torch.

The slow tests export the real model once per machine into the user cache (about 15 s), then
reuse it; the concurrency test exports into its own temporary cache.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from ragcore import VectorStoreIndex
from ragcore.embeddings import FakeEmbedder, OnnxEmbedder, SentenceTransformerEmbedder
from ragcore.embeddings import packaged
from ragcore.embeddings.onnx.export import (
    CACHE_ENV,
    FP32_FILE,
    INT8_FILE,
    export_folder,
    onnx_cache_root,
)
from ragcore.errors import ConfigError, EmbeddingError
from ragcore.testing.embedder import EmbedderContract
from ragcore.types import Document
from ragcore.workspace import Workspace

INT8, FLOAT32 = packaged.INT8_NAME, packaged.FLOAT32_NAME


def corpus_texts(corpus: Path, count: int) -> list[str]:
    """Paragraphs of real prose and specs, of many lengths (some past the 256-token window)."""
    paragraphs: list[str] = []
    for path in sorted((corpus / "python_peps").glob("pep-000*.rst"))[:4]:
        paragraphs += [p for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    return paragraphs[:count]


# -- identity and variants (no model loads) -----------------------------------------------------


def test_names_say_quantisation_and_nothing_loads():
    int8, fp32 = OnnxEmbedder(quantized=True), OnnxEmbedder()
    assert (int8.model_name, fp32.model_name) == (INT8, FLOAT32)
    assert int8.max_input_tokens == 256 and int8.dim == 384
    assert not int8.loaded and int8.embed_batch([]).shape == (0, 384) and not int8.loaded


@pytest.mark.parametrize("options, message", [
    ({"batch_size": 0}, "batch_size"), ({"threads": 0}, "threads"),
    ({"model_path": "/nope"}, "tokenizer.json"),
])
def test_bad_options_say_what_to_do(options, message):
    with pytest.raises(ConfigError, match=message):
        OnnxEmbedder(**options)


def test_new_indexes_get_int8_and_others_the_variant_they_were_built_with():
    assert packaged.default_embedder().model_name == INT8
    assert packaged.default_embedder(INT8).model_name == INT8
    assert packaged.default_embedder("someone-else") is packaged.default_embedder()
    assert packaged.default_embedder(FLOAT32) is packaged.default_embedder(FLOAT32)


def test_without_onnxruntime_the_packaged_model_runs_on_torch(monkeypatch, caplog):
    monkeypatch.setattr(packaged, "onnxruntime_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger=packaged.__name__):
        embedder = packaged.packaged_variant(INT8)
    assert isinstance(embedder, SentenceTransformerEmbedder) and embedder.model_name == FLOAT32
    assert "onnxruntime is not installed" in caplog.text


def test_an_index_built_with_int8_loads_with_int8(tmp_path):
    built = VectorStoreIndex.from_documents(
        [Document("Tomatoes need sun.", doc_id="a")], embedder=FakeEmbedder(model_name=INT8))
    built.persist(tmp_path / "int8")
    assert VectorStoreIndex.load(tmp_path / "int8").embedder.model_name == INT8


def test_an_index_refuses_vectors_of_the_other_variant(tmp_path):
    built = VectorStoreIndex.from_documents(
        [Document("Tomatoes need sun.", doc_id="a")], embedder=FakeEmbedder(model_name=INT8))
    built.persist(tmp_path / "int8")
    with pytest.raises(EmbeddingError, match=f"{INT8}.*{FLOAT32}"):
        VectorStoreIndex.load(tmp_path / "int8", embedder=FakeEmbedder(model_name=FLOAT32))


def test_workspace_keeps_the_variant_an_index_was_recorded_with(tmp_path):
    workspace = Workspace(tmp_path / "ws")
    workspace.create_index("new")
    assert workspace.record("new").embed_model == INT8
    record = workspace.record("new")
    record.embed_model = FLOAT32  # as an index built before int8 became the default
    workspace.save_record("float32", record)
    assert workspace.embedder_for("float32").model_name == FLOAT32
    assert workspace.embedder_for("new").model_name == INT8


# -- the export cache ---------------------------------------------------------------------------


def test_cache_lives_in_the_user_cache_never_the_package(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert onnx_cache_root() == tmp_path / "ragcore" / "onnx"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert onnx_cache_root() == tmp_path / "mine"
    folder = export_folder(OnnxEmbedder().model_path, FLOAT32, tmp_path)
    assert folder.parent == tmp_path and folder.name.startswith(FLOAT32 + "-")


def test_a_damaged_export_says_which_folder_to_delete(tmp_path):
    embedder = OnnxEmbedder(cache_dir=tmp_path)
    folder = export_folder(embedder.model_path, FLOAT32, tmp_path)
    folder.mkdir()
    (folder / FP32_FILE).write_bytes(b"not a model")
    with pytest.raises(EmbeddingError, match=f"Delete its folder {folder}"):
        embedder.embed_batch(["hello"])


@pytest.mark.slow
def test_two_processes_exporting_at_once_share_one_complete_export(tmp_path):
    code = ("from ragcore.embeddings.onnx.embedder import OnnxEmbedder;"
            f"print(OnnxEmbedder(cache_dir={str(tmp_path)!r}).embed_batch(['hi'])[0][:3])")
    runs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0]
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]  # no stray temporary folder
    names = {p.name for p in folder.iterdir()}  # and the fused graph derived from it
    assert {FP32_FILE, INT8_FILE} <= names and not [n for n in names if n.startswith(".")]


# -- real vectors -------------------------------------------------------------------------------


class TestOnnxInt8Contract(EmbedderContract):
    pytestmark = pytest.mark.slow

    def make_embedder(self):
        return packaged.default_embedder(INT8)


class TestOnnxFloat32Contract(EmbedderContract):
    pytestmark = pytest.mark.slow

    def make_embedder(self):
        return packaged.default_embedder(FLOAT32)


@pytest.fixture(scope="module")
def torch_vectors(corpus_dir):
    texts = corpus_texts(corpus_dir, 48)
    return texts, SentenceTransformerEmbedder().embed_batch(texts)


@pytest.mark.slow
def test_float32_gives_torch_vectors_and_int8_nearly(torch_vectors):
    texts, reference = torch_vectors
    fp32 = packaged.default_embedder(FLOAT32).embed_batch(texts)
    int8 = packaged.default_embedder(INT8).embed_batch(texts)
    assert np.einsum("ij,ij->i", fp32, reference).min() > 0.9999
    agreement = np.einsum("ij,ij->i", int8, reference)
    assert agreement.mean() > 0.98 and agreement.min() > 0.95


@pytest.mark.slow
def test_a_query_process_does_not_import_torch_once_exported():
    packaged.default_embedder().embed_batch(["export first"])
    code = ("import sys; from ragcore.embeddings import default_embedder;"
            "v = default_embedder().embed_batch(['hello']); assert v.shape == (1, 384);"
            "print([m for m in ('torch', 'sentence_transformers', 'transformers')"
            " if m in sys.modules])")
    env = {**os.environ, CACHE_ENV: str(onnx_cache_root())}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_threads_embedding_at_once_get_the_same_vectors(corpus_dir):
    embedder = packaged.default_embedder()
    texts = corpus_texts(corpus_dir, 12)
    alone = embedder.embed_batch(texts)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: embedder.embed_batch(texts), range(4)))
    for vectors in results:
        assert np.allclose(vectors, alone, atol=1e-4)
