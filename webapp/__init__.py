"""The Streamlit app's support code, beside ``app.py`` and ``pages/`` (not part of the library).

    shell.py          the frame every page shares: navigation, sidebar status, readable errors
    state.py          one session's workspace, settings, LLM, indexes and open chat; cached
                      objects keyed by what defines them (a loaded index by its revision)
    session.py        the typed session-state accessor: every key named once, with its type
    preferences.py    what the workspace remembers of the app's choices between runs
    query_options.py  the Query page's choices, validated and turned into pipeline parts
    waiting.py        the place in line shown while an answer waits for the shared model
    launch.py         ``make run``: a free port, the app started, where it is and how to stop it

    chat/             the Chat page's parts; chat_turns.py a saved turn as the pages show it
                      (the turn itself runs in ragcore.workspace.conversation)
    answers/          cited sources, the retriever choice, the Evaluate tab and its results
    indexes/          documents, chunks, names, sharing, stores, summaries, pictures, jobs
    settings/         backend forms, model set-up, packaged models, the "Advanced" switch
    team/             team mode's gate (sign_in, sign_in_oidc, session_cookie), the admins'
                      panels, and team_state: who this session is, and the policy calls

The wings import downwards only (pyproject.toml's ``[tool.importlinter]``, the "webapp" contract):
chat, answers, settings above shell, above indexes, above state, above team, above session,
preferences, query_options and waiting.

``pages/`` only render and collect input; the behaviour lives here and in ragcore. How things
are worded (labels, errors, citations, trace tables, corpus pictures) is UI-neutral and lives in
``ragcore.present``, shared with the CLI. Only this package and the pages import Streamlit;
nothing in ``ragcore`` imports this package, so ``import ragcore`` never loads Streamlit.
Import the modules you need directly.
"""
