"""What a page showed over time, for browser tests of what a person sees while the app works.

``start(page, take)`` runs the JavaScript function ``take`` (it returns one record of what is on
screen) every 100 ms and on every change of the page, so a state shown briefly is seen too;
``records(page)`` gives the records so far, each with its time ``t`` (the page's clock, ms).
"""

from __future__ import annotations

_START = """() => {
  window.__records = [];
  const take = %s;
  const snap = () => window.__records.push({t: performance.now(), ...take()});
  setInterval(snap, 100);
  new MutationObserver(snap).observe(document.body, {subtree: true, childList: true,
                                                     characterData: true});
}"""


def start(page, take: str) -> None:
    """Record ``take()`` (a JavaScript function returning an object) from now on."""
    page.evaluate(_START % take)


def records(page) -> list[dict]:
    return page.evaluate("window.__records")
