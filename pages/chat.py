"""Chat: a conversation about an index in a chosen chat mode; chats are saved and reopened."""

import streamlit as st

from ragcore import app_format, appstate, trace_view
from ragcore.chat import CHAT_MODE_DESCRIPTIONS, ChatMode, chat_engine_from_index
from ragcore.chat_turns import clear_chat, memory_for_chat, record_turn, start_chat
from ragcore.chats import export_json, export_markdown
from ragcore.citations import passage_segments, segments_to_html
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

QUEUED_KEY = "queued_question"
MODES = [m.value for m in ChatMode]


def main() -> None:
    appstate.sidebar_status()
    st.title("Chat with your documents")
    ws = appstate.workspace()
    names = ws.index_names()
    if not names:
        st.info("There is no index yet. Upload documents first; then come back to chat about them.")
        st.page_link("pages/upload.py", label="Upload documents", icon=":material/upload_file:")
        st.stop()

    appstate.restore_chat(ws)
    chat = appstate.open_chat()


    def new_chat(index_name: str) -> None:
        mode = st.session_state.get("chat_mode_choice", ChatMode.CONDENSE_PLUS_CONTEXT.value)
        fresh = start_chat(index_name, mode, llm_label="", settings={})
        appstate.set_open_chat(fresh, None)
        appstate.select_index(index_name)
        st.query_params.pop("chat", None)


    def open_chat_by_id(chat_id: str) -> None:
        appstate.open_saved_chat(ws.load_chat(chat_id))


    def queue_retry() -> None:
        failed = st.session_state.pop(appstate.FAILED_KEY, None)
        if failed:
            st.session_state[QUEUED_KEY] = failed["question"]


    def discard_failed() -> None:
        st.session_state.pop(appstate.FAILED_KEY, None)


    def clear_open_chat() -> None:
        current = appstate.open_chat()
        clear_chat(current)
        if any(c.id == current.id for c in ws.list_chats()):
            ws.save_chat(current)
        appstate.set_open_chat(current, None)


    if chat is None or chat.index not in names:
        if chat is not None:
            st.warning(f"The index “{chat.index}” of this chat no longer exists: starting a new chat.")
        new_chat(appstate.selected_index(names))
        chat = appstate.open_chat()

    with st.sidebar:
        picked = st.selectbox("Index", names, index=names.index(chat.index))
        if picked != chat.index:
            new_chat(picked)
            chat = appstate.open_chat()
        st.session_state.setdefault("chat_mode_choice", chat.chat_mode)
        if st.session_state["chat_mode_choice"] not in MODES:
            st.session_state["chat_mode_choice"] = ChatMode.CONDENSE_PLUS_CONTEXT.value
        mode = st.selectbox("Chat mode", MODES, key="chat_mode_choice")
        st.caption(CHAT_MODE_DESCRIPTIONS[ChatMode(mode)])
        top_k = st.slider("Passages to retrieve (top-k)", 1, 20, 4, key="chat_top_k")
        cols = st.columns(2)
        cols[0].button("New chat", on_click=new_chat, args=(chat.index,), width="stretch")
        cols[1].button("Clear", on_click=clear_open_chat, width="stretch",
                       disabled=not chat.messages)
        if chat.messages:
            st.download_button("Export as Markdown", export_markdown(chat),
                               file_name=f"chat-{chat.id}.md", mime="text/markdown")
            st.download_button("Export as JSON", export_json(chat),
                               file_name=f"chat-{chat.id}.json", mime="application/json")
        saved = ws.list_chats()
        if saved:
            st.subheader("Saved chats")
            for summary in saved[:30]:
                st.button(
                    f"{'▶ ' if summary.id == chat.id else ''}{summary.title}",
                    key=f"open_{summary.id}", on_click=open_chat_by_id, args=(summary.id,),
                    help=f"{summary.index} · {summary.chat_mode} · {summary.messages} messages · "
                         f"{summary.updated}",
                    width="stretch",
                )


    def render_sources(message, index) -> None:
        if not message.sources:
            return
        lookup = appstate.node_lookup(index) if index is not None else (lambda _id: None)
        with st.expander(f"Sources ({len(message.sources)})"):
            for number, source in enumerate(message.sources, 1):
                node = (lookup(source.node_id) if source.node_id else None) or Node(
                    source.text, ref_doc_id=source.doc_id, metadata={"file_name": source.file_name})
                scored = ScoredNode(node, source.score)
                st.markdown(f"**{app_format.source_label(number, scored)}**")
                st.html(segments_to_html(passage_segments(node, message.content, lookup=lookup)))


    def render_details(message) -> None:
        details = trace_view.turn_details(message.trace)
        totals = trace_view.totals(message.trace)
        mode_used = (message.trace or {}).get("chat_mode", "")
        with st.expander("How this answer was made"):
            st.caption(
                f"Chat mode {mode_used or '?'} · {totals['llm_calls']} LLM call(s) · "
                f"{totals['tokens_in']} tokens in, {totals['tokens_out']} out · "
                f"{totals['seconds']:.2f} s"
            )
            if "condensed_question" in details:
                st.markdown("**Standalone question used for the search**")
                st.text(details["condensed_question"])
            elif "condense_skipped" in details:
                st.caption(f"Question not rewritten: {details['condense_skipped']}.")
            for number, step in enumerate(details.get("reasoning", []), 1):
                st.text(trace_view.format_step(number, step))
            if "stopped" in details:
                st.warning(f"The agent stopped early: {details['stopped']}.")
            st.dataframe(trace_view.stage_rows(message.trace), hide_index=True, width="stretch")


    def render_message(message, index) -> None:
        with st.chat_message(message.role):
            st.markdown(app_format.markdown_text(message.content))
            if message.role == "assistant":
                render_sources(message, index)
                render_details(message)


    def chat_settings(llm_label: str, index) -> dict:
        return {"chat_mode": mode, "similarity_top_k": int(top_k), "llm": llm_label,
                "embed_model": index.embed_model_name}


    def run_turn(question: str) -> None:
        index = appstate.load_index(chat.index)
        appstate.ensure_embedder_loaded(index.embedder)
        llm = appstate.current_llm()
        memory = appstate.chat_memory() or memory_for_chat(chat, llm)
        appstate.set_open_chat(chat, memory)
        with st.chat_message("user"):
            st.markdown(app_format.markdown_text(question))
        with st.chat_message("assistant"):
            try:
                engine = chat_engine_from_index(index, chat_mode=mode, llm=llm,
                                                similarity_top_k=int(top_k))
                response = engine.chat(question, memory, trace=Trace())
                st.write_stream(app_format.markdown_stream(response))
            except Exception as exc:  # noqa: BLE001 - shown with a retry; history stays intact
                appstate.set_open_chat(chat, memory_for_chat(chat, llm))
                st.session_state[appstate.FAILED_KEY] = {"question": question, "error": exc}
                st.rerun()
        label = app_format.describe_backend(llm)
        record_turn(chat, question, response, chat_mode=mode, llm_label=label,
                    settings=chat_settings(label, index))
        ws.save_chat(chat)
        st.query_params["chat"] = chat.id
        st.rerun()


    index_for_display = appstate.load_index(chat.index)
    st.caption(f"Index **{chat.index}** · {chat.title or 'new chat'}")
    if not chat.messages and appstate.FAILED_KEY not in st.session_state:
        st.info("Ask a question about the documents of this index below. Follow-up questions work "
                "too: the chat remembers the conversation.")
    for message in chat.messages:
        render_message(message, index_for_display)

    failed = st.session_state.get(appstate.FAILED_KEY)
    if failed:
        with st.chat_message("user"):
            st.markdown(app_format.markdown_text(failed["question"]))
        st.markdown("**The answer could not be made.** Your conversation is kept.")
        appstate.show_error(failed["error"])
        cols = st.columns([1, 1, 4])
        cols[0].button("Retry", on_click=queue_retry, type="primary")
        cols[1].button("Discard", on_click=discard_failed)

    prompt = st.chat_input("Ask about your documents")
    question = prompt or st.session_state.pop(QUEUED_KEY, None)
    if question:
        st.session_state.pop(appstate.FAILED_KEY, None)
        with appstate.friendly_errors():
            run_turn(question)


with appstate.friendly_errors():
    main()
