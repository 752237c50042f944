"""What the Chat page does in the browser itself: copy a reply in one click, and bring a
question just asked into view.

Both are small scripts run by ``st.html`` in the page (not in an iframe). Copy is a plain HTML
button: the clipboard may only be written in the click's own event, which a Streamlit button's
round trip to the server would lose. ``bring_into_view`` scrolls the new question to the top of
the window, so pressing Enter while scrolled up shows the question and its reply as it comes.
"""

from __future__ import annotations

import html
import json
import time

import streamlit as st

COPIED_LABEL = "Copied"
# One listener for every Copy button of the page: the text is the button's data-copy. Where
# the Clipboard API is missing (a page served over plain http to another machine), a hidden
# text area and execCommand("copy") do it.
_COPY_CLICKS = """<script>
(() => {
  if (window.rcCopyClicks) return;
  window.rcCopyClicks = true;
  const fallback = (text) => {
    const area = document.createElement("textarea");
    area.value = text;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button.rc-copy");
    if (!button) return;
    const text = button.dataset.copy;
    const done = () => {
      const label = button.querySelector(".rc-copy-label");
      label.textContent = %(copied)s;
      button.classList.add("rc-copied");
      setTimeout(() => {
        label.textContent = button.dataset.label;
        button.classList.remove("rc-copied");
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => { fallback(text); done(); });
    } else {
      fallback(text);
      done();
    }
  }, true);
})();
</script>""" % {"copied": json.dumps(COPIED_LABEL)}
# "Copied" in st.success's green, not the hover's red (an error's colour) under the pointer.
_COPY_STYLE = """<style>
button.rc-copy { display: inline-flex; align-items: center; gap: .4rem; font: inherit;
  font-size: .875rem; padding: .25rem .75rem; min-height: 2.5rem; border-radius: .5rem;
  border: 1px solid rgba(49, 51, 63, .2); background: transparent; color: inherit;
  cursor: pointer; }
button.rc-copy:hover { border-color: #ff4b4b; color: #ff4b4b; }
button.rc-copy.rc-copied, button.rc-copy.rc-copied:hover { border-color: #21c354;
  color: #177233; }
</style>"""

# The icon font of Streamlit's own buttons (loaded by the page's other icons): an inline SVG
# would be stripped by st.html.
_COPY_ICON = ('<span aria-hidden="true" translate="no" style="font-family: \'Material Symbols '
              'Rounded\'; font-size: 1.1rem; line-height: 1">content_copy</span>')


def copy_button(text: str, *, key: str, label: str = "Copy") -> None:
    """A button that puts ``text`` on the clipboard when clicked, and says so."""
    st.html(
        f'{_COPY_STYLE}<button class="rc-copy rc-copy-{html.escape(key)}" type="button" '
        f'data-label="{html.escape(label)}" data-copy="{html.escape(text, quote=True)}" '
        f'title="Copy the reply with its sources">{_COPY_ICON}'
        f'<span class="rc-copy-label">{html.escape(label)}</span></button>{_COPY_CLICKS}',
        unsafe_allow_javascript=True)


def bring_into_view() -> None:
    """Scroll the chat message this is drawn in to the top of the window (drawn once, in the
    run that asks the question: later runs draw the question without it)."""
    # A different body each time: the script runs again for a question asked at the same place.
    st.html(f'<span class="rc-asked" data-at="{time.time()}"></span><script>'
            "setTimeout(() => { const marks = document.querySelectorAll('.rc-asked');"
            " const mark = marks[marks.length - 1];"
            " const message = mark && mark.closest('[data-testid=\"stChatMessage\"]');"
            " if (message) message.scrollIntoView({block: 'start'}); }, 50);</script>",
            unsafe_allow_javascript=True)
