"""Search primitives: text analysis, BM25, lexical scores, rank fusion and MMR.

Small pieces every retriever and the extractive answerer build on, with no knowledge of
indexes or retrievers: ``analysis`` (the tokenizer, stop words and stemmer of keyword search),
``bm25`` (Okapi BM25 over postings), ``english_words`` (English words and how common they
are), ``lexical`` (word and term helpers the answerer and the
evidence checks rank sentences with), ``fusion`` (combining ranked lists) and ``mmr``
(maximal marginal relevance).
"""
