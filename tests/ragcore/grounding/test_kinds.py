"""Each kind of question is decided once, from its words; the not-said sentence reads the
question back as a statement."""

from __future__ import annotations

import pytest

from ragcore.grounding import QuestionKind, not_said, profile, question_kind


@pytest.mark.parametrize("question, kind", [
    ("Summarise.", "summary"),
    ("Summarize the document", "summary"),
    ("Give me a short summary of the TOML specification.", "summary"),
    ("Give me a brief overview of this paper", "summary"),
    ("What does PEP 8 say about tabs?", "summary"),
    ("Explain how the SSDF is organised.", "summary"),
    ("What are the four groups of practices in the SSDF?", "list"),
    ("List the SSDF practices", "list"),
    ("Which steps does the agent take?", "list"),
    ("How does HTTP/1.1 differ from HTTP/1.0?", "comparison"),
    ("Compare PEP 7 and PEP 8.", "comparison"),
    ("Who wrote this paper?", "document"),
    ("Who are the authors of NIST SP 800-218?", "document"),
    ("Who wrote the letter to Holmes?", "factoid"),
    ("How many employees does NIST have?", "factoid"),
    ("Where do herons nest?", "factoid"),
    ("What is the capital of France?", "factoid"),
])
def test_kinds(question, kind):
    assert question_kind(question).value == kind


def test_what_a_document_is_about_is_no_one_fact_but_who_wrote_it_is():
    from ragcore.grounding import asks_one_fact

    assert asks_one_fact("Who wrote this paper?")
    assert asks_one_fact("When was RFC 2616 published?")
    assert question_kind("What is this document about?") is QuestionKind.DOCUMENT
    assert not asks_one_fact("What is this document about?")
    assert not asks_one_fact("What's the gist of PEP 20?")
    assert not asks_one_fact("Give me a short summary of the TOML specification.")


def test_only_factoids_are_gated_and_lists_read_more():
    assert [k for k in QuestionKind if profile(k).gated] == [QuestionKind.FACTOID]
    assert profile(QuestionKind.LIST).reading_share > profile(QuestionKind.FACTOID).reading_share


@pytest.mark.parametrize("question, said", [
    ("How many employees does NIST have?", "The documents don't say how many employees NIST has."),
    ("When was the SSDF published?", "The documents don't say when the SSDF was published."),
    ("What is the capital of France?", "The documents don't say what the capital of France is."),
    ("Where do herons nest?", "The documents don't say where herons nest."),
    ("Who wrote the letter?", "The documents don't say who wrote the letter."),
    ("Tabs?", "The documents don't answer this: \u201cTabs?\u201d"),
    ("How can I print the Zen of Python in the interpreter?",
     "The documents don't say how to print the Zen of Python in the interpreter."),
    ("How much does a record header cost?",
     "The documents don't say how much a record header costs."),
    ("How often does a non-adversarial threat event have to occur?",
     "The documents don't say how often a non-adversarial threat event has to occur."),
    ("What does the man in the story want?",
     "The documents don't say what the man in the story wants."),
    ("What name did the King of Bohemia use?",
     "The documents don't answer this: \u201cWhat name did the King of Bohemia use?\u201d"),
    ("How should the server respond?",
     "The documents don't answer this: \u201cHow should the server respond?\u201d"),
    ("What is the name of the Speaker of the House the President greeted?",  # not "is greeted"
     "The documents don't say what the name of the Speaker of the House the President greeted "
     "is."),
    ("What was the book called?", "The documents don't say what the book was called."),
    ("How old was Helen Stoner's sister Julia when she died?",
     "The documents don't say how old Helen Stoner's sister Julia was when she died."),
    ("How much was Victor Hatherley offered for one night's work?",
     "The documents don't say how much Victor Hatherley was offered for one night's work."),
    ("What was the speed limit?", "The documents don't say what the speed limit was."),
    # a progressive's auxiliary goes after the subject, not at the end ("where Intel going to
    # build its mega site is", the conversation benchmark's turn 4); an -ing noun is no verb
    ("Where is Intel going to build its semiconductor mega site?",
     "The documents don't say where Intel is going to build its semiconductor mega site."),
    ("What is Intel building?", "The documents don't say what Intel is building."),
    ("What is the meaning of the flag?",
     "The documents don't say what the meaning of the flag is."),
    ("What is the string?", "The documents don't say what the string is."),
    ("On what date was Executive Order 14028 issued?",  # a preposition before the wh-word
     "The documents don't say on what date Executive Order 14028 was issued."),
    ("For how long is a lock held?", "The documents don't say for how long a lock is held."),
    ("In which year did Kegel coin the term?",
     "The documents don't answer this: \u201cIn which year did Kegel coin the term?\u201d"),
    ("What is the name of the Ukrainian Ambassador who attended the speech?",
     "The documents don't say what the name of the Ukrainian Ambassador who attended the speech "
     "is."),
    ("What is the name of the Secretary of State mentioned in the speech?",
     "The documents don't say what the name of the Secretary of State mentioned in the speech "
     "is."),
    # a phrasal verb's particle is not its verb (the walk of issue 66: "wake ups as")
    ("What does Gregor Samsa wake up as in the story?",
     "The documents don't say what Gregor Samsa wakes up as in the story."),
    ("How does the master find out about failures?",
     "The documents don't say how the master finds out about failures."),
    ("Why does the crawler handle redirects itself instead of letting aiohttp follow them?",
     "The documents don't answer this: \u201cWhy does the crawler handle redirects itself "
     "instead of letting aiohttp follow them?\u201d"),
    # "what did" inverts a past tense a pattern cannot make ("did ... help" -> "helped")
    ("What did the Rhine help to expand?",
     "The documents don't answer this: \u201cWhat did the Rhine help to expand?\u201d"),
])
def test_not_said_reads_the_question_back(question, said):
    assert not_said(question) == said


@pytest.mark.parametrize("question", ["Which references were added in the 2022 version?",
                                      "What tools does the agency publish?",
                                      "Which single-character variable names should never be used?",
                                      "In what order should imports be grouped?",
                                      "What odd things did Mr. Rucastle ask her to agree to?",
                                      "What measures against gun violence did the President "
                                      "ask Congress to pass?",
                                      "What assets of the oligarchs will be seized?"])
def test_a_plural_asked_for_is_a_list(question):
    assert question_kind(question) is QuestionKind.LIST


@pytest.mark.parametrize("question", ["What Rust type is an unsigned 128-bit integer?",
                                      "What prison sentence did John Clay get?",
                                      "What does PEP 8 say about tabs?",
                                      # the plural is what the singular is of
                                      "What percentage of voters did he win?",
                                      "What range of numbers can a u8 store?"])
def test_a_singular_what_is_no_list(question):
    assert question_kind(question) is not QuestionKind.LIST


@pytest.mark.parametrize("question", ["Which film did Mendes direct?",
                                      "Which version of Python does the PEP target?",
                                      "Which actor plays Bond?"])
def test_one_thing_asked_for_with_which_is_no_list(question):
    assert question_kind(question) is not QuestionKind.LIST
