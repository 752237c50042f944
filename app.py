"""ragcore's web app: upload documents, manage indexes, query, chat, settings.

Run with `make run` (that is `streamlit run app.py`). This file only sets up the navigation
(the page list is ``webapp.shell.PAGES``); each page lives in pages/ and every behaviour
in the ragcore package.
"""

from webapp.shell import friendly_errors, navigation
from webapp.state import warm_up_embedder

page = navigation()
with friendly_errors():  # an error on any page is shown in plain words, never as a traceback
    page.run()
warm_up_embedder()  # after the page is on screen, so the first view is not slowed
