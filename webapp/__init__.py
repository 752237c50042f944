"""The Streamlit app's support code, beside ``app.py`` and ``pages/`` (not part of the library).

    shell.py          the frame every page shares: navigation, sidebar status, readable errors
    state.py          one session's workspace, settings, LLM, indexes and open chat; cached
                      objects keyed by what defines them (a loaded index by its revision)
    query_options.py  the Query page's choices, validated and turned into pipeline parts
    chat_turns.py     a saved turn as the pages show it (score, search mode, route, passage);
                      the turn itself runs in ragcore.workspace.conversation
    session.py        the typed session-state accessor: every key named once, with its type
    evaluate_view.py  the Evaluate tab: a question set, modes x retrievers, the background run
    evaluate_results.py  a saved evaluation: leaderboard, chart, one question drilled into, exports
    pictures.py       an index's corpus pictures, drawn off the page's thread once per version
    sign_in.py        team mode's gate (set-up, sign-in), account menu; sign_in_oidc.py the
                      identity provider's; session_cookie.py the cookie that keeps a sign-in
    team_state.py     who this session is, and the policy calls every page makes through it

``pages/`` only render and collect input; the behaviour lives here and in ragcore. How things
are worded (labels, errors, citations, trace tables, corpus pictures) is UI-neutral and lives in
``ragcore.present``, shared with the CLI. Only this package and the pages import Streamlit;
nothing in ``ragcore`` imports this package, so ``import ragcore`` never loads Streamlit.
Import the modules you need directly.
"""
