"""In a real Chromium: the Query page's Evaluate tab runs 4 response modes x 2 retrievers over
20 questions generated offline, as a background job, then shows the leaderboard, its chart and
one question drilled into (issue 21).

The app of tests/test_browser_retrievers.py (one index of the speech and a PEP, fake embedder,
extractive backend, Advanced on). Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per
step.
"""

from __future__ import annotations

import re

import pytest
from test_browser import WORK_TIMEOUT_MS, _shot, _wait_idle, page  # noqa: F401 (fixture)
from test_browser_retrievers import docs_app  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SETUPS = [f"{retriever} / {mode}" for retriever in ("hybrid", "keyword")
          for mode in ("compact", "refine", "tree_summarize", "accumulate")]


def test_evaluate_four_modes_by_two_retrievers_on_twenty_questions(
    docs_app, page, tmp_path  # noqa: F811
):
    from playwright.sync_api import expect

    page.goto(f"{docs_app}/query")
    _wait_idle(page)
    main = page.get_by_test_id("stMain")
    main.get_by_role("tab", name="Evaluate").click()
    panel = main.get_by_role("tabpanel", name="Evaluate")
    panel.get_by_role("button", name="Generate questions").click()
    _wait_idle(page)
    expect(panel.get_by_text("20 questions (offline (key phrase), seed 0)")).to_be_visible()
    expect(panel.get_by_text("8 setups (2 retrievers x 4 modes)")).to_be_visible()
    _shot(page, "evaluate-1-setup")

    panel.get_by_role("button", name="Run evaluation").click()
    progress = panel.get_by_text(re.compile(r"Evaluating: \d+ of 160 answers"))
    expect(progress).to_be_visible()  # redrawn while the job runs
    expect(panel.get_by_role("button", name="Run evaluation")).to_be_disabled()
    progress.scroll_into_view_if_needed()
    _shot(page, "evaluate-2-running")
    expect(panel.get_by_text("Leaderboard", exact=True)).to_be_visible(timeout=WORK_TIMEOUT_MS)
    _wait_idle(page)
    expect(panel.get_by_test_id("stVegaLiteChart")).to_be_visible()
    for label in ("Answers (CSV)", "Leaderboard (CSV)", "Leaderboard (Markdown)"):
        expect(panel.get_by_role("button", name=label)).to_be_visible()
    saved = list((tmp_path / "workspace" / "evaluations").glob("*.json"))
    assert len(saved) == 1  # the job saved its report in the workspace
    panel.get_by_test_id("stDataFrame").first.scroll_into_view_if_needed()
    _shot(page, "evaluate-3-leaderboard")

    question = panel.get_by_role("combobox", name="Question", exact=True)
    second = page.get_by_role("option").nth(1)
    question.scroll_into_view_if_needed()
    question.click()
    second.wait_for(state="visible")
    second.click()
    _wait_idle(page)
    for setup in SETUPS:  # each setup's answer side by side
        expect(panel.get_by_text(setup, exact=True).last).to_be_visible()
    panel.locator("summary").filter(has_text="Trace").first.click()  # an expander
    expect(panel.get_by_text("Extractive step 1:").first).to_be_visible()
    _shot(page, "evaluate-4-drill-down")
