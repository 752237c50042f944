"""``llama_index.core.selectors``: the router's selectors."""

from ..routing import EmbeddingSingleSelector, LLMSingleSelector

__all__ = ["EmbeddingSingleSelector", "LLMSingleSelector"]
