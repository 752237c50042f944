"""The verdict sweep (benchmarks/answers/verdict_sweep.py) scores SQuAD rows by what the app
shows: the gate, then the text the grounding verdict writes, refused in its first sentence."""

from __future__ import annotations

from benchmarks.answers.verdict_sweep import _shipped, _shown, judged

PASSAGES = ["The tower is in Paris. It was pursued by Hinx, a Spectre assassin, in 2015."]


def shown_refuses(row: dict, judge=None) -> bool:
    """Whether the sweep scores ``row`` as shown refused."""
    return judged([row], None, judge)[0]["shown"]


def row(answer: str, answerable: bool = True, question: str = "Who pursued the tower?") -> dict:
    return {"id": "q", "question": question, "golds": ["Hinx"] if answerable
            else [], "answer": answer, "passages": PASSAGES, "signals": None}


def test_a_short_answer_the_model_itself_says_is_not_found_is_shown_as_a_refusal():
    hedged = row("**Hinx**. Not found in the documents.", False, "Who built the tower?")
    assert shown_refuses(hedged)
    # the verdict reads no claim in the refusal, and decides the name: no sentence holding it
    # states the question (``grounding.located``), so it is refused by both rules
    items = judged([hedged], None)
    assert _shipped(items)[0] == 1.0 and _shown(items)[0] == 1.0


def test_what_the_passages_state_is_shown_and_scored_by_its_short_answer():
    stated = row("**Hinx**. The tower was pursued by Hinx.")
    assert not shown_refuses(stated)
    refusal, false_not_found, f1 = _shown(judged([stated], None))
    assert (refusal, false_not_found, f1) == (0.0, 0.0, 100.0)


def test_an_invented_name_is_shown_as_the_documents_not_saying_it():
    assert shown_refuses(row("**Oslo**. Oslo pursued the tower."))


def test_a_question_the_gate_refuses_is_shown_refused_whatever_its_answer():
    sure_not = {"p_not_found": 0.99, "model_refuses": True, "p_no": 0.99, "p_answered": 0.01}
    gated = dict(row("**Hinx**. The tower was pursued by Hinx."), signals=sure_not)
    assert _shown(judged([gated], None))[1] == 1.0  # a false "not found": the gate's


def test_the_text_recorded_when_the_answer_was_written_is_what_is_scored():
    # squad_local records what the app showed, judged in the prompt that wrote the answer
    stated = row("**Hinx**. The tower was pursued by Hinx.")
    assert not shown_refuses(stated)
    recorded = dict(stated, shown="The documents don't say who pursued the tower.")
    assert shown_refuses(recorded)


def test_squad_local_records_the_text_the_query_page_shows():
    from types import SimpleNamespace

    from benchmarks.answers.squad_local import shown_of
    from ragcore.types import Node, ScoredNode

    engine = SimpleNamespace(synthesizer=SimpleNamespace(llm=None))  # no judge: the verdict alone
    response = SimpleNamespace(source_nodes=[ScoredNode(Node(text=p), 1.0) for p in PASSAGES])
    invented = shown_of(engine, response, "**Oslo**. Oslo pursued the tower.",
                        "Who pursued the tower?", None)
    assert invented["verdict"] == "unsupported"
    assert invented["shown"].startswith("The documents don't say who pursued the tower")
    stated = shown_of(engine, response, "**Hinx**. The tower was pursued by Hinx.",
                      "Who pursued the tower?", None)
    assert stated["verdict"] == "supported" and "Hinx" in stated["shown"]


def test_each_row_is_judged_once_the_apps_way():
    class Judge:  # "Yes" at 0.5 to whatever it is asked; counts the asks
        model, asked = "judge", 0

        def first_token_logprobs(self, messages, *, top=10):
            Judge.asked += 1
            return {"Yes": -0.7, "No": -0.7}

    passage = ["NIST is an agency of the U.S. Department of Commerce, founded in 1901."]
    undecided = dict(row("The agency was founded long ago."), passages=passage,
                     question="When was the agency founded?")
    [item] = judged([undecided], None, Judge())
    assert Judge.asked == 1 and item["label"]  # the app's verdict, its judge asked once
