"""ragcore benchmarks: `python -m benchmarks [--quick]` prints a table and writes JSON to results/.

Not tests: figures depend on the machine. Each module has a ``run()`` returning rows
(``harness.Row`` or dicts); ``__main__`` runs them in order and reports targets beside figures.
"""
