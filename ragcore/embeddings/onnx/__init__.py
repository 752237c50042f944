"""The packaged embedding model on ONNX Runtime: the same vectors as torch, faster on a CPU.

    embedder.py  OnnxEmbedder: runs the exported graph (fused, or int8 where it keeps quality)
    export.py    the sentence-transformers folder exported to ONNX once, cached per machine
    derived.py   graphs derived from the export: fused by ONNX Runtime, or quantized to int8
"""
