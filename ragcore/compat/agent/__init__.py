"""``llama_index.agent`` (LlamaIndex 0.9's path): ``OpenAIAgent`` and ``ReActAgent``."""

from ..agents import OpenAIAgent, ReActAgent

__all__ = ["OpenAIAgent", "ReActAgent"]
