"""``llama_index.core.indices``: only the query transforms live here in ragcore.compat."""
