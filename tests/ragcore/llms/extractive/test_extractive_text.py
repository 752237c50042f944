"""What the extractive answerer may quote: sentences of the passages, never their debris."""

from __future__ import annotations

import pytest

from ragcore.llms.extractive.text import (
    candidates,
    is_heading,
    is_quotable,
    quote_unit,
    split_passages,
)


def texts(context: str) -> list[str]:
    return [c.text for c in candidates(context)]


@pytest.mark.parametrize(
    "document, heading",
    [
        ("# Server move plan\n\nThe move starts on Friday.", "Server move plan"),
        ("Tabs or Spaces?\n---------------\n\nSpaces are preferred.", "Tabs or Spaces?"),
        ("INTRODUCTION\nThe move starts on Friday.", "INTRODUCTION"),
        # A PDF reader glues a numbered section title to the paragraph under it.
        ("It ends here.\n1.1 Overview of the Framework\nThe Framework has three parts.",
         "Overview of the Framework"),
        ("Maximum Line Length\n\nLimit all lines to 79 characters.", "Maximum Line Length"),
    ],
)
def test_headings_are_never_candidates(document, heading):
    found = texts(document)
    assert found and not any(heading in sentence for sentence in found)


def test_a_heading_is_kept_as_the_context_of_the_sentences_under_it():
    cands = candidates("10.4.5 404 Not Found\n\nThe server has not found anything. No more.\n"
                       "Nothing else is said. At all.")
    assert [c.heading for c in cands] == ["10.4.5 404 Not Found"] * 2 + ["", ""]


def test_a_short_line_running_on_in_lower_case_is_prose_not_a_heading():
    assert texts("The Framework Core\nis a set of activities.") == [
        "The Framework Core is a set of activities."]
    assert not is_heading("Spaces are preferred.", alone=True)


@pytest.mark.parametrize(
    "sentence",
    [
        "Usage: backup SOURCE DESTINATION [OPTIONS]",
        "tar [OPTION...] [FILE]... saves files",
        "Copyright 2020 The Authors. All rights reserved.",
        "| Method | Safe | Idempotent |",
        "Figure 1: Framework Core Structure",
        "if (x == 1) { return foo(bar[2]); }",
        "https://example.org/spec",
    ],
)
def test_debris_is_not_quotable(sentence):
    assert not is_quotable(sentence)


def test_inline_code_does_not_make_prose_code():
    assert is_quotable("`Rc<T>` enables multiple owners; `Box<T>` and `RefCell<T>` have one.")


def test_code_blocks_tags_and_command_examples_are_skipped():
    document = (
        "Run it like this:\n\n```console\n$ cargo run --release\nHello, world!\n```\n\n"
        "<Listing number=\"1-2\" caption=\"Cargo.toml\">\n\n"
        "Examples:\n  tar -cf archive.tar foo bar  # Create archive.tar from files.\n\n"
        "Example::\n\n    x = compute(1)\n\nCargo builds your code. It also fetches crates."
    )
    assert texts(document) == ["Run it like this:", "Cargo builds your code.",
                               "It also fetches crates."]


def test_a_passage_that_starts_inside_a_code_block_skips_its_end():
    passage = "    println!(\"{x}\");\n}\n```\n\nThe variable is printed. Then it ends."
    assert texts(passage) == ["The variable is printed.", "Then it ends."]


def test_option_lines_of_help_text_are_separate_items():
    found = candidates("Main operation mode:\n  -c, --create    create a new archive\n"
                       "      --exclude=PATTERN  exclude files, given as a PATTERN\n")
    assert [c.text for c in found] == ["Main operation mode:", "-c, --create create a new archive",
                                       "--exclude=PATTERN exclude files, given as a PATTERN"]
    assert found[0].followers == [1, 2] and found[1].item


def test_a_list_intro_is_linked_to_its_items_and_ordinal_steps_to_theirs():
    found = candidates("The rules are:\n\n- Each value has an owner.\n- One owner at a time.\n\n"
                       "And here is the plan. First, cut costs. It helps. Second, raise wages.")
    by_text = {c.text: c for c in found}
    assert [found[i].text for i in by_text["The rules are:"].followers] == [
        "Each value has an owner.", "One owner at a time."]
    assert [found[i].text for i in by_text["And here is the plan."].followers] == [
        "First, cut costs.", "Second, raise wages."]


def test_a_sentence_that_refers_back_is_linked_to_the_one_before():
    found = candidates("Characters that are allowed are called unreserved. These include "
                       "letters and digits. Percent-encoding is different.")
    assert [c.previous for c in found] == [None, 0, None]
    assert found[1].starts_with_reference and not found[2].starts_with_reference


def test_passages_are_split_at_metadata_with_their_file_names_as_topic():
    context = ("file_path: /docs/tar-help.txt\nfile_name: tar-help.txt\n\nFirst passage.\n\n"
               "file_name: ZeroTrustArchitecture.pdf\ntitle: NIST SP 800-207\n\nSecond one.")
    passages = split_passages(context)
    assert [p.text.strip() for p in passages] == ["First passage.", "Second one."]
    assert [p.topic for p in passages] == ["tar help", "Zero Trust Architecture NIST SP 800-207"]
    assert [(c.passage, c.topic) for c in candidates(context)] == [
        (0, "tar help"), (1, "Zero Trust Architecture NIST SP 800-207")]


def test_a_literal_block_of_sentences_is_kept_and_one_of_code_is_not():
    document = ("The Zen of Python::\n\n    Beautiful is better than ugly.\n"
                "    Explicit is better than implicit.\n\nFor example::\n\n"
                "    x = compute(1)  # then print it\n\nThat is all.")
    assert texts(document) == ["The Zen of Python:", "Beautiful is better than ugly.",
                               "Explicit is better than implicit.", "For example:",
                               "That is all."]


def test_a_sentence_continuing_the_one_before_is_quoted_with_it():
    found = candidates("Nominating a judge is a serious duty. And I did that 4 days ago, when "
                       "I nominated Judge Jackson. These steps take months. This is normal.")
    assert [c.previous for c in found] == [None, 0, 1, 2]
    assert quote_unit(found, 1) == [0, 1]
    # a chain of references is followed two steps back at most
    assert quote_unit(found, 3) == [1, 2, 3]
