"""The extractive answerer: a model-free backend that answers by quoting the passages.

The instant fallback when no language model can run, and the fast backend of many tests. It
receives each call's structured request (``types.AnswerRequest``), never our prompts' text.

    backend.py    ExtractiveLLM: the LLM protocol over the request, its score out of band
    answer.py     each response mode's and chat mode's answer, and its wording
    rank.py       which sentences are quoted: by meaning, by words, part by part
    text.py       the sentences it may quote (passages cut into sentences, debris left out)
    debris.py     what reads as a sentence but is never quoted (filler, table rows, references)
    span.py       the short answer: the phrase of a sentence that answers a factoid question
    phrases.py    the best few such phrases, for a language model to choose among
    model.py      the learned span and answerability models (``weights.json``, no pickle)
    question.py   what a question asks, from its words alone
    condense.py   follow-up questions made standalone without a model
    summary.py    summaries from a document's central sentences, by section
"""
