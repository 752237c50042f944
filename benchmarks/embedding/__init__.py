"""The packaged embedding model's variants (torch, ONNX, int8): texts per CPU-second measured
interleaved, agreement with torch, nDCG@10, cold start."""
