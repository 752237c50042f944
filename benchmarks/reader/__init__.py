"""The trained reader (``ragcore.reading``) measured: ``auc`` on SQuAD 2.0's official dev split,
``sweep`` the check with it replayed on recorded answers."""
