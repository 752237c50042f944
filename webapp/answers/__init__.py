"""How answers are shown and judged: cited sources, the retriever choice and its traces, and the
Evaluate tab with its saved results."""
