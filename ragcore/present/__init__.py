"""How ragcore words things for people, shared by the CLI and the app (no Streamlit here).

    format.py      backend and source labels, sizes, ingest tables, safe Markdown streaming
    quotes.py      where an answer quotes a passage word for word (and sentence spans)
    support.py     what an answer used of each passage: quotes, or sentences supporting it
    sources.py     which sources are listed: a relevance floor per retrieval mode
    citations.py   a source passage in its surrounding text, the parts the answer used marked
    explain.py     errors in plain words, with the next step a user can take
    trace_view.py  a trace as table rows and reasoning, live or from a saved chat
    how_made.py    a response mode's calls by their part: drafts, levels, per-passage answers
    corpus_map.py  pictures of an index: token lengths, document sizes, a 2-D embedding map
    leaderboard.py an evaluation's leaderboard table, its bar chart with intervals, drill-down
    passage/       a passage as people read it: Markdown and reST rendered, PDF lines
                   reflowed, cited parts marked, its boxes on the PDF page

Pure functions over ragcore objects, tested like the rest of the library. The Streamlit side
(session state, cached objects, the page frame) is the ``webapp`` package beside ``app.py``;
nothing here imports it or Streamlit.
"""
