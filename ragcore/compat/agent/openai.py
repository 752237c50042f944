"""``llama_index.agent.openai``: ``OpenAIAgent``."""

from ..agents import OpenAIAgent

__all__ = ["OpenAIAgent"]
