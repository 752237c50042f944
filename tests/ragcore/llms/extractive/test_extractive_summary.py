"""Summaries a person would write: body sentences only, a line per main section, one file."""

from __future__ import annotations

import pytest

from ragcore.llms.extractive.backend import LABEL, extractive_reply
from ragcore.search.lexical import is_summary_request
from ragcore.llms.extractive.summary import is_body, outline, overview_reply, pick
from ragcore.llms.extractive.text import Candidate, candidates
from ragcore.summaries.summarize import summarize_extractive
from ragcore.types import AnswerRequest

TABLE_ROW = ("ID.RA-2: Cyber threat intelligence is received from information sharing forums "
             "and sources CIS CSC 4 COBIT 5 BAI08.01 ISA 62443-2-1:2009 4.2.3, 4.2.3.9, "
             "4.2.3.12 ISO/IEC 27001:2013 A.6.1.4 NIST SP 800-53 Rev. 4 SA-10, SI-7.")
REFERENCE = ("[12] Rose S, Borchert O (2020) Zero Trust Architecture. Available at "
             "https://doi.org/10.6028/NIST.SP.800-207.")

# A report as a PDF reader gives it: title page, authors, contents, an abstract, numbered
# sections with subsections, and back matter (references, an appendix with a table).
REPORT = [
    "Harbour Relocation Report\nAnna Berg\nTom Lind\nFacilities Division\n",
    "Table of Contents\n1 Introduction ........ 1\n2 Planning the Move ........ 3\n"
    "3 After the Move ........ 7\nAppendix A: Inventory ........ 9\n",
    "Acknowledgments\nThe authors thank the facilities staff for their patient help.\n",
    "Abstract\nThis report explains how the office moves to the harbour building in spring.\n",
    "1 Introduction\nThe office has outgrown the old building on the hill since last year.\n"
    "Rents on the hill have risen for three years in a row.\n",
    "1.1 Background\nThe lease of the old building ends in the coming summer.\n",
    "2 Planning the Move\nEvery team packs its own desks during the last week of February.\n"
    "Network equipment moves first, over the weekend of the first of March.\n",
    "2.1 Budget\nThe move costs the company about two hundred thousand euros in all.\n",
    "3 After the Move\nThe harbour building has parking for forty cars and a canteen.\n"
    "Questions about the new building go to the facilities desk by email.\n",
    f"References\n{REFERENCE}\n",
    f"Appendix A: Inventory\nThe inventory lists every desk and screen of the office.\n"
    f"{TABLE_ROW}\n",
]
SECTIONS = ("Abstract", "1 Introduction", "2 Planning the Move", "3 After the Move")


def body(text: str, **fields) -> bool:
    return is_body(Candidate(text, 0, 0, **fields))


@pytest.mark.parametrize(
    "text, fields",
    [
        (TABLE_ROW, {}),
        (REFERENCE, {}),
        ("3 Executive Order no. 13636, Improving Critical Infrastructure Cybersecurity, "
         "February 12, 2013.", {}),  # a footnote
        ("However, the canteen opens only in April of next year.", {}),  # leans on the one before
        ("These rules apply to every team of the office.", {}),  # refers back
        ("Each value in Rust has an owner at any time.", {"item": True}),  # without its lead-in
        ("The move is close.", {}),  # too short to say much
        ("PEP: 8 Title: Style Guide for Python Code Author: Guido van Rossum.", {}),
        ('"""Return the pathname of the KOS root directory."""', {}),  # code
        ("[later editions continued as follows When the sands are all dry.]", {}),
        ('(Of course "Do X" should be replaced by a useful description!)', {}),
    ],
)
def test_what_is_not_body_text(text, fields):
    assert not body(text, **fields)


def test_a_plain_sentence_with_a_number_or_two_is_body_text():
    assert body("In 2018, NIST published version 1.1 of the Framework for all sectors.")


def test_the_outline_keeps_the_abstract_and_main_sections_and_drops_the_rest():
    found = outline([candidates(chunk) for chunk in REPORT])
    assert found.sections == SECTIONS
    assert found.sections[found.first] == "Abstract"
    texts = " ".join(s.text for s in found.sentences)
    for debris in ("thank", "Berg", "inventory", "BAI08", "Rose S", "........"):
        assert debris not in texts
    # Subsections belong to their main section.
    budget = next(s for s in found.sentences if "two hundred thousand" in s.text)
    assert found.sections[budget.section] == "2 Planning the Move"


def test_a_title_on_every_page_is_a_running_header_not_a_section():
    pages = [f"Harbour Report\nPage text number {n} says the move goes well for everyone.\n"
             for n in range(8)]
    found = outline([candidates(page) for page in pages])
    assert found.sections == ("",)


def test_a_line_per_main_section_with_the_abstract_first_in_line():
    found = outline([candidates(chunk) for chunk in REPORT])
    scores = [float(len(s.text)) for s in found.sentences]
    picks = pick(found, scores, limit=3)
    sections = [found.sections[found.sentences[i].section] for i in picks]
    assert sections[0] == "Abstract" and len(set(sections)) == 3


def test_without_sections_the_most_central_sentences_are_picked():
    found = outline([candidates("One two three four five six seven. " * 1 +
                                "Alpha beta gamma delta epsilon zeta eta. "
                                "Red green blue cyan magenta yellow black.")])
    assert pick(found, [0.1, 0.9, 0.5], limit=2) == [1, 2]


def test_the_file_summary_quotes_a_line_per_section_and_no_debris(fake_embedder):
    found = summarize_extractive(REPORT, fake_embedder, max_sentences=6, max_chars=1200)
    texts = [s.text for s in found.sentences]
    assert len(texts) == 4  # the abstract and the three numbered sections
    assert texts[0] == "This report explains how the office moves to the harbour building in " \
                       "spring."
    assert not any(word in t for t in texts for word in ("BAI08", "Rose S", "thank", "........"))
    chunks = [s.chunk for s in found.sentences]
    assert chunks == sorted(chunks)


def test_summarise_quotes_the_main_file_of_the_passages_and_no_table_row():
    memo = "\n\n".join(f"file_name: report.pdf\n\n{chunk}" for chunk in REPORT[3:9])
    other = ("file_name: bread.txt\n\nBread needs flour, water, salt and yeast to rise well. "
             "Knead the dough for ten minutes until it is smooth and soft.")
    table = f"file_name: report.pdf\n\n{TABLE_ROW}"
    reply = extractive_reply(AnswerRequest("qa", "Summarise", (other, memo, table)))
    lines = reply.splitlines()
    assert lines[0] == f"{LABEL}: the most representative sentences of report.pdf:"
    quoted = [line[2:] for line in lines[1:]]
    assert quoted and all(q in memo for q in quoted)
    assert not any("BAI08" in q or "Bread" in q for q in quoted)


@pytest.mark.parametrize(
    "question, expected",
    [("Summarise", True), ("Summarize the document.", True),
     ("summarise NIST.SP.800-207-ZeroTrustArchitecture.pdf", True),
     ("Give me an overview of report.pdf", True),
     ("What does report.pdf say about parking?", False), ("report.pdf", False),
     ("What is the main risk?", False)],
)
def test_a_summary_request_may_name_the_file(question, expected):
    assert is_summary_request(question) is expected


def test_summarise_a_named_file_quotes_that_file_though_fewer_passages_come_from_it():
    report = "\n\n".join(f"file_name: report.pdf\n\n{chunk}" for chunk in REPORT[3:5])
    bread = "\n\n".join(f"file_name: bread.txt\n\n{text}" for text in (
        "Bread needs flour, water, salt and yeast to rise well in the oven.",
        "Knead the dough for ten minutes until it is smooth and soft to touch.",
        "Bake the loaf at two hundred degrees for about thirty minutes."))
    cands = candidates(f"{bread}\n\n{report}")
    reply = overview_reply(cands, limit=3, label=LABEL, question="Summarise report.pdf")
    assert reply.splitlines()[0].endswith("sentences of report.pdf:")
    assert not any("Bread" in line or "dough" in line for line in reply.splitlines())
    assert "sentences of bread.txt:" in overview_reply(cands, limit=3, label=LABEL)


def test_passages_without_a_sentence_to_summarise_are_not_summarised():
    context = ("file_name: zta.pdf\n\nNIST Special Publication 800-207\nZero Trust Architecture\n"
               "Scott Rose\nOliver Borchert\n\nfile_name: zta.pdf\n\n"
               "Considerations for a Multidisciplinary Approach in the Engineering of\n"
               "Trustworthy Secure Systems.\n")
    reply = overview_reply(candidates(context), limit=3, label=LABEL)
    assert reply.startswith(f"{LABEL}: not found.") and "Trustworthy" not in reply


def test_a_sentence_repeating_a_better_ones_words_is_not_picked_too():
    found = outline([candidates(
        "The organization can use that information to develop an action plan today. "
        "The organization can use this information to develop a plan for its resources. "
        "Tiers describe how rigorous the risk practices of an organization are.")])
    assert pick(found, [0.9, 0.8, 0.1], limit=2) == [0, 2]


def test_a_file_summary_of_a_long_document_is_a_line_per_section(fake_embedder):
    from ragcore.types import Document
    from ragcore.index import VectorStoreIndex
    from ragcore.summaries.index import summarize_document

    index = VectorStoreIndex.from_documents(
        [Document(chunk, doc_id=f"report#page={n}", metadata={"file_name": "report.pdf"})
         for n, chunk in enumerate(REPORT)], embedder=fake_embedder)
    ids = [f"report#page={n}" for n in range(len(REPORT))]
    lines = summarize_document(index, "report", ids, title="report.pdf").text.splitlines()
    assert len(lines) == 4 and all(line.startswith("- ") for line in lines)
    assert lines[0] == "- This report explains how the office moves to the harbour building in " \
                       "spring."


def test_a_book_with_chapters_has_a_section_per_chapter_and_nothing_else():
    book = ["CHAPTER I. Down the Rabbit-Hole\n\nAlice was beginning to get very tired of "
            "sitting by her sister on the bank.\n",
            "WITH ALICE'S LOVE\n\nShe went on planning to herself how she "
            "would manage it all very well.\n",
            "CHAPTER II. The Pool of Tears\n\nCuriouser and curiouser cried Alice, she was so "
            "much surprised.\n"]
    found = outline([candidates(chunk) for chunk in book])
    assert found.sections == ("CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears")


def test_an_extractive_summary_cached_by_the_older_picks_is_made_again(tmp_path):
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.summaries.index import DocumentSummary
    from ragcore.workspace import Workspace
    from ragcore.workspace.summaries import SummaryCache, _fingerprint, summarize_file
    from ragcore.workspace.ingest.index_files import files_of

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "report.txt").write_text("\n".join(REPORT[3:9]), encoding="utf-8")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("reports", [folder])
    index, uid = ws.load_index("reports"), ws.record("reports").uid
    row = files_of(index)[0]
    cache = SummaryCache(tmp_path / "ws" / "summaries")
    old = _fingerprint("extractive", *(str(index.doc_info(d).hash) for d in row["doc_ids"]))
    cache.put(uid, old, DocumentSummary(row["id_base"], "report.txt", TABLE_ROW, "extractive",
                                        tuple(row["doc_ids"])))
    made = summarize_file(cache, uid, index, row["id_base"])
    assert made.text and "BAI08" not in made.text
    assert summarize_file(cache, uid, index, row["id_base"]).text == made.text  # cached anew


def test_numbered_titles_out_of_sequence_leave_every_heading_a_section():
    # A reader that lost sections 1 to 11 (or numbered the pages): no main section is reached.
    chunks = ["12 Apples\nApples grow on the trees of the orchard in the valley.\n",
              "14 Pears\nPears grow on the trees of the orchard as well in autumn.\n"]
    found = outline([candidates(chunk) for chunk in chunks])
    assert found.sections == ("12 Apples", "14 Pears") and len(found.sentences) == 2


def test_an_attribution_or_an_address_is_no_section():
    text = ("Rationale\n\nA universal convention supplies maintainability and clarity.\n\n"
            "-- Tim Peters on comp.lang.python, 2001-06-16\n\n"
            "If you violate these conventions, the worst you'll get is some dirty looks.\n\n"
            "Guido van Rossum <guido@python.org>\n\nThe author wrote this with great care.\n")
    assert outline([candidates(text)]).sections == ("Rationale",)
