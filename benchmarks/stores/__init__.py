"""The vector stores: numpy, Chroma and Postgres side by side, top-5 latency and load of the
embedded store, approximate-search libraries, and an index wholly in Postgres (``pg_*``)."""
