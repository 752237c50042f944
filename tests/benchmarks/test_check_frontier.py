"""The check's frontier (``verdict_sweep --frontier``): its variants change the located rule
while they run and leave the shipped one after; what it counts is what the app shows. And
``--reask``: the wrong answers asked again."""

from __future__ import annotations

from benchmarks.answers.verdict_sweep import auc, counts, located_rules, shown
from ragcore.grounding import located

# the sentence holding "Hinx" states two of the question's words: "pursued" and "tower"
PASSAGES = ["The tower is in Paris. Hinx, a Spectre assassin, pursued the tower in 2015."]


def row(answer: str, golds=("Hinx",), question: str = "Who pursued the tall tower?") -> dict:
    return {"id": "q", "question": question, "golds": list(golds), "answer": answer,
            "passages": PASSAGES, "signals": None}


def test_a_variant_changes_the_located_share_only_while_it_runs():
    shipped = located.LOCATED_SHARE, located.VETO_SHARE, located._stating
    with located_rules(share=0.3, veto=0.2, best=0.5):
        assert (located.LOCATED_SHARE, located.VETO_SHARE) == (0.3, 0.2)
        assert located._stating is not shipped[2]
    assert (located.LOCATED_SHARE, located.VETO_SHARE, located._stating) == shipped


def test_a_lower_located_share_shows_an_answer_the_shipped_one_refuses():
    # "always", "tall", "old" and "grey" are asked and stated by no sentence: 2 of 6 (0.33)
    answer = [row("**Hinx**.", question="Who always pursued the tall old grey tower?")]
    assert shown(answer, None)[0]["refused"]
    with located_rules(share=0.3, veto=0.3):
        assert not shown(answer, None)[0]["refused"]


def test_the_counts_split_answers_by_right_and_shown():
    items = [{"answerable": True, "f1": 1.0, "right": True, "refused": False},
             {"answerable": True, "f1": 0.0, "right": False, "refused": True},
             {"answerable": False, "f1": 0.0, "right": False, "refused": False}]
    (right, wrong, refused_right, refused_wrong, unanswerable), squad = counts(items)
    assert (right, wrong, refused_right, refused_wrong, unanswerable) == (1, 0, 0, 1, 1)
    assert squad == (0.0, 0.5, 50.0)


def test_auc_counts_ties_as_half():
    assert auc([1.0, 0.5], [0.5, 0.0]) == 0.875


def test_reask_asks_the_wrong_answers_again_with_the_same_passages_and_the_golds_alone(tmp_path):
    import json

    from benchmarks.answers.verdict_sweep import reask
    from ragcore.llms.fake import FakeLLM

    distractor = "The tower is in Paris."
    rows = [
        {"question": "Who pursued the tower?", "golds": ["Hinx"], "answer": "**Paris**.",
         "passages": [distractor, PASSAGES[0].split(". ")[1]]},
        {"question": "Who pursued the tower?", "golds": ["Hinx"], "answer": "**Hinx**.",
         "passages": PASSAGES},  # right already: not asked again
        {"question": "Who built it?", "golds": [], "answer": "**Eiffel**.", "passages": PASSAGES},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def answer(messages):  # wrong while the distractor is in the prompt
        return "**Paris**." if any(distractor in m.content for m in messages) else "**Hinx**."
    llm = FakeLLM(default=answer)
    assert reask(path, 5, llm) == {"the same passages": 0, "the gold's passage alone": 1}
    assert len(llm.calls) == 2
