"""Query: ask one question of an index with a chosen response mode and retriever, compare
modes or retrievers side by side, or evaluate them over a question set (Evaluate)."""

import streamlit as st

from ragcore import Trace
from ragcore.present import format as fmt, how_made, trace_view
from ragcore.present import ranked_with, score_note, stated_score
from webapp import shell, state
from webapp.session import Session, Widget, session
from webapp.waiting import waiting_notice
from webapp.settings.advanced import advanced_toggle
from webapp.chat.chat_turns import route_caption
from webapp.indexes.index_names import shown_name
from webapp.answers.citing import draw_sources, marked_listing
from webapp.chat import turn_view
from webapp.answers.evaluate_view import evaluate_tab
from webapp.query_options import POSTPROCESSOR_DESCRIPTIONS, QueryOptions, parse_keywords
from ragcore.query import iter_compare_modes
from ragcore.chat import reading_rate, turn_states
from ragcore.workspace.conversation import summary_answer
from ragcore.engines import (
    CHOICES, build_engine, build_retriever, index_words, iter_compare_retrievers,
    llm_with_index_embedder, reading_pool, reading_postprocessors,
)
from webapp.answers.retriever_view import (
    TOP_K_HELP, offered, render_notes, render_retriever_comparison, retriever_select,
)
from ragcore.synthesis import MODE_DESCRIPTIONS, ResponseMode
from ragcore.errors import ConfigError

MODES = [m.value for m in ResponseMode]
POSTPROCESSOR_NAMES = {
    "similarity_cutoff": "Similarity cutoff",
    "keywords": "Keyword filter",
    "neighbours": "Add next passage",
    "long_context_reorder": "Long-context reorder",
}
NO_TEXT = "_(no answer text)_"
SIMPLE_CHOICES = {"top_k": 4, "postprocessors": (), "retrieval_mode": "hybrid",
                  "retriever": "standard"}
OFFLINE_COMPARE = (
    "Without a language model every mode answers the same way: the built-in extractive backend "
    "quotes the best sentences of the passages, so the answers are the same or nearly so. The "
    "modes differ only in how they ask a language model to write an answer: connect one under "
    "**Settings** to compare them.")
METRIC_HELP = {
    "Seconds": "From the first stage's start to the last one's end: the table below shares "
               "it out, each stage within another counted once.",
    "Seconds in LLM calls": "The time the calls counted beside it took, part of the seconds "
                            "in all.",
}
CUTOFF_NOTE = ("The similarity cutoff is offered when searching by meaning only: keyword and "
               "fused scores are on another scale, where a cutoff would remove every passage.")


def retrieval_choices() -> dict:
    """The sidebar's retrieval options, as keyword arguments of QueryOptions (minus the mode)."""
    st.subheader("Retrieval")
    retrieval_mode = shell.search_by(key="query_search_by")
    top_k = st.slider("Passages to retrieve (top-k)", 1, 20, 4, help=TOP_K_HELP)
    offered = [p for p in POSTPROCESSOR_DESCRIPTIONS
               if p != "similarity_cutoff" or retrieval_mode == "similarity"]
    chosen = st.multiselect(
        "Postprocessors", offered, format_func=POSTPROCESSOR_NAMES.get,
        help="\n\n".join(f"**{POSTPROCESSOR_NAMES[k]}**: {POSTPROCESSOR_DESCRIPTIONS[k]}"
                         for k in offered),
    )
    if retrieval_mode != "similarity":
        st.caption(CUTOFF_NOTE)
    choices = {"top_k": int(top_k), "postprocessors": tuple(chosen),
               "retrieval_mode": retrieval_mode}
    if "similarity_cutoff" in chosen:
        choices["similarity_cutoff"] = st.slider("Similarity cutoff", -1.0, 1.0, 0.3, 0.05)
    if "keywords" in chosen:
        choices["required_keywords"] = parse_keywords(st.text_input("Required words (any)"))
        choices["exclude_keywords"] = parse_keywords(st.text_input("Excluded words"))
    choices.update(retriever_select(state.current_llm()))
    return choices


def engine_for(index, options: QueryOptions, llm, response_mode: str):
    """The query engine of the chosen retriever (standard: the index's own engine)."""
    if options.retriever == "standard":
        return index.as_query_engine(
            llm=llm, response_mode=response_mode, similarity_top_k=options.top_k,
            node_postprocessors=options.build_postprocessors(index),
            retrieval_mode=options.retrieval_mode,
        )
    llm = llm_with_index_embedder(llm, index, options.retrieval_mode)
    return build_engine(
        options.retriever, index, llm=llm, top_k=options.top_k, mode=options.retrieval_mode,
        response_mode=response_mode, cross_encoder=options.cross_encoder,
        postprocessors=reading_postprocessors(index, options.build_postprocessors(index), llm,
                                              options.retrieval_mode),
    )


def ask(name: str, question: str, options: QueryOptions, box) -> None:
    """Answer into ``box`` as it streams, and keep the result for later reruns."""
    index = state.load_index(name)
    if options.retrieval_mode != "keyword" or options.retriever != "standard":
        state.ensure_embedder_loaded(index.embedder)
    llm = state.current_llm()
    engine = engine_for(index, options, llm, options.response_mode)
    with box.container():  # the passages, how far the model read them, its draft, its check
        turn = turn_view.open_live_turn(stop=False)
    trace = turn_view.found_trace(turn, options.top_k)  # the passages shown once found
    response = engine.query(question, trace=trace)  # retrieved; the answer streams when read
    turn_view.show_passages(turn, response.source_nodes)
    text = turn_view.follow(turn, turn_states(
        response, lambda whole: whole, sources=response.source_nodes,
        rate=lambda: reading_rate(llm))).text  # never shown as the answer before its check
    marked, listing = marked_listing(
        text, response.source_nodes, trace=trace,
        retrieval_mode=options.retrieval_mode, response_mode=options.response_mode,
        embedder=index.embedder, anchors="query", question=question, judge=llm,
        held=index_words(index),
    )
    box.markdown(fmt.markdown_text(marked) or NO_TEXT)  # in their place: checked, with [1] [2]
    shell.fallback_note()
    session.query_answer = {
        "question": question, "index": name, "mode": options.response_mode,
        "text": text, "marked": marked, "listing": listing, "trace": trace,
        "score": score_note(stated_score(trace),
                            ranked_with(index.embed_model_name, options.retrieval_mode)),
        "retrieval_mode": options.retrieval_mode,
        "backend": fmt.describe_backend(llm), "retriever": CHOICES[options.retriever].label,
    }


def render_sources(result: dict, advanced: bool) -> None:
    listing = result["listing"]
    if not listing.total and not listing.without_sources:
        st.caption("No passages were used for this answer.")
        return
    lookup = state.node_lookup(state.load_index(result["index"]))
    draw_sources(listing, lookup, result["index"], anchors="query",
                 retrieval_mode=result.get("retrieval_mode", "hybrid"), advanced=advanced,
                 toggle_key=Widget.QUERY_MORE_SOURCES)


def render_trace(trace: Trace, score: str = "") -> None:
    """The trace tab: the answer's score in words (``score_note``), work, stages, each call."""
    if score:
        st.markdown(score)
    figures = trace_view.work_metrics(trace)
    for col, (label, value) in zip(st.columns(len(figures)), figures.items()):
        col.metric(label, f"{value:.2f}" if isinstance(value, float) else value,
                   help=METRIC_HELP.get(label))
    for notice in trace_view.notices(trace):
        st.info(notice)
    st.dataframe(trace_view.stage_rows(trace), hide_index=True, width="stretch")
    render_notes(trace)
    calls = trace_view.trace_dict(trace)["llm_calls"]
    for title, call in zip(trace_view.call_titles(trace), calls):
        with st.expander(title):
            st.caption("Prompt")
            st.code(trace_view.prompt_text(call), language=None, wrap_lines=True)
            st.caption("Reply")
            st.code(call["reply"], language=None, wrap_lines=True)


def options_from(choices: dict, **mode) -> QueryOptions | None:
    """The options, or None after saying in the page what to change in the sidebar."""
    try:
        return QueryOptions(**mode, **choices)
    except ConfigError as exc:
        st.error(f"These search options do not work together: {fmt.literal_markdown(str(exc))}. "
                 "Change them under "
                 "**Retrieval** in the sidebar (open **Advanced** to see them).")
        return None


def summarise(name: str, question: str) -> bool:
    """Keep the summary as the answer when ``question`` asks for one; False if it does not."""
    trace = Trace()
    index = state.load_index(name)
    text = summary_answer(state.workspace(), name, index, state.current_llm(), question, trace)
    if text is None:
        return False
    session.query_answer = {"question": question, "index": name, "text": text,
                            "route": route_caption(trace.to_dict())}
    return True


def answer_tab(name: str, question: str, choices: dict, advanced: bool) -> None:
    if advanced:
        left, right = st.columns([1, 2], gap="large")
        mode = left.radio("Response mode", MODES, index=MODES.index("compact"),
                          captions=[MODE_DESCRIPTIONS[ResponseMode(m)] for m in MODES])
    else:
        left = right = st.container()
        mode = "compact"
    clicked = left.button("Ask", type="primary", disabled=not question.strip())
    clicked = clicked or entered(question)
    with right:
        box = st.container(key=Widget.QUERY_ANSWER_BOX).empty()
        # What is under the answer, one place: a new question empties it at once, never left
        # greyed under its progress until the new answer is made (``answer_extras``).
        below = st.empty()
        streamed = False
        if clicked:
            del session.query_answer
            session.reset(Widget.QUERY_MORE_SOURCES)  # weak sources start hidden again
            options = options_from(choices, response_mode=mode)
            if options is not None:
                with shell.friendly_errors():
                    if not summarise(name, question):
                        with waiting_notice():  # its place in line while the model is busy
                            ask(name, question, options, box)
                        streamed = True
        result = session.query_answer
        if not result:
            return
        if "route" in result:  # a summary request: the summary is the answer
            box.markdown(fmt.markdown_text(result["text"]))
            if advanced:  # how it was routed: the trace's words
                below.caption(result["route"])
            return
        if not streamed:
            box.markdown(fmt.markdown_text(result.get("marked", result["text"])) or NO_TEXT)
        with below.container():
            answer_extras(result, advanced)


def answer_extras(result: dict, advanced: bool) -> None:
    """Under an answer: its sources; (Advanced) how it was made, the gate's note, its trace."""
    if not advanced:  # the path taken and the models: under Advanced
        st.markdown(f"**Sources ({result['listing'].total})**")
        render_sources(result, advanced)
        return
    retriever = result.get("retriever", "Standard")
    st.caption(f"Mode **{result['mode']}** · retriever **{retriever}** · "
               f"{result['backend']} · question: {result['question']}")
    if gate := how_made.gate_note(result["trace"]):
        st.caption(gate)
    sources_tab, trace_tab = st.tabs([f"Sources ({result['listing'].total})", "Trace"])
    with sources_tab:
        render_sources(result, advanced)
    with trace_tab:
        render_trace(result["trace"], result.get("score", ""))


def compare(name: str, question: str, options: QueryOptions, modes: list[str]) -> None:
    index = state.load_index(name)
    if options.retrieval_mode != "keyword":
        state.ensure_embedder_loaded(index.embedder)
    bar = st.progress(0.0, text="Retrieving passages…")
    results = []
    llm = llm_with_index_embedder(state.current_llm(), index, options.retrieval_mode)
    retriever = index.as_retriever(similarity_top_k=reading_pool(llm, options.top_k),
                                   mode=options.retrieval_mode)
    passages: int | None = options.top_k  # read of the pool retrieved
    if not CHOICES[options.retriever].answers and options.retriever != "standard":
        retriever = build_retriever(options.retriever, index, llm=llm, top_k=options.top_k,
                                    mode=options.retrieval_mode,
                                    cross_encoder=options.cross_encoder)
        passages = None
    for result in iter_compare_modes(
        question, llm=llm, modes=modes,
        retriever=retriever,
        postprocessors=reading_postprocessors(index, options.build_postprocessors(index), llm,
                                              options.retrieval_mode, passages),
    ):
        results.append(result)
        bar.progress(len(results) / len(modes),
                     text=f"{result.mode.value} done ({len(results)} of {len(modes)})")
    session.query_compare = {"question": question, "results": results, "ranked_with":
                             ranked_with(index.embed_model_name, options.retrieval_mode)}
    shell.fallback_note()


def render_comparison(compared: dict) -> None:
    results = compared["results"]
    st.caption(f"Question: {compared['question']}")
    if made_offline(results):
        st.info(OFFLINE_COMPARE)
    st.dataframe(
        [{"mode": r.mode.value, **trace_view.work_metrics(r.trace),
          "status": "failed" if r.error else "ok"} for r in results],
        hide_index=True, width="stretch",
    )
    for result in shell.in_columns(results, 4):
        with st.container(key=f"compared_{result.mode.value}"):
            st.markdown(f"**{result.mode.value}**")
            score = score_note(stated_score(result.trace), compared.get("ranked_with"))
            st.caption(" · ".join(filter(None, [trace_view.work_summary(result.trace), score])))
            if result.error:
                st.warning(f"This mode failed: {fmt.literal_markdown(str(result.error))}")
            else:
                st.container(key=f"compared_{result.mode.value}_answer").markdown(
                    fmt.markdown_text(result.answer or "") or NO_TEXT)
            render_how_made(result.mode.value, result.trace)


def render_how_made(mode: str, trace) -> None:
    """The mode's model calls by the part each plays: drafts, levels, per-passage answers."""
    with st.expander("How this answer was made"):
        st.caption(how_made.made_summary(mode, trace))
        if gate := how_made.gate_note(trace):
            st.caption(gate)
        for step in how_made.made_steps(trace):
            st.markdown(f"**{step.title}**")
            st.text(step.reply.strip() or "(empty reply)")
            st.caption("Its prompt")
            st.code(step.prompt, language=None, wrap_lines=True, height=160)


def compare_retrievers(name: str, question: str, options: QueryOptions, names: list[str],
                       mode: str) -> None:
    index = state.load_index(name)
    state.ensure_embedder_loaded(index.embedder)
    llm = state.current_llm()
    engines = {n: engine_for(index, QueryOptions(**{**options_fields(options), "retriever": n}),
                             llm, mode) for n in names}
    bar = st.progress(0.0, text="Asking each retriever…")
    results = []
    for result in iter_compare_retrievers(question, engines):
        results.append(result)
        bar.progress(len(results) / len(names),
                     text=f"{CHOICES[result.name].label} done ({len(results)} of {len(names)})")
    session.query_compare_retrievers = {
        "question": question, "mode": mode, "results": results,
        "ranked_with": ranked_with(index.embed_model_name, options.retrieval_mode)}


def options_fields(options: QueryOptions) -> dict:
    fields = {k: getattr(options, k) for k in QueryOptions.__dataclass_fields__}
    fields.pop("extra")
    return fields


def retriever_compare_tab(name: str, question: str, choices: dict) -> None:
    st.write("Ask the same question with several retrievers and compare the passages each "
             "finds (with their scores) and the answers made from them.")
    names, _ = offered(state.current_llm(), choices.get("cross_encoder", ""))
    default = [n for n in ("standard", "auto_merging", "sentence_window") if n in names]
    picked = st.multiselect("Retrievers to compare", names, default=default,
                            format_func=lambda n: CHOICES[n].label)
    mode = st.selectbox("Response mode for the answers", MODES, index=MODES.index("compact"),
                        key="retriever_compare_mode")
    if st.button("Compare retrievers", disabled=not question.strip() or not picked,
                 key=Widget.COMPARE_RETRIEVERS_BUTTON):
        options = options_from(choices)
        if options is not None:
            with shell.friendly_errors():
                compare_retrievers(name, question, options, picked, mode)
    compared = session.query_compare_retrievers
    if compared:
        render_retriever_comparison(compared)


def made_offline(results: list) -> bool:
    """True when the extractive backend made every answer (so the modes could not differ)."""
    work = [trace_view.work_metrics(r.trace) for r in results if not r.error]
    return any("Extractive steps" in w for w in work) and not any(w.get("LLM calls") for w in work)


def entered(question: str) -> bool:
    """True once after Enter in the question box (not when a Compare button took the focus)."""
    if not session.take(Session.query_entered) or not question.strip():
        return False
    return not any(session.widget(key) for key in (Widget.COMPARE_MODES_BUTTON,
                                                   Widget.COMPARE_RETRIEVERS_BUTTON))


def compare_tab(name: str, question: str, choices: dict) -> None:
    st.write("Run the same question through several response modes over the same retrieved "
             "passages, and compare answers, the work each took, and time.")
    if fmt.is_extractive(state.current_llm()) and not session.query_compare:
        st.caption(OFFLINE_COMPARE)
    if CHOICES[choices.get("retriever", "standard")].answers:
        st.caption("The router and sub-questions answer in their own way: modes are compared "
                   "over the standard retriever's passages.")
    modes = st.multiselect("Modes to compare", MODES,
                           default=["compact", "refine", "tree_summarize", "accumulate"])
    if st.button("Compare", disabled=not question.strip() or not modes,
                 key=Widget.COMPARE_MODES_BUTTON):
        options = options_from(choices)
        if options is not None:
            with shell.friendly_errors():
                compare(name, question, options, modes)
    compared = session.query_compare
    if compared:
        render_comparison(compared)


def main() -> None:
    shell.page_setup()
    st.title("Ask your documents")
    names = state.index_names()
    if not names:
        shell.no_index_yet(
            "There is no index yet. Upload documents first; then come back to ask questions.")
        return
    with st.sidebar:
        name = st.selectbox("Index", names, index=names.index(state.selected_index(names)),
                            format_func=shown_name(state.workspace()))
        state.select_index(name)
        advanced = advanced_toggle()
        choices = retrieval_choices() if advanced else dict(SIMPLE_CHOICES)
    question = st.text_input("Your question", placeholder="e.g. What is zero trust?",
                             key=Widget.QUERY_QUESTION, on_change=_entered)
    if not advanced:  # the caption below the answer drawn first: never left greyed under it
        answer, _ = st.container(), st.caption(
            "Open **Advanced** in the sidebar to choose how answers are made, compare the "
            "modes side by side and see each answer's trace.")
        with answer:
            answer_tab(name, question, choices, advanced)
        return
    answers, comparison, retrievers, evaluation = st.tabs(
        ["Answer", "Compare modes", "Compare retrievers", "Evaluate"])
    with answers:
        answer_tab(name, question, choices, advanced)
    with comparison:
        compare_tab(name, question, choices)
    with retrievers:
        retriever_compare_tab(name, question, choices)
    with evaluation:
        evaluate_tab(name)


def _entered() -> None:
    session.query_entered = True


with shell.friendly_errors():
    main()
