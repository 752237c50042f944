"""The Evaluate tab (Query page, Advanced): which retriever and response mode answer best.

Pick or make a question set (generated offline from the index's passages, a saved one, or a
CSV / JSON lines file of your own), choose the response modes and retrievers, and run the
evaluation as a background job (``ragcore.evaluation.start_evaluation``): the job lives in this
session, its progress bar and Cancel button are a fragment redrawn every ``POLL_SECONDS``, and
the page is shown anew when it ends. Results, saved in the workspace, are drawn by
``webapp.answers.evaluate_results``.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from ragcore.evaluation import (
    SEARCH_MODES,
    EmbeddingQAFinetuneDataset,
    generate_offline_questions,
    questions_from_text,
    start_evaluation,
)
from ragcore.present import format as fmt
from ragcore.engines import CHOICES
from ragcore.synthesis import ResponseMode
from ragcore.workspace.evaluations import EvaluationStore
from webapp import state
from webapp.answers import evaluate_results
from webapp.team import team_state
from webapp.answers.retriever_view import offered
from webapp.session import session

POLL_SECONDS = 1.0
SOURCES = ("Generate from the index", "A saved question set", "Upload a file")
STYLES = {"key_phrase": "Key phrase (the rarest words of a sentence)",
          "sentence": "Sentence (a whole sentence, held out)"}
SEARCH_LABELS = {"hybrid": "Hybrid search (meaning + keywords)",
                 "similarity": "Meaning (vector similarity)", "keyword": "Keywords (BM25)",
                 "mmr": "Meaning, diverse passages (MMR)"}
DEFAULT_MODES = ["compact", "refine", "tree_summarize", "accumulate"]
DEFAULT_RETRIEVERS = ["hybrid", "keyword"]
INTRO = ("Measure which retriever and response mode answer this index best: every chosen "
         "setup answers every question of a question set, and each answer is scored. Retrieval "
         "is scored against the passage each question came from (hit rate, MRR, nDCG); answers "
         "by a language model acting as judge when one is connected, else by offline measures "
         "that say what they are.")


def evaluate_tab(name: str) -> None:
    """The whole tab for index ``name``."""
    st.write(INTRO)
    store = EvaluationStore(state.workspace_root())
    chosen = question_set(name, store)
    modes, retrievers = setups()
    judge = judge_choice()
    job = session.evaluate_job
    running = job is not None and job.active
    ready = chosen is not None and modes and retrievers and not running
    if st.button("Run evaluation", type="primary", disabled=not ready, key="evaluate_run"):
        start(name, chosen, modes, retrievers, judge)
    if session.evaluate_job is not None:
        watched = session.evaluate_job.active
        st.fragment(job_progress, run_every=POLL_SECONDS if watched else None)(watched)
    evaluate_results.results(name, store, job=session.evaluate_job)


# -- the question set ----------------------------------------------------------------------------


def question_set(name: str, store: EvaluationStore
                 ) -> tuple[str, EmbeddingQAFinetuneDataset] | None:
    """The question set chosen for the next run, or None while there is none."""
    source = st.radio("Questions", SOURCES, horizontal=True, key="evaluate_source")
    if source == SOURCES[0]:
        generate_form(name, store)
    elif source == SOURCES[1]:
        saved_picker(store)
    else:
        upload_picker()
    chosen = session.evaluate_set
    if chosen is None:
        st.caption("Choose or make a question set to run an evaluation.")
        return None
    set_name, dataset = chosen
    st.caption(f"Question set **{set_name}**: {len(dataset)} questions ({dataset.origin}).")
    for problem in dataset.problems[:5]:
        st.caption(f"Note: {problem}")
    with st.expander("The first questions"):
        for question in list(dataset.queries.values())[:10]:
            st.markdown(f"- {fmt.markdown_text(question)}")
    return chosen


def generate_form(name: str, store: EvaluationStore) -> None:
    left, right = st.columns(2)
    count = left.number_input("Number of questions", min_value=5, max_value=200, value=20,
                              step=5, key="evaluate_count")
    style = right.selectbox("Question style", list(STYLES), format_func=STYLES.get,
                            key="evaluate_style")
    st.caption("Offline: each question is made from a passage of the index, without a "
               "language model; that passage is the one retrieval should find.")
    if st.button("Generate questions", key="evaluate_generate"):
        nodes = list(state.load_index(name).all_nodes())
        dataset = generate_offline_questions(nodes, num_questions=int(count), style=style)
        set_name = f"{name}-{style.replace('_', '-')}-{len(dataset)}"
        store.save_question_set(set_name, dataset.to_dict())
        session.evaluate_set = (set_name, dataset)


def saved_picker(store: EvaluationStore) -> None:
    names = readable_sets(store.question_sets())
    if not names:
        st.caption("No question set is saved in this workspace yet: generate one.")
        return
    picked = st.selectbox("Question set", names, key="evaluate_saved")
    if st.button("Use this question set", key="evaluate_use_saved"):
        data = store.load_question_set(picked)
        session.evaluate_set = (picked, EmbeddingQAFinetuneDataset.from_dict(data))


def readable_sets(names: list[str]) -> list[str]:
    """The saved question sets of indexes this person may read (every one in single-user
    mode): a set is named "<index folder>-<style>-<count>" and holds that index's passages."""
    ws = state.workspace()
    folders = team_state.listed(ws, ws.index_names())
    if team_state.current()[0] is None:
        return names
    if not folders:
        return []
    styles = "|".join(re.escape(style.replace("_", "-")) for style in STYLES)
    made = re.compile(f"({'|'.join(map(re.escape, folders))})-({styles})-[0-9]+")
    return [name for name in names if made.fullmatch(name)]


def upload_picker() -> None:
    upload = st.file_uploader(
        "Questions file (CSV or JSON lines)", type=["csv", "jsonl", "json"],
        key="evaluate_upload",
        help="One question a line: a 'question' column (CSV) or key (JSON lines); optional "
             "'expected_answer' and 'expected_source' (a file name).")
    if upload is not None and st.button("Use these questions", key="evaluate_use_upload"):
        text = upload.getvalue().decode("utf-8-sig")
        dataset = questions_from_text(text, name=upload.name,
                                      csv_format=upload.name.lower().endswith(".csv"))
        session.evaluate_set = (upload.name.rsplit(".", 1)[0], dataset)


# -- the setups and the judge ----------------------------------------------------------------------


def retriever_options(llm: Any) -> list[str]:
    """The search modes, then the advanced retrievers that can run with ``llm``."""
    names, _ = offered(llm, "", answers=True)
    return [*SEARCH_MODES, *(n for n in names if n != "standard")]


def retriever_label(name: str) -> str:
    return SEARCH_LABELS.get(name) or (CHOICES[name].label if name in CHOICES else name)


def setups() -> tuple[list[str], list[str]]:
    left, right = st.columns(2)
    modes = left.multiselect("Response modes", [m.value for m in ResponseMode],
                             default=DEFAULT_MODES, key="evaluate_modes")
    retrievers = right.multiselect("Retrievers", retriever_options(state.current_llm()),
                                   default=DEFAULT_RETRIEVERS, format_func=retriever_label,
                                   key="evaluate_retrievers")
    if modes and retrievers:
        st.caption(f"{len(modes) * len(retrievers)} setups ({len(retrievers)} retrievers x "
                   f"{len(modes)} modes); each retriever searches once per question, for all "
                   "modes.")
    return modes, retrievers


def judge_choice() -> Any:
    """The LLM that grades answers, or None for the offline measures."""
    llm = state.current_llm()
    if fmt.is_extractive(llm):
        st.caption("Answers are scored offline (no language model is connected): faithfulness "
                   "by the citation check, relevancy and correctness by closeness to the "
                   "question and the expected answer.")
        return None
    grade = st.checkbox(f"Grade answers with {fmt.describe_backend(llm)}", value=True,
                        key="evaluate_judge",
                        help="Off: the offline measures, which need no model calls.")
    return llm if grade else None


# -- the job -------------------------------------------------------------------------------------


def start(name: str, chosen: tuple[str, EmbeddingQAFinetuneDataset], modes: list[str],
          retrievers: list[str], judge: Any) -> None:
    _, dataset = chosen
    session.evaluate_job = start_evaluation(
        state.workspace(), name, dataset, llm=state.current_llm(), modes=modes,
        retrievers=retrievers, judge=judge)
    st.rerun()  # drawn anew: Run disabled, the progress shown


def job_progress(watched: bool) -> None:
    """The running job's progress and Cancel; the page is drawn anew once it ends."""
    job = session.evaluate_job
    if job is None:
        return
    if not job.active:
        if watched:
            st.rerun(scope="app")
        if job.state == "failed":
            st.error(f"The evaluation failed: {fmt.literal_markdown(job.error)}")
        return
    progress = job.progress
    text = "Evaluating: starting" if progress is None else (
        f"Evaluating: {progress.done} of {progress.total} answers · {progress.setup}")
    st.progress(min(1.0, job.fraction), text=text)
    st.button("Cancel evaluation", key="evaluate_cancel", on_click=job.cancel,
              help="Stop after the answer under way; the answers scored so far are saved.")
