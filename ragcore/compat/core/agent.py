"""``llama_index.core.agent``: agent constructors giving ragcore agent sessions."""

from ..agents import FunctionCallingAgent, ReActAgent

__all__ = ["FunctionCallingAgent", "ReActAgent"]
