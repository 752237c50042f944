"""Retrieval quality on the answer questions: every mode's nDCG@10, recall and MRR, the advanced
retrievers against plain vector search, and the analysis and fusion variants behind the default."""
