"""Recipes that make the files ragcore ships: each trains from its own data and reads no
held-out benchmark file (held-out data and measures live in ``benchmarks/``)."""
