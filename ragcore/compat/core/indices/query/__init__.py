"""``llama_index.core.indices.query``."""
