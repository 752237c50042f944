"""``llama_index.vector_stores.*``: ``chroma.ChromaVectorStore``."""
