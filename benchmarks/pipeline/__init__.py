"""End to end: load, split, embed and persist the corpus; a query's overhead per response mode;
the app's cold start and first answer token."""
