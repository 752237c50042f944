"""The Streamlit app's support logic: everything the pages need that is not drawing widgets.

    shell.py          the frame every page shares: navigation, sidebar status, readable errors
    state.py          one session's workspace, settings, LLM, indexes and open chat; cached objects
    format.py         how the app words things: backend and source labels, sizes, ingest tables
    explain.py        errors in plain words, with the next step a user can take
    query_options.py  the Query page's choices, validated and turned into pipeline parts
    chat_turns.py     a chat turn: memory rebuilt from a saved chat, the reply, the turn recorded
    citations.py      a source passage in its surrounding text, with the cited sentences marked
    corpus_map.py     pictures of an index: token lengths, document sizes, a 2-D embedding map
    trace_view.py     a trace as table rows and reasoning, live or from a saved chat

``pages/`` only render and collect input; the behaviour lives here and in the rest of ragcore.
Only ``shell`` and ``state`` import Streamlit, and nothing outside this package imports them,
so ``import ragcore`` never loads Streamlit. Import the modules you need directly.
"""
