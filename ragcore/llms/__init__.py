"""Language-model backends behind one protocol (see ``base``).

``ollama`` and ``openai`` talk to servers over the shared ``http`` layer; ``extractive`` is the
offline default (no model); ``fake`` is for tests; ``resolve`` picks the default at the edge.
"""

from .base import LLM, ToolCallingLLM, complete, complete_traced, stream_traced
from .extractive import ExtractiveLLM
from .fake import FakeLLM
from .ollama import OllamaLLM, list_ollama_models
from .openai import OpenAILLM, list_openai_models
from .resolve import describe_llm, resolve_llm

__all__ = [
    "LLM",
    "ToolCallingLLM",
    "ExtractiveLLM",
    "FakeLLM",
    "OllamaLLM",
    "OpenAILLM",
    "complete",
    "complete_traced",
    "describe_llm",
    "list_ollama_models",
    "list_openai_models",
    "resolve_llm",
    "stream_traced",
]
