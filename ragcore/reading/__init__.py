"""The reader: a small cross-encoder trained here that reads a question and a sentence together
and says whether the sentence states the answer (``model``), in the form it was trained on
(``text``). Recipe and data: ``training/reader/README.md``."""
