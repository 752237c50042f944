"""A factoid's short answer is decided, not hedged: vouched for by the sentence that holds it and
states the question, refused otherwise, and refused when the question names what no passage
mentions (``grounding.located``)."""

from __future__ import annotations

from ragcore.grounding import check_answer
from ragcore.grounding.located import asked_share, unmentioned
from ragcore.present.markers import AnswerCheck
from ragcore.types import Node, ScoredNode

LIGHTHOUSE = ("The keepers recommend lighting the lamp between 18:00 and 06:00 in winter. "
              "The tower is 42 metres tall.")
EXAMPLE = "Lamps are configured in the panel, for example LAMP_MODE=flash."


def shown(answer: str, question: str) -> tuple[str, str]:
    nodes = [ScoredNode(Node(LIGHTHOUSE), 0.8), ScoredNode(Node(EXAMPLE), 0.7)]
    checked = AnswerCheck()(answer, nodes, question=question)
    return checked.verdict.label, checked.text


def test_the_questions_words_about_the_document_itself_do_not_count():
    question = "What does the keepers' guide recommend lighting?"
    assert asked_share(question, LIGHTHOUSE.split(". ")[0]) == 1.0


def test_a_possessive_or_a_hyphenated_word_of_the_question_counts_once():
    # "Dai's" is stated by "W. Dai,", "date-times" by "date" and "times" alike
    assert asked_share("In what year is W. Dai's reference dated?",
                       "[1] W. Dai, reference dated the year 1998.") == 1.0
    assert asked_share("What precision do offset date-times need?",
                       "Offset date and times need millisecond precision.") == 1.0


def test_a_short_answer_in_a_sentence_stating_the_question_is_vouched_for():
    label, text = shown("**18:00 and 06:00**.",
                        "Between which hours do the keepers recommend lighting the lamp?")
    assert label == "supported"
    assert text.startswith("**18:00 and 06:00**. \u201cThe keepers recommend lighting")
    assert text.endswith("[1]") and "Not confirmed" not in text


def test_a_short_answer_standing_in_an_example_is_refused_not_hedged():
    question = "What is the default LAMP_MODE the keepers use on winter nights?"
    assert check_answer("**flash**.", [EXAMPLE], question="What is LAMP_MODE set to in the "
                        "panel example?").label == "supported"  # the same words, asked of it
    label, text = shown("**flash**.", question)
    assert label == "unsupported"
    assert text.startswith("The documents don't say what the default LAMP_MODE")
    assert "**flash**" not in text and "Not confirmed" not in text


def test_a_value_written_as_one_word_is_a_short_answer_however_many_stems_it_has():
    # "1979-05-27T07:32:00" splits into six stems; it is still one value, taken from a code
    # example, and decided as a short answer: refused for a question its line never states
    code = "```toml\nldt1 = 1979-05-27T07:32:00\nldt2 = 1979-05-27T07:32:00.5\n```"
    asked = "Which version number does this specification describe?"
    assert check_answer("**1979-05-27T07:32:00**.", [code], question=asked).label == \
        "unsupported"
    assert check_answer("**1979-05-27T07:32:00**.", [code],
                        question="What is ldt1 set to?").label == "supported"


def test_a_question_about_what_no_passage_mentions_is_refused_by_its_name():
    label, text = shown("**18:00**.", "When does the Fastnet lighthouse light its lamp?")
    assert label == "unsupported"
    assert text.startswith("The documents don't mention Fastnet.")
    assert "What they say nearest to it:" in text


def test_a_document_named_in_the_question_is_not_a_premise():
    assert unmentioned("What does the Fastnet guide say about lamps?", [LIGHTHOUSE]) == []
    assert unmentioned("What does Fastnet say about lamps?", [LIGHTHOUSE]) == ["Fastnet"]
    assert unmentioned("How tall is the etcd tower?", [LIGHTHOUSE]) == ["etcd"]


def test_a_vouched_short_answer_in_a_sentence_stating_little_of_the_question_is_refused():
    from ragcore.grounding.claims import claims_of, sentence_spans
    from ragcore.grounding.located import decided
    from ragcore.grounding.verdict import ClaimCheck

    example = "For example, the lamp mode may be set to flash."
    lead = ClaimCheck(claims_of("**flash**.")[0], supported=True, score=0.97,
                      support=((0, sentence_spans(example)[0]),))  # as a judge vouched for it
    asked = "What is the default lamp mode the keepers use on winter nights?"
    assert decided(lead, [example], asked).refuted
    stating = "What may the lamp mode be set to, for example?"
    assert decided(lead, [example], stating).supported


def test_a_list_item_named_by_a_passage_about_something_else_carries_no_marker():
    go = "The Go team at Google will run the checksum database for the module ecosystem."
    raft = "Raft is used in production by several storage systems, among them LogCabin."
    question = "Which companies use Raft in production?"
    verdict = check_answer("- LogCabin\n- Google", [raft, go], question=question,
                           list_items=True)
    by_text = {c.text.strip("- "): c for c in verdict.claims}
    assert by_text["LogCabin"].supported
    assert not by_text["Google"].supported and not by_text["Google"].refuted
    checked = AnswerCheck()("- LogCabin\n- Google", [ScoredNode(Node(raft), 0.9),
                                                   ScoredNode(Node(go), 0.8)], question=question)
    assert "Google [" not in checked.text and "LogCabin [1]" in checked.text


def test_sources_under_an_answer_left_to_check_say_to_check_it_not_unused():
    from ragcore.present.grounded import NOT_CONFIRMED
    from ragcore.present.support import TO_CHECK

    code = ("Integers\n\n# hexadecimal with prefix `0x`\nhex1 = 0xDEADBEEF\n"
            "# octal with prefix `0o`\noct1 = 0o01234567")
    nodes = [ScoredNode(Node(code), 0.9),
             ScoredNode(Node("TOML aims to be a minimal configuration file format."), 0.5)]
    # an explanation in the model's words: neither vouched for nor taken for invented
    checked = AnswerCheck()("Prefixes let a reader tell the base of an integer at a glance.",
                            nodes, question="Why do integers have prefixes in TOML?")
    assert checked.text.startswith(NOT_CONFIRMED)
    notes = {s.use.note for s in (*checked.listing.shown, *checked.listing.hidden)}
    assert notes == {TO_CHECK}


TOML_CODE = ("Integers\n\n# hexadecimal with prefix `0x`\nhex1 = 0xDEADBEEF\n"
             "# octal with prefix `0o`\noct1 = 0o01234567")


def toml_checked(answer: str, question: str, title: str = "") -> tuple[str, str]:
    nodes = [ScoredNode(Node(TOML_CODE, metadata={"title": title} if title else {}), 0.9),
             ScoredNode(Node("TOML aims to be a minimal configuration file format."), 0.5)]
    checked = AnswerCheck()(answer, nodes, question=question)
    return checked.verdict.label, checked.text


def test_the_name_of_what_the_documents_are_about_need_not_be_restated():
    question = "What prefix do octal integers have in TOML?"
    assert toml_checked("**0o**.", question, title="TOML")[0] == "supported"
    # the same sentence, the document untitled: "TOML" is a word of the question it lacks
    label, text = toml_checked("**0o**.", question)
    assert label == "unsupported" and text.startswith("The documents don't say")


def test_a_sentence_answer_is_decided_by_what_it_adds_to_the_question():
    question = "What is the short form of the flag that searches binary files?"
    nodes = [ScoredNode(Node("Binary files can be searched via the `--text` (`-a` for short) "
                             "flag. Symlinks are followed with `--follow`."), 0.9)]
    # what it adds ("`-a`", "`--text`") stands in a sentence stating the question: vouched for
    checked = AnswerCheck()("The short form of the `--text` (`-a` for short) flag is `-a`.",
                            nodes, question=question)
    assert checked.verdict.label == "supported" and "Not confirmed" not in checked.text
    # what it adds ("since 2019") no sentence states: "The documents don't say ...", not a hedge
    checked = AnswerCheck()("The short form of the `--text` flag has been `-a` since 2019.",
                            nodes, question=question)
    assert checked.verdict.label == "unsupported"
    assert checked.text.startswith("The documents don't say")


def test_who_wrote_a_document_is_decided_too():
    nodes = [ScoredNode(Node("PEP 492 added native coroutines to Python 3.5."), 0.9)]
    checked = AnswerCheck()("PEP 492 was written by Guido van Rossum in 2015.", nodes,
                            question="Who wrote PEP 492?")
    assert checked.verdict.label == "unsupported"
    assert checked.text.startswith("The documents don't say who wrote PEP 492")


def test_what_the_documents_are_about_is_no_absent_premise():
    question = "What prefix do octal integers use in TOML?"
    assert unmentioned(question, [TOML_CODE]) == ["TOML"]
    assert unmentioned(question, [TOML_CODE], ("TOML",)) == []
    assert unmentioned("What is the election timeout in etcd?", [TOML_CODE], ("TOML",)) == ["etcd"]


def test_the_judge_is_not_asked_about_an_answer_its_sentence_vouches_for():
    from tests.ragcore.grounding.test_verdict import Judge

    question = "What is the short form of the flag that searches binary files?"
    passage = ("Binary files can be searched via the `--text` (`-a` for short) flag. Symlinks "
               "are followed with `--follow`.")
    doubting = Judge(yes=0.05)
    located = check_answer("The short form of the `--text` (`-a` for short) flag is `-a`.",
                           [passage], question=question, judge=doubting)
    assert located.label == "supported" and doubting.asked == []
    # nor about a short answer the features vouch for and its sentence confirms (a call of
    # 0.4 s idle, 1.2 s busy)
    confirmed = check_answer("**1867**.", ["The lighthouse was built in 1867 by the harbour "
                                           "board."],
                             question="In what year was the lighthouse built?", judge=doubting)
    assert confirmed.label == "supported" and doubting.asked == []
    # one the located rule would refuse is still the judge's to decide
    sure = Judge(yes=0.97)
    check_answer("**the `--follow` flag**.", [passage], question=question, judge=sure)
    assert len(sure.asked) == 1


def test_a_short_answer_with_no_word_to_stem_is_checked_as_written():
    """A flag or an escape ("**-a**.") has no content word: it was dropped from the claims,
    and the sentence after it checked instead (unseen tune half u058's hedge). It is a fact
    stated as written: "-a" by "(`-a` for short)", not "-t", nor "-a" inside "--all"."""
    from ragcore.grounding.facts import facts_of, missing_facts

    passages = ["Binary files can be searched via the `--text` (`-a` for short) flag."]
    question = "What is the short form of the --text flag?"
    right = check_answer("**-a**. It prints binary data too.", passages, question=question)
    assert right.claims[0].claim.text == "**-a**." and right.claims[0].supported
    wrong = check_answer("**-t**. It prints binary data too.", passages, question=question)
    assert wrong.claims[0].claim.text == "**-t**." and not wrong.claims[0].supported
    assert missing_facts(facts_of("**-a**."), "Use --all for that.") == ["\u201c-a\u201d"]


def test_a_flag_answer_is_located_as_written_not_by_the_questions_word():
    """"--text" for "... as if they were plain text?" adds a written form to the question, and
    only a sentence writing it states it (unseen tune half u057: refused as a repetition)."""
    passages = ["* `-a/--text`: Search binary files as if they were plain text, in every file "
                "type that ripgrep makes.", "Plain text search is fast in ripgrep files."]
    question = "Which flag makes ripgrep search binary files as if they were plain text?"
    label, _ = verdict_of("**--text**.", passages, question)
    assert label == "supported"
    label, _ = verdict_of("**--plain**.", passages, question)
    assert label == "unsupported"


def verdict_of(answer: str, passages: list[str], question: str) -> tuple[str, str]:
    nodes = [ScoredNode(Node(text), 0.8 - 0.1 * at) for at, text in enumerate(passages)]
    checked = AnswerCheck()(answer, nodes, question=question)
    return checked.verdict.label, checked.text


def test_a_short_answer_with_a_word_no_passage_states_is_narrowed_to_what_one_does():
    """"**Dan Kegel**." where the passages write "Kegel coined ..." is shown as "**Kegel**."
    with that sentence (unseen tune half u089: refused); a count is never narrowed to its
    unit."""
    passages = ["Kegel coined the term \"C10K\" in 1999, writing about servers.",
                "The keepers light the lamp for 9 hours in winter."]
    label, text = verdict_of("**Dan Kegel**.", passages, "Who coined the term C10K?")
    assert label == "supported"
    assert text.startswith("**Kegel**. \u201cKegel coined the term")
    label, _ = verdict_of("**12 hours**.", passages,
                          "How many hours do the keepers light the lamp in winter?")
    assert label == "unsupported"
    # a negated answer is not narrowed to what it negates
    label, _ = verdict_of("**not Dan Kegel**.", passages, "Who coined the term C10K?")
    assert label != "supported"
    # a range is not narrowed to the one end a passage states: a count keeps every number
    label, _ = verdict_of("**3 to 9 hours**.", passages,
                          "How many hours do the keepers light the lamp in winter?")
    assert label == "unsupported"


def test_a_name_the_index_holds_beyond_the_passages_is_not_said_to_be_missing():
    """"The documents don't mention President." was shown for a question about a speech whose
    passages found never wrote "President", though the speech does eight times elsewhere: the
    premise check asks the index too (``held``), and says so only of what it lacks."""
    question = "What did the President say about the lamp?"
    assert unmentioned(question, [LIGHTHOUSE]) == ["President"]
    assert unmentioned(question, [LIGHTHOUSE], held=lambda name: name == "President") == []
    nodes = [ScoredNode(Node(LIGHTHOUSE), 0.8)]
    said = AnswerCheck()("**etcd**.", nodes, question="What did the President use, etcd?")
    assert said.text.startswith("The documents don't mention President or etcd.")
    held = AnswerCheck(held=lambda name: name == "President")
    said = held("**etcd**.", nodes, question="What did the President use, etcd?")
    assert said.text.startswith("The documents don't mention etcd.")


def test_a_documents_summary_is_checked_claim_by_claim_never_refused_whole():
    # "What is this document about?" names the document: a card question, yet no one fact
    # its first sentence is invented: a one fact's answer would be refused for it
    answer = ("The tower was painted red in 1901. "
              "The keepers light the lamp from 18:00 to 06:00 in winter.")
    for question in ("What is this document about?",
                     "Give me a short summary of the keepers' guide."):
        _, text = shown(answer, question)
        assert not text.startswith("The documents don't"), question
        assert "18:00 to 06:00" in text


# NIST SP 800-218, page 13, as its PDF reads
SSDF = ("The practices are organized into four groups: 1. Prepare the Organization (PO): "
        "Organizations should ensure that their people, processes, and technology are prepared "
        "to perform secure software development at the organization level. 2. Protect the "
        "Software (PS): Organizations should protect all components of their software from "
        "tampering and unauthorized access. 3. Produce Well-Secured Software (PW): "
        "Organizations should produce well-secured software with minimal security "
        "vulnerabilities in its releases. 4. Respond to Vulnerabilities (RV): Organizations "
        "should identify residual vulnerabilities in their software releases and respond "
        "appropriately.")


def test_a_list_questions_second_request_does_not_take_its_items_markers():
    # "explain why each matters for a small startup" is in no passage: the items are about
    # what the list part asks, "the four groups of SSDF practices" (the fifth walk's list)
    question = ("List the four groups of SSDF practices and explain why each matters for a "
                "small startup.")
    answer = ("1. Prepare the Organization (PO)\n2. Protect the Software (PS)\n"
              "3. Produce Well-Secured Software (PW)\n4. Respond to Vulnerabilities (RV)")
    go = "The Go team at Google will run the checksum database for the module ecosystem."
    verdict = check_answer(answer + "\n5. Google", [SSDF, go], question=question,
                           list_items=True)
    items = {c.text.split(". ", 1)[-1].strip(): c for c in verdict.claims}
    assert all(items[name].supported for name in ("Prepare the Organization (PO)",
                                                  "Respond to Vulnerabilities (RV)")), items
    assert not items["Google"].supported
