"""``llama_index.core.response_synthesizers``: ``get_response_synthesizer``, ``ResponseMode``."""

from ...synthesis import ResponseMode
from ..query_engines import get_response_synthesizer

__all__ = ["ResponseMode", "get_response_synthesizer"]
