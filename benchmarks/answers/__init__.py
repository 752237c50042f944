"""The answer-quality question set (``questions.jsonl``) and the cached index it is asked of.

``question_set`` reads the questions and decides when a gold string is found in a text;
``corpus_index`` builds (once) and reloads the index of the files the questions name.
``benchmarks/llm/bench_answers.py`` and ``benchmarks/retrieval/bench_retrieval.py`` measure with
both.
"""
