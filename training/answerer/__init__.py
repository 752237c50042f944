"""The offline extractive answerer's training: ``train`` writes
``ragcore/llms/extractive/weights.json`` from the SQuAD training files of ``data/`` (loaded by
``squad``), the prompts of ``contexts`` and the made-up negatives of ``negatives``. README.md
names the recipe of the shipped weights."""
