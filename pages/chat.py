"""Chat: a conversation about an index in a chosen chat mode (and, under Advanced, with a chosen
retriever); chats are saved and reopened."""

import streamlit as st

from ragcore.present import format as fmt, friendly_date, trace_view
from ragcore.workspace.names import display_name
from webapp import shell, state
from webapp.chat.chat_elsewhere import chat_elsewhere
from webapp.team import team_state
from webapp.settings.advanced import advanced_toggle
from webapp.chat import chat_controls as controls
from webapp.chat.chat_files import drop_files, drops_at, indexing, render_drop
from webapp.chat.chat_scope import file_names, scope_select, scoped
from webapp.indexes.index_names import shown_name
from webapp.answers.citing import draw_sources, marked_listing
from webapp.chat.chat_turns import (asked_before, checked_against, people_caption,
                                    route_caption, source_passage, sourceless_reply,
                                    turn_retrieval_mode, turn_score)
from ragcore.chat import ChatMode, refers_back
from ragcore.engines import index_words
from webapp.chat.chat_actions import chat_actions, new_chat
from webapp.chat.chat_modes import DEFAULT_MODE, mode_caption, mode_name, mode_select
from webapp.answers.retriever_view import TOP_K_HELP, render_notes, retriever_select
from webapp.session import Session, Widget, session
from webapp.waiting import waiting_notice
from webapp.chat.browser_actions import bring_into_view
from webapp.chat import kept_judge, summary_view, turn_view
from ragcore.workspace.conversation import Conversation, TurnSettings
from ragcore.workspace.chats import ChatMessage

MODES = [m.value for m in ChatMode]
DEFAULT_SEARCH, DEFAULT_TOP_K = "hybrid", 4
AGENT_MODES = (ChatMode.REACT.value, ChatMode.BEST.value)  # they search with tools, step by step
REWRITING_MODES = (ChatMode.CONDENSE_QUESTION.value, ChatMode.CONDENSE_PLUS_CONTEXT.value)


# -- callbacks (run before the page, on a button press) --------------------------------------


def queue_retry() -> None:
    failed = session.take(Session.failed_turn)
    if failed:
        session.queued_question, session.queued_at = failed["question"], failed.get("at")


def discard_failed() -> None:
    del session.failed_turn


# -- rendering -------------------------------------------------------------------------------


def sidebar(chat, advanced: bool) -> dict:
    """The chat mode (named for people); how to search and top-k under Advanced (defaults
    otherwise); the choices."""
    if session.widget(Widget.CHAT_MODE) not in MODES:
        session.preset(Widget.CHAT_MODE, chat.chat_mode if chat.chat_mode in MODES
                       else DEFAULT_MODE)
    mode = mode_select(session.widget(Widget.CHAT_MODE), advanced=advanced, key=Widget.CHAT_MODE)
    if not advanced:
        return {"mode": mode, "top_k": DEFAULT_TOP_K,
                "retrieval_mode": session.widget(Widget.CHAT_SEARCH_BY, DEFAULT_SEARCH),
                "retriever": "standard", "cross_encoder": ""}
    retrieval_mode = shell.search_by(key=Widget.CHAT_SEARCH_BY)
    top_k = st.slider("Passages to retrieve (top-k)", 1, 20, DEFAULT_TOP_K, key="chat_top_k",
                      help=TOP_K_HELP)
    picked = retriever_select(state.current_llm(), page="chat", answers=False)
    return {"mode": mode, "top_k": int(top_k), "retrieval_mode": retrieval_mode, **picked}


def marked_reply(message, lookup, *, embedder, key: str, question: str = "", judge=None,
                 held=None):
    """The reply's text with [1] [2] markers after the sentences its sources support, and the
    listing of those sources numbered to match (None for a reply without sources); with the
    ``question`` it was asked, the text follows ragcore's grounding verdict as the engines
    check it (``judge``: the LLM asked whether a passage states the first claim; ``held``: the
    index's words, ``engines.index_words``)."""
    text = message.content
    if not message.sources:  # a reply that read no passage says so first
        return sourceless_reply(text, message.trace), None
    return marked_listing(
        text, [source_passage(s, lookup) for s in message.sources],
        trace=message.trace, retrieval_mode=turn_retrieval_mode(message), embedder=embedder,
        anchors=key, question=question, judge=judge, held=held,
    )


def render_sources(message, listing, lookup, *, index_name: str, key: str,
                   advanced: bool) -> None:
    if listing is None:
        return
    st.caption(f"Sources ({listing.total})")
    draw_sources(listing, lookup, index_name, anchors=key,
                 retrieval_mode=turn_retrieval_mode(message), advanced=advanced,
                 toggle_key=f"more_sources_{key}", expand_first=False)


def render_details(message) -> None:
    details = trace_view.turn_details(message.trace)
    with st.expander("How this answer was made"):
        st.caption(f"Chat mode {(message.trace or {}).get('chat_mode', '?')} · "
                   f"{trace_view.work_summary(message.trace)}")
        if turn_score(message):
            st.markdown(turn_score(message))
        if "condense_skipped" in details:  # searched as asked
            st.caption(f"Question not rewritten: {details['condense_skipped']}.")
        elif "condensed_question" in details:
            st.markdown("**Standalone question used for the search**")
            st.text(details["condensed_question"])
        for number, step in enumerate(details.get("reasoning", []), 1):
            st.text(trace_view.format_step(number, step))
        if "stopped" in details:
            st.warning(f"The agent stopped early: {details['stopped']}.")
        for notice in details.get("notices", []):
            st.info(notice)
        st.dataframe(trace_view.stage_rows(message.trace), hide_index=True, width="stretch")
        render_notes(message.trace)


def render_reply_extras(message, listing, lookup, *, index_name: str, key: str,
                        advanced: bool) -> None:
    """Under an answer: its sources; (Advanced) where it was routed and how it was made."""
    routed = route_caption(message.trace) if advanced else people_caption(message.trace)
    if routed:
        st.caption(routed)
    render_sources(message, listing, lookup, index_name=index_name, key=key, advanced=advanced)
    if advanced:
        render_details(message)
        return
    for notice in trace_view.turn_details(message.trace).get("notices", []):
        st.info(notice)  # what went unusually (an empty reply ...) matters in the simple view too


def render_history(chat, lookup, embedder, advanced: bool, upto: int | None = None,
                   held=None):
    """The conversation (before ``upto``: a question asked again there): questions (with Edit),
    replies (with Copy, Regenerate), versions, dropped files; the last reply's slots of
    Regenerate and Write a fresh summary (none: no reply). It keeps them while a new question
    is answered, drawn as in the run before (else they stay there greyed) until that answer's
    reply takes them over."""
    shown = chat.messages if upto is None else chat.messages[:upto]
    last, regenerate = len(shown) - 1, []
    for number, message in enumerate(shown):
        for drop in drops_at(chat, number):
            render_drop(drop)
        with st.chat_message(message.role):
            if message.role != "assistant":
                controls.render_question(message, number, chat)
                continue
            text, listing = marked_reply(message, lookup, embedder=embedder,
                                         key=f"{chat.id}_{number}",
                                         question=checked_against(chat, number), held=held,
                                         judge=kept_judge.kept_judge(message))
            with turn_view.reply_body(number):  # as a reply just made is drawn
                regenerate = draw_reply(chat, number, message, text, listing, lookup,
                                        advanced=advanced, last=number == last)
    for drop in drops_at(chat, len(shown)):
        render_drop(drop)
    return regenerate


def draw_reply(chat, number: int, message, text: str, listing, lookup, *, advanced: bool,
               last: bool):
    """A reply as shown, in the history and just made alike: its checked ``text`` with its
    notes, what is under it, Copy (and when ``last``, Write a fresh summary under a kept
    summary and Regenerate: their slots are returned)."""
    key = f"{chat.id}_{number}"
    turn_view.saved_steps(message.trace)  # an agent's, folded above its answer
    controls.render_reply(message, text=text)
    written = mode_caption(chat, message)
    if written:  # replies of several modes in one chat: which one wrote this
        st.caption(written)
    render_reply_extras(message, listing, lookup, index_name=chat.index, key=key,
                        advanced=advanced)
    offer = summary_view.offer_fresh(message, key, shown=last)
    again = controls.reply_actions(message, number, last=last, shown=text, listing=listing,
                                   chat=chat)
    return [slot for slot in (offer, again) if slot is not None]


def ask_again_offer(chat, mode: str) -> None:
    """Under a reply made in another chat mode than the one chosen now: its question asked
    again in the chosen mode, the two answers one under the other to compare."""
    last = chat.messages[-1] if chat.messages else None
    made_in = ((last.trace or {}).get("chat_mode") if last and last.role == "assistant"
               else None)
    if not made_in or made_in == mode:
        return
    question = asked_before(chat, len(chat.messages) - 1)
    st.button(f"Ask again with “{mode_name(mode)}” to compare", icon=":material/compare_arrows:",
              on_click=queue_question, args=(question,), key=f"ask_again_{chat.id}")


def queue_question(question: str) -> None:
    session.queued_question = question


def render_failure(failed: dict) -> None:
    with st.chat_message("user"):
        st.markdown(fmt.markdown_text(failed["question"]))
    st.markdown("**The answer could not be made.** Your conversation is kept.")
    shell.show_error(failed["error"])
    cols = st.columns([1, 1, 4])
    cols[0].button("Retry", on_click=queue_retry, type="primary")
    cols[1].button("Discard", on_click=discard_failed)


def run_turn(ws, chat, question: str, choices: dict, lookup, advanced: bool,
             regenerate=None, at: int | None = None) -> None:
    """The passages it reads, its draft and its check as they come, then the checked reply,
    saved (taking over Regenerate from the reply before: ``regenerate``, its slots; ``at``: a
    question asked again there, its reply the newest version); or the history kept and a retry
    offered."""
    with st.chat_message("user"):  # with Edit at once: the question's place once recorded
        # A block where an edit box was drawn (Edit, Send): none of it stays on screen greyed
        # while the reply is made (Streamlit keeps a same-type element until the run ends).
        asked = st.container(key="asked_question")
        with asked:
            versions = controls.render_question(ChatMessage("user", question),
                                                len(chat.messages) if at is None else at)
        bring_into_view()  # asked while scrolled up: the question and its reply in view
    settings = turn_settings(choices)
    with st.chat_message("assistant"):  # at once: Stop, and that the search began
        turn = turn_view.open_live_turn(
            follow_up=bool(chat.messages) and settings.chat_mode in REWRITING_MODES
            and bool(refers_back(question)))  # only a follow-up is rewritten first
    kept = controls.begin_reply(chat, question, settings.to_dict(), at)
    index, llm = state.load_index(chat.index), state.current_llm()
    state.ensure_embedder_loaded(index.embedder)
    talk = Conversation(ws, chat, index, llm, memory=state.chat_memory())
    state.set_open_chat(chat, talk.memory)
    marks = turn_marks(chat, index, settings.files)

    def record_and_check(text: str):
        """The whole reply recorded and saved, then checked against its passages (the model
        judges its first claim once, ~1-4 s; the checked text is cached for later runs)."""
        message = talk.record(question, response, settings, marks=marks, title=False, at=at)
        team_state.save_chat(ws, chat)
        controls.stream_finished()
        number, judge = len(chat.messages) - 1, kept_judge.recording(llm)
        checked = marked_reply(message, lookup, embedder=index.embedder,  # the history's check
                               key=f"{chat.id}_{number}", question=checked_against(chat, number),
                               judge=judge, held=index_words(index))
        if kept_judge.keep(message, judge):  # reopened, the reply reads as it did now
            team_state.save_chat(ws, chat)
        return message, checked

    try:
        with turn.notice, waiting_notice():  # its place in line while the model answers others
            response = talk.ask(question, settings, search=scoped(index, list(settings.files)),
                                trace=None if settings.chat_mode in AGENT_MODES
                                else turn_view.found_trace(turn, settings.similarity_top_k),
                                at=at)
            if summary_view.is_summary(response):  # at once, or part by part: no check
                checked = summary_view.follow_summary(
                    turn, response, controls.kept_stream(kept, response), check=record_and_check)
            else:
                checked = turn_view.follow_reply(
                    turn, response, controls.kept_stream(kept, response),
                    agent=settings.chat_mode in AGENT_MODES, llm=llm, check=record_and_check)
    except Exception as exc:  # noqa: BLE001 - shown with a retry; history stays intact
        offer_retry(talk, question, exc, at)
    message, (text, listing) = checked.result
    for slot in regenerate or ():
        slot.empty()
    show_recorded(chat, message, text, listing, turn, lookup, advanced)
    if talk.to_title:  # named once its reply is on screen (a first, or an edited first)
        with waiting_notice():
            talk.title_chat(question, message.content)
        team_state.save_chat(ws, chat)
    if at is not None and versions is not None:  # an edited question's "< 2/2 >", above
        # Drawn here, not by the history in a rerun: a rerun drops what this run drew last
        # and the browser had not yet received (the live turn's emptying), so the passages
        # stayed on screen, greyed, until the new run reached them.
        with asked:
            controls.question_versions(chat, at, versions)


def offer_retry(talk, question: str, exc: Exception, at: int | None = None) -> None:
    """After a failed turn: the chat as it was, the error and Retry shown on the next run."""
    controls.stream_finished()
    talk.forget_unrecorded()
    state.set_open_chat(talk.chat, talk.memory)
    session.failed_turn = {"question": question, "error": exc, "at": at}
    st.rerun()


def turn_settings(choices: dict) -> TurnSettings:
    return TurnSettings(chat_mode=choices["mode"], similarity_top_k=choices["top_k"],
                        retrieval_mode=choices["retrieval_mode"], retriever=choices["retriever"],
                        cross_encoder=choices["cross_encoder"],
                        files=tuple(choices.get("files", ())))


def turn_marks(chat, index, files) -> dict:
    """What a reply notes of the page: files still being indexed, the only files it used."""
    marks = {controls.INDEXING_MARK: True} if indexing(chat) else {}
    if files:
        marks[controls.SCOPE_MARK] = [file_names(index)[key] for key in files]
    return marks


def show_recorded(chat, message, text: str, listing, turn, lookup, advanced: bool) -> None:
    """The checked reply in place of everything shown while it was made, drawn as the
    history draws it, so the next run leaves nothing of this one greyed on screen."""
    turn_view.end_live_turn(turn)
    number = len(chat.messages) - 1
    with turn_view.reply_body(number, turn.body):
        draw_reply(chat, number, message, text, listing, lookup, advanced=advanced, last=True)
    # An element in the live turn's place, never a block: Streamlit sends only the last of two
    # deltas queued for one place, and a block drawn over the live turn's block keeps its
    # children (the passages, the draft) on screen under the checked reply.
    with turn.live:
        shell.fallback_note()
    st.query_params["chat"] = chat.id


def chat_caption(chat) -> str:
    when = f" · {friendly_date(chat.updated)}" if chat.messages else ""
    shown = fmt.markdown_text(display_name(state.workspace(), chat.index))
    return f"Index **{shown}** · {chat.title or 'new chat'}{when}"


def current_chat(ws, names: list[str]):
    """The open chat (restored after a refresh), on an index that still exists."""
    state.restore_chat(ws)
    chat = state.open_chat()
    if chat is not None and chat.index not in names:
        st.warning("The index of the last chat no longer exists: starting a new chat.")
        chat = None
    if chat is None:
        new_chat(state.selected_index(names))
    return state.open_chat()


def main() -> None:
    shell.page_setup()
    st.title("Chat with your documents")
    ws = state.workspace()
    names = state.index_names()  # those this person may see
    if not names:
        state.restore_chat(ws)  # a ?chat= link still gets its answer (the policy's refusal)
        shell.no_index_yet("There is no index yet. Upload documents first; then come back to chat.")
        return
    controls.keep_stopped_reply(ws)  # a reply stopped in the last run stays, marked
    chat = current_chat(ws, names)
    if chat_elsewhere(ws):  # a chat open in another tab, shown here read-only instead
        return
    with st.sidebar:
        picked = st.selectbox("Index", names, index=names.index(chat.index),
                              format_func=shown_name(ws))
        if picked != chat.index:
            new_chat(picked)
            chat = state.open_chat()
        advanced = advanced_toggle()
        choices = sidebar(chat, advanced)
        choices["files"] = scope_select(ws, chat, state.load_index(chat.index))
        later = st.container()  # filled last, so a chat saved in this run is listed
    intro = st.empty()  # rewritten once a first answer has given the chat its title
    failed = session.failed_turn
    with intro.container():
        st.caption(chat_caption(chat))
        shell.looking_notice()  # the model is looked for behind the page
        alone = choices["mode"] == ChatMode.SIMPLE.value  # the model alone: nothing searched
        if not chat.messages and not failed:
            st.info("In this mode the model answers alone: your documents are not searched. "
                    "Choose another mode in the sidebar to ask about them." if alone else
                    "Ask a question about the documents of this index below, or ask for a "
                    "summary (“summarise the index”, “summarise <a file's name>”). Follow-up "
                    "questions work too: the chat remembers the conversation. Drop files on "
                    "the box below to add them to this index; choose **Documents to use** in "
                    "the sidebar to answer from some files only.")
    index = state.load_index(chat.index)
    lookup = state.node_lookup(index)
    prompt = st.chat_input("Ask the model (your documents are not searched)" if alone else
                           "Ask about your documents, or drop files to add them",
                           accept_file="multiple")  # drawn at the page's foot wherever called
    question = (prompt.text if prompt else "") or session.take(Session.queued_question)
    queued_at = session.take(Session.queued_at)
    at = None if prompt and prompt.text else queued_at  # typed: a new question, at the end
    if prompt and prompt.files:
        drop_files(ws, chat, prompt.files)  # shown in place by render_history
    regenerate = render_history(chat, lookup, index.embedder, advanced,
                                upto=at if question else None, held=index_words(index))
    if not question and not failed:
        ask_again_offer(chat, choices["mode"])
    if failed:
        render_failure(failed)
    if question:
        del session.failed_turn
        run_turn(ws, chat, question, choices, lookup, advanced, regenerate, at)
        intro.caption(chat_caption(chat))
    with later:
        chat_actions(ws, chat)


with shell.friendly_errors():
    main()
