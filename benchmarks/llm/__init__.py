"""The language models: the offline answerer's answers on the question sets, and the packaged
model's speed on this machine."""
