"""Question sets for an evaluation: written by a model, made without one, or the user's own.

    dataset.py    QuestionSet (LlamaIndex's ``EmbeddingQAFinetuneDataset`` shape), versioned JSON
    generated.py  questions a language model writes about each passage
    offline.py    questions from indexed passages without a model (a key phrase asked for)
    imported.py   a user's own questions from CSV or JSON lines
"""
