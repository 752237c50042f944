"""Make the SQuAD half of the grounding claims and merge it with the hand-written corpus half.

    python -m benchmarks.grounding.claims_make    # from the repository root: rewrites claims.jsonl

Reads SQuAD 2.0 training paragraphs from ``training/answerer/data/train.json`` only (never the
held-out files of ``benchmarks/answers/squad/``), keeps those of 100-250 words, and turns their
questions into claims the way a small model answering from the paragraph states them:

    supported     the gold answer in a sentence made of the question's words ("paraphrase"), the
                  paragraph's sentence holding the answer ("copy"), or the bold answer alone
                  ("short_answer")
    contradicted  that sentence (or bold answer) with the answer swapped for another span of the
                  same type from the same paragraph: a year ("date"), a number, a name
    unsupported   an unanswerable question answered with SQuAD's plausible span
                  ("wrong_entity": the question names something the paragraph does not say;
                  "date", "negation"), or a sentence of one paragraph set against the next
                  paragraph of the article, where the answer it holds does not occur
                  ("invented_fact")

A question becomes a sentence through ``TEMPLATES`` (written by reading the question) or else
the rules of ``rule_template``; ``SWAPS`` holds wrong answers chosen by hand where the patterns
pick a span of the wrong kind; ``SKIP`` lists questions left out after reading their rows.
Every choice is seeded (per question, so one reviewed row leaves the others as they were), so
each run writes the same file. ``claims.jsonl`` is the hand-written corpus rows of
``claims_corpus.jsonl``, then these.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import defaultdict
from pathlib import Path

from benchmarks.harness import write_jsonl

HERE = Path(__file__).resolve().parent
TRAIN = HERE.parents[1] / "training" / "answerer" / "data" / "train.json"
CORPUS_ROWS = HERE / "claims_corpus.jsonl"
OUT = HERE / "claims.jsonl"
SEED = 20240611
MIN_WORDS, MAX_WORDS = 100, 250
# Rows of each kind: about 45 % supported, 35 % unsupported, 20 % contradicted.
COUNTS = {"short_answer": 14, "copy": 12, "paraphrase": 55, "contradicted": 36,
          "impossible": 40, "neighbour": 23}
SHORT_CONTRADICTED = 6  # of the contradicted rows, how many are a bold answer alone

# --- questions to sentences -------------------------------------------------------------------

BE = {"is", "was", "are", "were"}
PREPS = {"in", "on", "at", "for", "from", "to", "with", "by", "of", "during", "after", "before",
         "into", "about", "as", "under", "over", "through", "between", "against", "since"}
PRONOUNS = {"she", "he", "they", "it", "we", "you", "i"}
DETS = {"the", "a", "an", "his", "her", "their", "its", "this", "that", "these", "those"}
IRREGULAR = dict(pair.split(":") for pair in """become:became begin:began bring:brought
buy:bought come:came do:did feel:felt fight:fought find:found get:got give:gave go:went
grow:grew have:had hear:heard hold:held know:knew lead:led leave:left lose:lost make:made
meet:met put:put rise:rose say:said see:saw sell:sold send:sent sing:sang spend:spent
stand:stood strike:struck take:took teach:taught tell:told think:thought win:won write:wrote
cut:cut set:set build:built run:ran speak:spoke draw:drew fall:fell break:broke choose:chose
keep:kept pay:paid throw:threw wear:wore undergo:underwent deal:dealt mean:meant""".split())
PAST_FORMS = set(IRREGULAR.values())
DOUBLED = {"star", "plan", "stop", "drop", "ship", "ban", "admit", "commit", "prefer", "occur"}
PARTICIPLES = set("""born known given taken written made built sold held found led felt seen
shown chosen done begun won sent spent told brought bought left lost paid put set cut kept
taught struck grown drawn broken spoken worn thrown driven risen fallen read""".split())
VERBS = set("""accept achieve act add admire advise allow announce appear apply argue arrive ask
assist attack attempt attend award beat become begin believe break bring build buy call capture
cause cease celebrate change choose claim climb collaborate come compete compose conclude
consider contain continue contribute control cover create credit criticize cut deal debut decide
declare dedicate defeat deliver demand depart derive describe design destroy develop die discover
display donate draw drive earn embark emerge employ end endorse enter establish estimate exchange
expand experience explain exploit explore express face fail fall feature feel fight file finish
follow form found gain get give go grant grow have head hear help hire hold honor host influence
inform inherit inspire intend introduce invade invest invite involve issue join keep kill know
land launch lead learn leave list live lose make manage marry mean meet mention move name need
obtain offer open operate order organize own participate pay perform persuade place plan play
portray pose praise prefer present produce promote propose protest provide publish purchase
raise rank reach realize receive recognize record reduce refer refuse reject release rely remain
remove rename replace report represent request require rescue resign respond retire return
reveal review rise rule run save say see seek sell send serve set share show sign sing spend
stand star start state stay strike study suffer suggest support surpass survive take teach team
tell tend terminate tie tour trade transform try turn undergo unveil upload use visit want wield
win work write""".split())
MONTHS = ("January February March April May June July August September October November "
          "December").split()


def _past(verb: str) -> str:
    if verb in IRREGULAR:
        return IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    return verb + (verb[-1] if verb in DOUBLED else "") + "ed"


def _inflect(verb: str, aux: str) -> str:
    """``verb`` as it reads once the auxiliary ``aux`` (did, does, do) is dropped."""
    if aux == "did":
        return _past(verb)
    if aux == "do":
        return verb
    if verb in ("have", "do"):
        return {"have": "has", "do": "does"}[verb]
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + ("es" if re.search(r"(s|sh|ch|x|z|o)$", verb) else "s")


def _split_at(toks: list[str], is_verb) -> tuple[str, list[str]] | None:
    """(subject, rest) of ``toks``, rest starting at the first verb after the subject."""
    first = toks[0].lower() if toks else ""
    for i in range(2 if first in DETS else 1, len(toks)):
        if is_verb(toks[i]):
            if first in PRONOUNS and i > 1:
                return None
            subject = " ".join(toks[:i])
            if first in PRONOUNS or first in DETS:
                subject = subject[:1].upper() + subject[1:]
            return subject, toks[i:]
    return None


def _participle(tok: str) -> bool:
    return tok in PARTICIPLES or (tok.islower() and len(tok) > 4 and tok.endswith("ed"))


def _aux_clause(words: list[str], aux: str, slot: str) -> str | None:
    """'S V rest' of a question's 'did S V rest', with the answer ``slot`` placed."""
    split = _split_at(words, lambda t: t in VERBS)
    if not split:
        return None
    subject, (verb, *rest) = split
    verb = _inflect(verb, aux)
    if slot in ("{when}", "{where}"):
        return " ".join([subject, verb, *rest, slot]) + "."
    if rest and rest[-1] in PREPS or rest and rest[0] not in PREPS:
        return " ".join([subject, verb, *rest, slot]) + "."
    return " ".join([subject, verb, slot, *rest]) + "."


def rule_template(question: str) -> str | None:
    """A sentence with a slot for the answer ({}, or {when}/{where} that add a preposition)
    made of ``question``'s words; None when no rule fits."""
    q = re.sub(r"\s+([,.])", r"\1", " ".join(question.strip().rstrip("?").split()))
    toks = q.split()
    if len(toks) < 3:
        return None
    w0, w1 = toks[0].lower(), toks[1].lower()
    if w0 == "who" and w1 in ("did", "does", "do"):
        return _aux_clause(toks[2:], w1, "{}")
    if w0 == "who" and w1 in BE:
        return "{} " + " ".join(toks[1:]) + "."
    if w0 == "who" and w1 not in {"has", "had", "have"} and \
            (w1 in PAST_FORMS or w1.endswith(("ed", "s"))):
        return "{} " + " ".join(toks[1:]) + "."
    if w0 in ("when", "where") and w1 in ("did", "does", "do"):
        return _aux_clause(toks[2:], w1, "{%s}" % w0)
    if w0 in ("when", "where") and w1 in ("was", "were"):
        return _passive(toks[2:], w1, "{%s}" % w0)
    year = re.match(r"(?i)(?:in )?(?:what|which) year (did|was|were) (.*)", q)
    if year:
        aux, words = year.group(1).lower(), year.group(2).split()
        if aux == "did":
            return _aux_clause(words, aux, "{when}")
        return _passive(words, aux, "{when}")
    how = re.match(r"(?i)how (?:many|much) (.*)", q)
    if how:
        words = how.group(1).split()
        there = re.match(r"(.+?) (are|were|is|was) there\b ?(.*)", how.group(1))
        if there:
            return f"There {there.group(2)} " + "{} " + " ".join(
                filter(None, [there.group(1), there.group(3)])) + "."
        for i, tok in enumerate(words):
            if tok in ("did", "does", "do"):
                clause = _aux_clause(words[i + 1:], tok, "{}")
                return clause and clause.replace("{}", " ".join(["{}", *words[:i]]).strip(), 1)
            if i and (tok in BE or tok in PAST_FORMS or tok.endswith("ed")):
                return "{} " + " ".join(words) + "."
        return None
    what_did = re.match(r"(?i)(?:what|which)(?: [\w'-]+)? (did|does|do) (.*)", q)
    if what_did:
        return _aux_clause(what_did.group(2).split(), what_did.group(1).lower(), "{}")
    if w0 in ("what", "which") and w1 in BE:
        return _passive(toks[2:], w1, "{}") or \
            toks[2][:1].upper() + " ".join(toks[2:])[1:] + f" {w1} " + "{}."
    what_n = re.match(r"(?i)(?:what|which) [\w'-]+ (\w+) (.*)", q)
    if what_n and (what_n.group(1) in PAST_FORMS or what_n.group(1).endswith("ed")):
        return "{} " + what_n.group(1) + " " + what_n.group(2) + "."
    return None


def _passive(words: list[str], aux: str, slot: str) -> str | None:
    """'S was Ved rest {slot}' of a question's 'was S Ved rest', when a participle followed by a
    preposition (or nothing) ends the subject; an adverb ending the subject moves after 'was'."""
    for i in range(1, len(words)):
        after = words[i + 1] if i + 1 < len(words) else ""
        if _participle(words[i]) and (not after or after in PREPS):
            subject = words[:i]
            if any(w.lower() in ("that", "which", "who", "whose") for w in subject):
                return None
            adverb = [subject.pop()] if len(subject) > 1 and subject[-1].endswith("ly") else []
            text = " ".join([*subject, aux, *adverb, *words[i:], slot]) + "."
            return text[:1].upper() + text[1:] if subject[0].lower() in DETS | PRONOUNS else text
    return None


def fill(template: str, answer: str) -> str:
    """``template`` with ``answer`` in its slot; {when} and {where} get 'in' or 'on' unless the
    answer starts with a preposition of its own."""
    text = answer.strip().rstrip(".")
    opens = text.split()[0].lower() in PREPS | {"around", "nearly", "approximately"}
    return _capitalised(_fill(template, text, opens))


def _capitalised(sentence: str) -> str:
    """``sentence`` with a capital first letter, unless its first word is spelt like 'iPod'."""
    first = sentence.split()[0]
    return sentence if any(c.isupper() for c in first[1:]) else sentence[:1].upper() + sentence[1:]


def _fill(template: str, text: str, opens: bool) -> str:
    if "{when}" in template:
        on_day = re.search(r"\d{1,2},? \d{4}$|^\d{1,2} [A-Z][a-z]+ \d{4}$", text) or \
            re.match(r"(%s) \d{1,2}$" % "|".join(MONTHS), text)
        return template.replace("{when}", text if opens else ("on " if on_day else "in ") + text)
    if "{where}" in template:
        return template.replace("{where}", text if opens else "in " + text)
    return template.replace("{}", text)


def template_for(qa: dict) -> str | None:
    """The reviewed sentence of question ``qa``, else the rule one; None if no rule fits."""
    return TEMPLATES.get(qa["id"]) or rule_template(qa["question"])


# --- paragraphs, spans and swaps ---------------------------------------------------------------

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER = re.compile(r"\$?\b\d[\d,.]*\b(?:\s(?:million|billion|percent))?%?")
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s(?:(?:of|the|de|von|du|and)\s)?[A-Z][\w'’-]*)*")
_ABBREVIATION = re.compile(r"\b(?:St|Dr|Mr|Mrs|Ms|Jr|Sr|Mt|No|vs|[A-Z])\.$")
_MINOR = {"of", "the", "de", "von", "du", "and", "in", "a", "an", "for", "on", "to"}


def training_paragraphs(path: Path = TRAIN) -> list[dict]:
    """The paragraphs of ``path`` in order, each {title, index, context, qas}."""
    articles = json.loads(path.read_text(encoding="utf-8"))["data"]
    return [{"title": article["title"], "index": i, "context": p["context"], "qas": p["qas"]}
            for article in articles for i, p in enumerate(article["paragraphs"])]


def in_range(paragraph: dict) -> bool:
    return MIN_WORDS <= len(paragraph["context"].split()) <= MAX_WORDS


def answer_type(text: str) -> str | None:
    """'date' for a year (or a short date holding one), 'number', 'name' (capitalised words),
    else None."""
    if _YEAR.search(text) and len(text.split()) <= 4:
        return "date"
    if _NUMBER.fullmatch(text.strip()):
        return "number"
    words = [w for w in text.split() if w.lower() not in _MINOR]
    if words and len(text.split()) <= 5 and all(w[:1].isupper() for w in words):
        return "name"
    return None


def swap_candidates(context: str, qa: dict, kind: str) -> list[str]:
    """Spans of the same ``kind`` and shape as the gold answer elsewhere in ``context``: none of
    them a gold answer, in the question, or sharing a word with the answer. A number keeps its
    currency, percent sign and scale word; a name has as many words (two or more) as the answer.
    Only the spans nearest in kind are returned: followed by the same word as the answer ("80
    bytes") and, for a number, within a factor of ten of it."""
    gold = qa["answers"][0]["text"].strip()
    golds = {a["text"].strip().lower() for a in qa["answers"]}
    gold_words = {w.lower() for g in golds for w in re.findall(r"\w+", g)} - _MINOR
    question = qa["question"].lower()
    if kind == "date":
        found = list(_YEAR.finditer(context))
    elif kind == "number":
        found = [m for m in _NUMBER.finditer(context) if _shape(m.group()) == _shape(gold)
                 and not _YEAR.fullmatch(m.group().rstrip(".,"))]
    else:
        size = len(gold.split())
        found = [m for m in _NAME.finditer(context) if size >= 2 and len(m.group().split()) == size
                 and context[max(0, m.start() - 2): m.start()].strip() not in (".", "!", "?")]
    unit = _next_word(context, qa["answers"][0]["answer_start"] + len(gold))
    out: list[tuple[bool, str]] = []
    for m in found:
        span = re.sub(r"['’]s$", "", m.group().rstrip(".,"))
        low = span.lower()
        words = {w.lower() for w in re.findall(r"\w+", span)} - _MINOR
        if low in question or not words or words & gold_words or span in (s for _, s in out) \
                or any(low in g or g in low for g in golds):
            continue
        far = kind == "number" and abs(_magnitude(span) - _magnitude(gold)) > 1
        out.append(((_next_word(context, m.start() + len(span)) != unit) + far, span))
    best = min((rank for rank, _ in out), default=0)
    return [span for rank, span in out if rank == best]


def _magnitude(number: str) -> float:
    digits = re.sub(r"[^\d.]", "", number.replace(",", "")).strip(".")
    try:
        return math.log10(max(float(digits), 1.0))
    except ValueError:
        return 0.0


def _shape(number: str) -> tuple[bool, bool, str]:
    scale = re.search(r"million|billion|percent", number)
    return number.startswith("$"), "%" in number, scale.group() if scale else ""


def _next_word(text: str, end: int) -> str:
    found = re.match(r"\W*(\w+)", text[end:])
    return found.group(1).lower() if found else ""


def with_swap(answer: str, kind: str, swap: str) -> str:
    """``answer`` with its year replaced by ``swap`` for a date inside a longer answer."""
    if kind == "date" and not _YEAR.fullmatch(answer.strip()):
        return _YEAR.sub(swap, answer, count=1)
    return swap


def answer_sentence(context: str, start: int) -> str | None:
    """The sentence of ``context`` holding character ``start``, if it reads as one claim."""
    bounds = [0] + [m.end() for m in re.finditer(r"[.!?][\"”’)]?\s+(?=[A-Z\"“])", context)
                    if not _ABBREVIATION.search(context[:m.start() + 1])]
    bounds.append(len(context))
    for lo, hi in zip(bounds, bounds[1:]):
        if lo <= start < hi:
            sentence = context[lo:hi].strip()
            return sentence if 8 <= len(sentence.split()) <= 40 else None
    return None


def question_error(question: str, context: str) -> str:
    """What makes an unanswerable question's plausible answer wrong, as an error label: most
    such questions name the wrong entity; some ask of a year or a negation the paragraph lacks."""
    if re.search(r"\b(not|never)\b|n't\b", question.lower()):
        return "negation"
    if any(year not in context for year in _YEAR.findall(question)):
        return "date"
    return "wrong_entity"


def interleaved(items: list[tuple[dict, dict]], rng: random.Random) -> list[tuple[dict, dict]]:
    """``items`` (paragraph, qa) shuffled within each article, then taken article by article in
    turn, so that every article contributes."""
    groups: dict[str, list] = defaultdict(list)
    for item in items:
        groups[item[0]["title"]].append(item)
    for group in groups.values():
        rng.shuffle(group)
    order = sorted(groups)
    out = []
    while any(groups.values()):
        out.extend(groups[t].pop() for t in order if groups[t])
    return out


# --- rows ------------------------------------------------------------------------------------


def _row(paragraph: dict, qa: dict, claim: str, label: str, error: str,
         passage: dict | None = None) -> dict:
    source = passage or paragraph
    return {"id": "", "source": f"squad-train:{source['title']}",
            "question": qa["question"].strip(), "passage": source["context"], "claim": claim,
            "label": label, "error": error}


def _bold(text: str, rng: random.Random) -> str:
    return f"**{text.strip().rstrip('.')}**" + rng.choice(["", "."])


def _rng(qa: dict, seed: int = SEED) -> random.Random:
    """The random choices of one question's row, apart from every other row's: reviewing one
    row (a SKIP, a TEMPLATES entry) leaves the others as they were."""
    return random.Random(f"{seed}:{qa['id']}")


def squad_rows(paragraphs: list[dict], seed: int = SEED) -> list[dict]:
    """The SQuAD claims: COUNTS rows of each kind, each question used once."""
    rng = random.Random(seed)
    usable = [p for p in paragraphs if in_range(p)]
    answerable = interleaved([(p, qa) for p in usable for qa in p["qas"]
                              if not qa["is_impossible"] and qa["answers"]], rng)
    impossible = interleaved([(p, qa) for p in usable for qa in p["qas"]
                              if qa["is_impossible"] and qa.get("plausible_answers")], rng)
    used: set[str] = set()
    rows = (_contradicted(answerable, used) + _paraphrases(answerable, used)
            + _copies(answerable, used) + _short_answers(answerable, used)
            + _impossible(impossible, used) + _neighbours(paragraphs, answerable, used))
    return rows


def _take(pool, used: set[str], count: int, make) -> list[dict]:
    """The first ``count`` rows ``make`` makes of the questions of ``pool``; ``used`` holds the
    question ids and claims taken so far, by this call and the others."""
    rows = []
    for paragraph, qa in pool:
        if len(rows) == count:
            break
        if qa["id"] in used or qa["id"] in SKIP:
            continue
        row = make(paragraph, qa)
        if row and row["claim"] not in used:  # the same sentence can answer two questions
            used.update((qa["id"], row["claim"]))
            rows.append(row)
    if len(rows) < count:
        raise ValueError(f"only {len(rows)} of the {count} rows asked for could be made: lower "
                         "COUNTS or widen the pool (MIN_WORDS, MAX_WORDS)")
    return rows


def _contradicted(pool, used) -> list[dict]:
    shorts = SHORT_CONTRADICTED

    def make(paragraph, qa):
        nonlocal shorts
        gold = qa["answers"][0]["text"]
        kind = answer_type(gold)
        candidates = swap_candidates(paragraph["context"], qa, kind) if kind else []
        if qa["id"] in SWAPS:
            kind, candidates = SWAPS[qa["id"]]
        template = template_for(qa)
        if not candidates or not template and not shorts:
            return None
        rng = _rng(qa)
        wrong = with_swap(gold, kind, rng.choice(candidates))
        if shorts and (not template or rng.random() < 0.3):
            shorts -= 1
            return _row(paragraph, qa, _bold(wrong, rng), "contradicted", kind)
        return _row(paragraph, qa, fill(template, wrong), "contradicted", kind)
    return _take(pool, used, COUNTS["contradicted"], make)


def _paraphrases(pool, used) -> list[dict]:
    def make(paragraph, qa):
        template = template_for(qa)
        gold = qa["answers"][0]["text"]
        if not template or len(gold.split()) > 8:
            return None
        return _row(paragraph, qa, fill(template, gold), "supported", "paraphrase")
    return _take(pool, used, COUNTS["paraphrase"], make)


def _copies(pool, used) -> list[dict]:
    def make(paragraph, qa):
        sentence = answer_sentence(paragraph["context"], qa["answers"][0]["answer_start"])
        return sentence and _row(paragraph, qa, sentence, "supported", "copy")
    return _take(pool, used, COUNTS["copy"], make)


def _short_answers(pool, used) -> list[dict]:
    def make(paragraph, qa):
        gold = qa["answers"][0]["text"]
        if len(gold.split()) > 6:
            return None
        return _row(paragraph, qa, _bold(gold, _rng(qa)), "supported", "short_answer")
    return _take(pool, used, COUNTS["short_answer"], make)


def _impossible(pool, used) -> list[dict]:
    shorts = 4
    # the questions SQuAD also asks as answerable, per paragraph
    answered = {p["context"]: {q["question"].strip() for q in p["qas"] if q["answers"]}
                for p, _ in pool}

    def make(paragraph, qa):
        nonlocal shorts
        if qa["question"].strip() in answered[paragraph["context"]]:
            return None  # SQuAD also asks it as answerable here: the plausible span is right
        template = template_for(qa)
        plausible = qa["plausible_answers"][0]["text"]
        error = question_error(qa["question"], paragraph["context"])
        rng = _rng(qa)
        if shorts and rng.random() < 0.2:
            shorts -= 1
            return _row(paragraph, qa, _bold(plausible, rng), "unsupported", error)
        return template and _row(paragraph, qa, fill(template, plausible), "unsupported", error)
    return _take(pool, used, COUNTS["impossible"], make)


def _neighbours(paragraphs, pool, used) -> list[dict]:
    following = {(p["title"], p["index"]): q for p, q in zip(paragraphs, paragraphs[1:])
                 if p["title"] == q["title"]}

    def make(paragraph, qa):
        after = following.get((paragraph["title"], paragraph["index"]))
        sentence = answer_sentence(paragraph["context"], qa["answers"][0]["answer_start"])
        golds = [a["text"].lower() for a in qa["answers"]]
        if not after or not in_range(after) or not sentence \
                or any(g in after["context"].lower() for g in golds):
            return None
        return _row(paragraph, qa, sentence, "unsupported", "invented_fact", passage=after)
    return _take(pool, used, COUNTS["neighbour"], make)


# --- merge -----------------------------------------------------------------------------------


def build(corpus_rows: Path = CORPUS_ROWS, train: Path = TRAIN) -> list[dict]:
    """The corpus rows as written, then the SQuAD rows numbered s001, s002, ..."""
    corpus = [json.loads(line) for line in corpus_rows.read_text(encoding="utf-8").splitlines()
              if line.strip()]
    squad = squad_rows(training_paragraphs(train))
    for i, row in enumerate(squad, 1):
        row["id"] = f"s{i:03d}"
    return corpus + squad


def main() -> None:
    rows = build()
    tmp = OUT.with_suffix(".jsonl.tmp")
    write_jsonl(tmp, rows)
    tmp.replace(OUT)
    print(f"wrote {len(rows)} claims to {OUT}")


# --- reviewed sentences ----------------------------------------------------------------------

# Question id -> sentence with the answer slot, where the rule sentence read badly.
TEMPLATES: dict[str, str] = {
    "56be99b53aeaaa14008c913f": "Beyoncé donated the money she earned from the shows to the {}.",
    "56bfd6f7a10cfb1400551325": "She has sold {} records with Destiny's Child.",
    "56cbfcda6d243a140015ee42": "{} was in attendance at Frédéric's first performance at the Salle "
                                "Pleyel on 26 February 1832.",
    "56cc08eb6d243a140015ee70": "Frédéric said the piano arrived in the {}.",
    "56cc86f26d243a140015eff2": "The first time it is used, an iPod recognizes {} host computer.",
    "56cd92e562d2951400fa6728": "At the start of Twilight Princess, Link works as a {}.",
    "56cdaa2662d2951400fa67ec": "Luciano Petech and Sato Hisashi claim the Ming held a {} policy "
                                "towards Tibet.",
    "56cdaa2662d2951400fa67ee": "The Yongle Emperor failed to build a strong relationship with "
                                "the {}.",
    "56ce2b2daab44d1400b884f2": "China Daily has been a CCP-controlled news organization since {}.",
    "56cf4837aab44d1400b88f26": "The price per square foot of 450 Park Avenue when it sold in July "
                                "2007 was {}.",
    "56d1324717492d1400aabbfc": "Replicas of the Master Sword and Hylian Shield were bundled with "
                                "the {}.",
    "56d135e0e7d4791d00902018": "IGN ranked the game {} among Wii games.",
    "56d38d6559d6e41400146750": "Chopin said the two most important composers for his music "
                                "were {}.",
    "56d43c5f2ccc5a1400d830a9": "Beyoncé rose to fame in the {}.",
    "56d4baf92ccc5a1400d8317c": "In November 2003, Beyoncé embarked on the {} in Europe.",
    "56d4c0452ccc5a1400d831ca": "On January 20, 2009, Beyoncé performed at {}.",
    "56ce0d8662d2951400fa69e8": "When he was 21, he went to live in {}.",
    "56d43da72ccc5a1400d830c0": "Beyoncé is married to {}.",
    # unanswerable questions, answered with the plausible span
    "5a8d8513df8bba001a0f9ad1": "Clawshot's main weapon is the {}.",
    "5a8d89b5df8bba001a0f9af7": "In the Twilight Realm, Epona takes the form of a {}.",
    "5a8d9520df8bba001a0f9b15": "The Light Spirits work as a {} at the start of Twilight Princess.",
    "5a8d9a35df8bba001a0f9b23": "The Eldin come from {}.",
    "5a8da394df8bba001a0f9b34": "At the end of the game, Ganondorf departs from {}.",
    "5a8da7d2df8bba001a0f9b48": "Nintendo previewed the Phantom riding feature at {}.",
    "5a8db51fdf8bba001a0f9b91": "Replicas of the media requests were bundled with the {}.",
    "5a8dc231df8bba001a0f9bd4": "According to IGN, Twilight Princess placed {} among Nintendo "
                                "Power titles.",
    "5a8dc231df8bba001a0f9bd5": "Twilight Princess ranked {} on Game Radar's list of Nintendo "
                                "games in the 2000s.",
}
# Question id -> (error, [wrong answers]) chosen by reading the paragraph, for swaps of a kind
# the patterns cannot find (a person for a person, a place for a place).
SWAPS: dict[str, tuple[str, list[str]]] = {
    "56cbdfbf6d243a140015edb9": ("name", ["Warsaw Lyceum"]),
    "56ce7bf4aab44d1400b887f4": ("name", ["Joseph N. Grasso"]),
    "56cedbb9aab44d1400b88b0f": ("name", ["Manhattan Island"]),
    "56cfb618234ae51400d9bebb": ("name", ["Microsoft Windows"]),
    "56d131c217492d1400aabbdc": ("name", ["Michiru Ōshima"]),
    "56d4baf92ccc5a1400d8317c": ("name", ["Verizon Ladies First Tour"]),
}
# Questions left out: no fluent sentence, or a swapped answer that could still be true.
SKIP: set[str] = {
    "56bfafdba10cfb140055123e", "56cd937162d2951400fa6732", "56cf66734df3c31400b0d717",
    "56d12e4a17492d1400aabb8c", "56d4e91b2ccc5a1400d83334", "5a8d9520df8bba001a0f9b16",
    "5a8dae8adf8bba001a0f9b6f", "5a8db1e5df8bba001a0f9b79", "5a8db1e5df8bba001a0f9b7b",
    "5a8db1e5df8bba001a0f9b7d", "5a8db41fdf8bba001a0f9b85", "56cf9d81234ae51400d9be1e",
    "56cbdbf36d243a140015ed99", "5a8db41fdf8bba001a0f9b86", "56beb50f3aeaaa14008c9270",
}

if __name__ == "__main__":
    main()
