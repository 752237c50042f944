"""Why response modes differ: each mode's calls named by their part (``ragcore.present.how_made``),
from real synthesis traces, and the Query page's comparison showing them per mode."""

from __future__ import annotations

from itertools import count

from test_app_pages import app_env, built_workspace, button, docs_ws, open_page  # noqa: F401

from ragcore.llms import FakeLLM
from ragcore.present.how_made import made_steps, made_summary
from ragcore.query import compare_modes
from ragcore.types import Node, ScoredNode


def compared() -> dict:
    """Every mode over four long passages, with a window small enough to need several prompts;
    each reply is numbered, so drafts and summaries can be told apart."""
    nodes = [ScoredNode(Node(f"Passage {i}: " + "tides follow the moon " * 90, node_id=f"n{i}"),
                        0.9 - i / 10) for i in range(4)]
    numbers = count()
    llm = FakeLLM(default=lambda messages: f"reply {next(numbers)}", context_window=1200,
                  num_output=64)
    return {r.mode.value: r.trace for r in compare_modes("Why tides?", nodes=nodes, llm=llm)}


def test_refine_shows_each_draft_and_what_it_refined():
    steps = made_steps(compared()["refine"])
    assert [s.title.split(":")[0] for s in steps] == [f"Draft {i} of 4" for i in range(1, 5)]
    for before, after in zip(steps, steps[1:]):
        assert before.reply in after.prompt  # each draft is refined from the one before
    assert "4 drafts" in made_summary("refine", compared()["refine"])


def test_tree_summarize_shows_its_levels_then_the_root():
    trace = compared()["tree_summarize"]
    steps = made_steps(trace)
    assert [s.title for s in steps[:-1]] == ["Level 1, summary 1", "Level 1, summary 2"]
    assert steps[-1].title.startswith("The root")
    assert all(s.reply in steps[-1].prompt for s in steps[:-1])  # the root reads the level
    assert made_summary("tree_summarize", trace).startswith("2 summaries over 1 level,")


def test_accumulate_shows_one_answer_per_passage_group_in_order():
    steps = made_steps(compared()["accumulate"])  # run concurrently: recorded as they finish
    assert [s.title.split(":")[0] for s in steps] == [f"Answer {i}" for i in range(1, 5)]
    assert all(f"Passage {i}: " in s.prompt for i, s in enumerate(steps))


def test_single_call_modes_and_no_text():
    traces = compared()
    for mode, words in (("simple_summarize", "every passage in one prompt"),
                        ("generation", "model alone")):
        steps = made_steps(traces[mode])
        assert len(steps) == 1 and words in steps[0].title
        assert made_summary(mode, traces[mode]).startswith("One call")
    assert made_steps(traces["no_text"]) == []
    assert made_summary("no_text", traces["no_text"]).startswith("No model call")


def test_the_comparison_has_a_how_it_was_made_expander_per_mode(docs_ws):
    at = open_page("query")
    at.text_input[0].set_value("What is the state of the union?").run()
    at.multiselect[0].set_value(["compact", "refine", "accumulate"]).run()
    button(at, "Compare").click().run()
    assert not at.exception
    made = [e for e in at.expander if e.label == "How this answer was made"]
    assert len(made) == 3
    refine = made[1]
    titles = [m.value for m in refine.markdown]
    assert titles[0].startswith("**Draft 1 of") and len(titles) > 1  # extractive steps, too
    assert refine.caption[0].value.endswith("with more passages.")


def test_the_gates_decision_and_its_signals_are_told_in_words():
    from ragcore.present.how_made import gate_note

    notes = {"not_found_gate": {"refuse": True, "score": 0.83, "threshold": 0.78, "seconds": 1.0,
                                "signals": {"p_not_found": 0.31, "model_refuses": False,
                                            "p_no": None, "p_answered": 0.12}}}
    note = gate_note({"notes": notes})
    assert "83%" in note and "78%" in note and "without asking the model" in note
    assert "31%" in note and "12%" in note and "No\"" not in note  # p_no was not asked
    notes["not_found_gate"]["refuse"] = False
    assert "the model answered" in gate_note({"notes": notes})
    assert gate_note({"notes": {}}) is None and gate_note(None) is None


def test_a_question_the_gate_skipped_says_why():
    from ragcore.present.how_made import gate_note

    skipped = {"skipped": "a summary question is not refused by the factoid gate"}
    assert gate_note({"notes": {"not_found_gate": skipped}}) == (
        "The not-found gate did not run: a summary question is not refused by the factoid gate.")
