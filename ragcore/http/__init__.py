"""HTTP for the model servers: one client (``client``), request bodies (``body``), the options
a backend takes (``options``) and where each server is and what it answers to (``servers``).

Only the LLM and embedding backends use it; ``import ragcore.http.options`` does not load httpx.
"""
