"""Language-model backends behind one protocol (see ``base``)."""

from .base import LLM, ToolCallingLLM, complete, complete_traced, stream_traced
from .fake import FakeLLM

__all__ = ["LLM", "ToolCallingLLM", "FakeLLM", "complete", "complete_traced", "stream_traced"]
