"""The offline extractive answerer's training: ``train`` writes
``ragcore/llms/extractive/weights.json`` from the SQuAD training files of ``data/`` (loaded by
``squad``), the prompts of ``contexts``, the made-up negatives of ``negatives`` and the feature
families of ``families``; ``compare`` says how close a rebuild is. README.md names the recipe
of the shipped weights and how closely it rebuilds them."""
