"""``llama_index.llms.*``: ``ollama.Ollama`` and ``openai.OpenAI`` over ragcore's backends."""
