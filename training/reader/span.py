"""The span reader (issue 64): where in a passage is the answer, or is there none? Fine-tuned
from the sentence reader's checkpoint and exported to ONNX int8 in ``.cache/span_out``
(``benchmarks/reader/spans.py`` reads it). Not shipped: wired into the check it lost on every
set the check was not tuned on (``benchmarks/reader/README.md``).

    python -m training.reader.restore --out .cache/reader4   # the sentence reader, to train from
    python -m training.reader.span --start .cache/reader4 --checkpoint .cache/span --minutes 85 \
        --threads 2

SQuAD's standard head for version 2.0 (a start and an end logit per token, the [CLS] token's
pair standing for "no answer"), trained on the training files the sentence reader reads
(``training.answerer.squad.TRAINING_FILES``; no dev or held-out question): every answerable
question over its paragraph (cut around the answer when longer than ``MAX_TOKENS``), and as
"no answer": SQuAD 2.0's 160 unanswerable questions over their paragraph, every fourth
answerable question over a sibling paragraph of its article, and a swapped question
(``pairs.swapped``) over the answer's own sentence for every fourth. The measure of what it adds
to the check is ``benchmarks/reader/span_check.py``; the recipe of the shipped file is stage 7 of
``README.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from dataclasses import dataclass
from pathlib import Path

from training.answerer.squad import TRAINING_FILES, training_articles

from ragcore.grounding.claims import sentence_spans

from .pairs import article_vocabulary, swapped
from .train import export_int8, save_checkpoint

log = logging.getLogger("training.reader.span")

MAX_TOKENS = 256
BATCH = 16
LEARNING_RATE = 5e-5
HEAD_RATE = 1e-3
WARMUP = 0.06
SEED = 67
WINDOW = 900  # characters of a paragraph around its answer, when the whole is longer
MODEL_FILE = "span-int8.onnx"
RECIPE_FILE = "span.json"


@dataclass(frozen=True, slots=True)
class Example:
    question: str
    context: str
    start: int = -1  # the answer's characters in ``context``; -1: no answer
    end: int = -1


def examples(articles: list[dict], seed: int = SEED) -> list[Example]:
    """Every training question as an ``Example``, and the "no answer" ones made from them."""
    rng = random.Random(seed)
    out: list[Example] = []
    for article in articles:
        contexts = [p["context"] for p in article["paragraphs"]]
        names, words = article_vocabulary(contexts)
        for at, paragraph in enumerate(article["paragraphs"]):
            context = paragraph["context"]
            for n, qa in enumerate(paragraph["qas"]):
                if qa.get("is_impossible") or not qa.get("answers"):
                    out.append(Example(qa["question"], context))
                    continue
                answer = qa["answers"][0]
                start = answer["answer_start"]
                end = start + len(answer["text"])
                if context[start:end] != answer["text"]:
                    continue
                out.append(_cropped(qa["question"], context, start, end))
                if n % 4 == 1 and len(contexts) > 1:
                    other = rng.choice([c for i, c in enumerate(contexts) if i != at])
                    if answer["text"].casefold() not in other.casefold():
                        out.append(Example(qa["question"], other[:WINDOW]))
                if n % 4 == 3:
                    sentence = next((context[a:b] for a, b in sentence_spans(context, wrapped=True)
                                     if a <= start < b), "")
                    made = swapped(qa["question"], sentence, names, words, rng) if sentence \
                        else None
                    if made is not None:
                        out.append(Example(made[1], sentence))
    rng.shuffle(out)
    return out


def _cropped(question: str, context: str, start: int, end: int) -> Example:
    if len(context) <= WINDOW:
        return Example(question, context, start, end)
    first = max(0, min(start - WINDOW // 2, len(context) - WINDOW))
    return Example(question, context[first:first + WINDOW], start - first, end - first)


def encode(tokenizer, batch: list[Example]):
    """The batch as tensors, with each example's start and end token (0, 0: no answer, or an
    answer cut off by ``MAX_TOKENS``)."""
    import torch

    encoded = tokenizer([e.question for e in batch], [e.context for e in batch],
                        truncation="only_second", max_length=MAX_TOKENS, padding=True,
                        return_offsets_mapping=True, return_tensors="pt")
    starts, ends = [], []
    for i, example in enumerate(batch):
        s = e = 0
        if example.start >= 0:
            sequence = encoded.sequence_ids(i)
            spans = [(t, a, b) for t, (a, b) in enumerate(encoded["offset_mapping"][i].tolist())
                     if sequence[t] == 1]
            s = next((t for t, a, b in spans if b > example.start), 0)
            e = max((t for t, a, b in spans if a < example.end), default=0)
            if not (s and e >= s and spans and spans[-1][2] >= example.end):
                s = e = 0  # cut off by MAX_TOKENS: read as no answer here
        starts.append(s)
        ends.append(e)
    encoded.pop("offset_mapping")
    return encoded, torch.tensor(starts), torch.tensor(ends)


def train(items: list[Example], checkpoint: Path, start: Path, minutes: float) -> int:
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    torch.manual_seed(SEED)
    tokenizer = AutoTokenizer.from_pretrained(str(start))
    model = AutoModelForQuestionAnswering.from_pretrained(str(start), num_labels=2)
    model.train()
    model.get_input_embeddings().weight.requires_grad_(False)
    groups = [items[k:k + BATCH] for k in range(0, len(items), BATCH)]
    steps = len(groups)
    head = [p for n, p in model.named_parameters() if n.startswith("qa_outputs")]
    body = [p for n, p in model.named_parameters()
            if p.requires_grad and not n.startswith("qa_outputs")]
    optimizer = torch.optim.AdamW([{"params": body, "lr": LEARNING_RATE},
                                   {"params": head, "lr": HEAD_RATE}], weight_decay=0.01)
    warm = max(1, int(steps * WARMUP))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.05, (steps - s) / (steps - warm + 1))))
    started, running, done = time.monotonic(), 0.0, 0
    for step, batch in enumerate(groups):
        encoded, starts, ends = encode(tokenizer, batch)
        out = model(**encoded, start_positions=starts, end_positions=ends)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        running = 0.98 * running + 0.02 * out.loss.item() if step else out.loss.item()
        done = step + 1
        if done % 20 == 0:
            log.info("step %d/%d loss %.4f (%.1f s a step)", done, steps, running,
                     (time.monotonic() - started) / done)
        if done % 100 == 0:
            save_checkpoint(model, tokenizer, checkpoint, done)
        if minutes and time.monotonic() - started > minutes * 60:
            break
    save_checkpoint(model, tokenizer, checkpoint, done)
    return done


def export(checkpoint: Path, out: Path, recipe: dict) -> Path:
    """The checkpoint as the span reader's int8 file in ``out`` (``benchmarks/reader/spans.py``
    reads it)."""
    from transformers import AutoModelForQuestionAnswering

    model = AutoModelForQuestionAnswering.from_pretrained(
        str(checkpoint), attn_implementation="eager").eval()
    return export_int8(model, out / MODEL_FILE, out / RECIPE_FILE,
                       ["start_logits", "end_logits"], recipe)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=Path, default=Path(".cache/reader4"),
                        help="the sentence reader's checkpoint (restore.py makes it)")
    parser.add_argument("--checkpoint", type=Path, default=Path(".cache/span"))
    parser.add_argument("--out", type=Path, default=Path(".cache/span_out"),
                        help="where the ONNX file goes")
    parser.add_argument("--minutes", type=float, default=0.0)
    parser.add_argument("--limit", type=int, default=None, help="examples read (a slice)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--export-only", action="store_true",
                        help="export the saved checkpoint, train nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    import torch

    torch.set_num_threads(args.threads)
    items = examples(training_articles())[:args.limit]
    if args.export_only:
        steps = json.loads((args.checkpoint / "steps.json").read_text())["steps"]
    else:
        log.info("%d examples (%d with no answer)", len(items),
                 sum(e.start < 0 for e in items))
        steps = train(items, args.checkpoint, args.start, args.minutes)
    export(args.checkpoint, args.out, {
        "base": "the sentence reader, stage 4 (restored from reader-int8.onnx by "
                "training.reader.restore)", "data": list(TRAINING_FILES), "seed": SEED,
        "examples": len(items), "batch": BATCH, "learning_rate": LEARNING_RATE,
        "head_rate": HEAD_RATE, "warmup": WARMUP, "max_tokens": MAX_TOKENS, "window": WINDOW,
        "threads": args.threads, "minutes": args.minutes, "steps": steps})


if __name__ == "__main__":
    main()
