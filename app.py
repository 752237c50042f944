"""ragcore's web app: upload documents, manage indexes, query, chat, settings.

Run with `make run` (that is `streamlit run app.py`). This file only sets up the page and the
navigation; each page lives in pages/ and every behaviour in the ragcore package.
"""

import streamlit as st

from ragcore.appstate import friendly_errors, warm_up_embedder

st.set_page_config(
    page_title="ragcore · chat with your documents",
    page_icon="📚",
    layout="wide",
    initial_sidebar_state="expanded",
)

PAGES = [
    st.Page("pages/home.py", title="Start", icon=":material/home:", url_path="start", default=True),
    st.Page("pages/upload.py", title="Upload", icon=":material/upload_file:", url_path="upload"),
    st.Page("pages/indexes.py", title="Indexes", icon=":material/folder_open:", url_path="indexes"),
    st.Page("pages/query.py", title="Query", icon=":material/search:", url_path="query"),
    st.Page("pages/chat.py", title="Chat", icon=":material/chat:", url_path="chat"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:", url_path="settings"),
]

page = st.navigation(PAGES)
with friendly_errors():  # an error on any page is shown in plain words, never as a traceback
    page.run()
warm_up_embedder()  # after the page is on screen, so the first view is not slowed
