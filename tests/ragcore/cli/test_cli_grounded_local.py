"""The bar of issue 41 through the CLI, with the packaged model over the real SSDF PDF: what the
documents do not say is said plainly, first; a list question gets the list as the documents
state it, each item cited; "Summarise." is never refused; no invented answer is vouched for."""

from __future__ import annotations

import re

import pytest

from ragcore.cli import main
from ragcore.llms import local_models

pytestmark = [pytest.mark.slow, pytest.mark.local_llm, pytest.mark.timeout(1800),
              pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                                 reason="the packaged model is installed by `make install`")]

GROUPS = ("Prepare the Organization", "Protect the Software", "Produce Well-Secured Software",
          "Respond to Vulnerabilities")


@pytest.fixture(scope="module")
def ask(tmp_path_factory, corpus_dir, real_embedder):
    root = tmp_path_factory.mktemp("grounded")
    workspace = ["--workspace", str(root / "ws")]
    pdf = corpus_dir / "nist_pdfs" / "NIST.SP.800-218.pdf"
    assert main([*workspace, "ingest", str(pdf), "--index", "ssdf"], embedder=real_embedder) == 0

    def run(question: str, capsys) -> str:
        capsys.readouterr()
        code = main([*workspace, "query", "--index", "ssdf", "--llm", "local", question],
                    embedder=real_embedder)
        out = capsys.readouterr().out
        assert code == 0, out
        return out

    return run


def test_a_head_count_the_documents_never_give_is_said_not_to_be_there(ask, capsys):
    out = ask("How many employees does NIST have?", capsys)
    assert out.startswith("The documents don't say how many employees NIST has.")
    answer = out.split("\nSources:")[0]
    assert not re.search(r"\d[\d,]* employees", answer)
    assert "states this" not in out


def test_the_four_groups_are_listed_as_the_documents_state_them(ask, capsys):
    out = ask("What are the four groups of practices in the SSDF?", capsys)
    answer = out.split("\nSources:")[0]
    stated = [g for g in GROUPS if g in answer]
    assert len(stated) >= 3, answer  # the whole list reaches the model (ListContinuation)
    for line in answer.splitlines():
        if any(g in line for g in GROUPS):
            assert re.search(r"\[\d\]", line), line  # each stated item cited by ragcore
        elif line.startswith("-"):
            assert "(not in the documents)" in line, line  # an invented item is marked


def test_summarise_is_never_refused(ask, capsys):
    out = ask("Summarise.", capsys)
    assert not out.startswith(("The documents don't", "Not found"))
    assert out.split("\nSources:")[0].strip()
