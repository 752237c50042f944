"""``llama_index.embeddings.*``: ``huggingface.HuggingFaceEmbedding`` over ragcore's embedder."""
