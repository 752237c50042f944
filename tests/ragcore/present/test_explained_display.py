"""A why or how is shown with the passage sentences that explain it: the sentence stating the
question, with the one after it and the one before when it points back, quoted and cited,
whatever the model's explanation; not when the model refused, when the question names what no
passage mentions, or when no sentence states enough of the question."""

from __future__ import annotations

from ragcore.present.grounded import EXPLAINED_LEAD, UNSUPPORTED_MARK
from ragcore.present.markers import mark_listing
from ragcore.present.sources import answer_sources
from ragcore.types import Node, ScoredNode

CALLBACKS = (
    "We begin by describing how the crawler works with callbacks. Note a nice feature of async "
    "programming with callbacks: we need no mutex around changes to shared data, such as when "
    "we add links to seen_urls. There is no preemptive multitasking, so we cannot be "
    "interrupted at arbitrary points in our code. The fetcher keeps its socket open until the "
    "response is read.")
BINARY = (
    "When ripgrep uses memory maps, binary detection is only performed on the first few "
    "kilobytes of the file. When ripgrep doesn't use memory maps, binary detection is "
    "performed on all bytes searched. This means that whether a file is detected as binary or "
    "not can change based on the search strategy used by ripgrep.")
KEYS = ("The public key is shared with the payee. As an additional firewall, a new key pair "
        "should be used for each transaction to keep them from being linked to a common owner.")


def shown(answer: str, question: str, passages: tuple[str, ...] = (CALLBACKS, BINARY, KEYS)):
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate(passages)]
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    return mark_listing(answer, listing)


def test_a_why_is_shown_with_the_sentence_stating_it_and_the_reason_after_it():
    # the model restated the question and gave a reason of its own: not refused, explained
    text, listing = shown("**The callback-based crawler needs no mutex around seen_urls**. This "
                          "is because the fetcher keeps its socket open.",
                          "Why does the callback-based crawler need no mutex around changes "
                          "to seen_urls?")
    assert text.startswith(f"{EXPLAINED_LEAD} \u201cNote a nice feature of async programming")
    assert "There is no preemptive multitasking, so we cannot be interrupted at arbitrary " \
           "points in our code.\u201d [1]" in text
    assert "socket" not in text  # the model's reason stands on another sentence: left out
    assert listing.shown[0].scored.node.node_id == "n0"


def test_a_sentence_pointing_back_is_quoted_with_the_one_before_it():
    text, _ = shown("Because the strategy differs.",
                    "Why can the same file be detected as binary in one search and not in "
                    "another?")
    assert text == (f"{EXPLAINED_LEAD} \u201cWhen ripgrep doesn't use memory maps, binary "
                    "detection is performed on all bytes searched. This means that whether a "
                    "file is detected as binary or not can change based on the search strategy "
                    "used by ripgrep.\u201d [1]")


def test_an_explanation_from_the_wrong_passage_gives_way_to_the_one_stating_the_question():
    text, _ = shown("The public key is shared with the payee.",
                    "Why should a new key pair be used for each transaction?")
    assert text.startswith(f"{EXPLAINED_LEAD} \u201cAs an additional firewall, a new key pair "
                           "should be used for each transaction to keep them from being linked "
                           "to a common owner.\u201d [1]")
    assert "shared with the payee" not in text


def test_the_models_invented_words_about_it_are_marked_after_the_quote():
    text, _ = shown("There is no preemptive multitasking. The crawler was written by Guido van "
                    "Rossum in 2014.",
                    "Why does the callback-based crawler need no mutex around changes to "
                    "seen_urls?")
    assert text.startswith(EXPLAINED_LEAD)
    assert text.endswith(UNSUPPORTED_MARK)


def test_a_refusal_the_model_wrote_stays_a_refusal():
    text, _ = shown("Not found in the documents.",
                    "Why does the callback-based crawler need no mutex around changes to "
                    "seen_urls?")
    assert text.startswith("The documents don't say why")
    assert EXPLAINED_LEAD not in text


def test_a_question_naming_what_no_passage_mentions_is_not_explained():
    text, _ = shown("Because of Kubernetes.",
                    "Why does the callback-based crawler need no Kubernetes mutex around "
                    "changes to seen_urls?")
    assert not text.startswith(EXPLAINED_LEAD)
    assert "Kubernetes" in text.split("\n\n")[0]


def test_no_sentence_stating_enough_of_the_question_leaves_the_verdict_to_decide():
    # "The fetcher keeps its socket open ..." states half of what is asked
    text, _ = shown("Because of the event loop.",
                    "Why does the fetcher keep its socket open after the whole crawl ends badly?")
    assert EXPLAINED_LEAD not in text


def test_a_factoid_is_not_explained():
    text, _ = shown("**Its socket**.",
                    "What does the fetcher keep open until the response is read?")
    assert text.startswith("**Its socket**. \u201cThe fetcher keeps its socket open")


def test_a_heading_after_the_sentence_is_not_quoted_as_its_reason():
    guide = ("Finally, if you want to make absolutely sure that ripgrep isn't reading a "
             "configuration file, then you can pass the `--no-config` flag.\n\n"
             "### File encoding\n\nripgrep searches UTF-8 text by default.")
    text, _ = shown("Pass the flag.", "How do I make sure ripgrep isn't reading a configuration "
                    "file?", passages=(guide,))
    assert text == (f"{EXPLAINED_LEAD} \u201cFinally, if you want to make absolutely sure that "
                    "ripgrep isn't reading a configuration file, then you can pass the "
                    "`--no-config` flag.\u201d [1]")


def test_the_models_restatement_of_the_question_is_left_out_not_marked():
    text, _ = shown("**The callback-based crawler needs no mutex around changes to seen_urls**.",
                    "Why does the callback-based crawler need no mutex around changes to "
                    "seen_urls?")
    assert text.startswith(EXPLAINED_LEAD) and text.endswith("code.\u201d [1]")


def test_a_code_fence_after_the_sentence_is_not_quoted():
    guide = ("If you want a type to be available in every ripgrep command, then you should "
             "either create a shell alias:\n\n```\nalias rg=\"rg --type-add 'web:*.html'\"\n```")
    text, _ = shown("Create an alias.", "How do I make a custom file type available in every "
                    "ripgrep command?", passages=(guide,))
    assert text.startswith(f"{EXPLAINED_LEAD} \u201cIf you want a type to be available")
    assert "```" not in text


def test_the_source_an_explanation_quotes_is_quoted_in_the_answer_not_nearest():
    from ragcore.present.support import QUOTED

    text, listing = shown("Because the strategy differs.",
                          "Why can the same file be detected as binary in one search and not in "
                          "another?")
    source = listing.shown[0]
    assert source.number == 1 and source.use.note == QUOTED
    (start, end), = source.use.spans
    assert source.scored.node.text[start:end].startswith("When ripgrep doesn't use memory maps")
    assert source.scored.node.text[start:end].endswith("used by ripgrep.")


def test_the_explanation_is_searched_for_once_per_reply(monkeypatch):
    # the reply's text and its source's note both need it: one search serves both
    import ragcore.present.answer_quotes as answer_quotes

    answer_quotes._explanation.cache_clear()  # another test's reply is no search of this one
    searched = []
    real = answer_quotes.asked_share
    monkeypatch.setattr(answer_quotes, "asked_share",
                        lambda *args: searched.append(args[1]) or real(*args))
    question = "Why is a new key pair used for each transaction to keep them apart?"
    text, listing = shown("To keep them apart.", question, passages=(KEYS,))
    assert text.startswith(EXPLAINED_LEAD) and listing.shown[0].use.spans
    assert len(searched) == len(set(searched)) == 2  # KEYS's two sentences, each read once


def test_of_sentences_stating_the_question_the_reader_chooses_the_one_answering_it():
    # the altitude sentence repeats more of the question's words (0.83 against 0.67); the
    # trained reader finds the season's sentence stating the answer (0.82 against 0.79)
    from ragcore.grounding.stating import reader_available

    if not reader_available():
        import pytest
        pytest.skip("the reader's weights ship in ragcore/reading/weights")
    altitude = ("Altitude has an effect on the amount of rain the valley gets because higher "
                "slopes catch more clouds.")
    season = ("The season affects the rain the valley gets because the monsoon winds blow only "
              "in summer.")
    text, _ = shown("**The season**. It changes the rain.",
                    "Why does the season have an effect on the amount of rain the valley gets?",
                    (altitude, season))
    assert text.startswith(EXPLAINED_LEAD) and "monsoon winds blow only in summer" in text, text
    assert "higher slopes" not in text, text


PINNING = ("A pinned toolchain applies only to the current build. If you want a toolchain to be "
           "pinned for every build of the project, then you should either add it to the "
           "project's settings file:\n\n```\n[toolchain]\nchannel = \"1.79\"\n```\n\nor set the "
           "`TOOLCHAIN` variable in your shell's profile.\n\n## Components\n\nComponents are "
           "installed separately.")


def test_a_quote_ending_in_a_colon_goes_on_through_what_it_introduces():
    text, _ = shown("Add it to the settings file.",
                    "How do I pin a toolchain for every build of the project?", (PINNING,))
    assert text.startswith(f"{EXPLAINED_LEAD} \u201cIf you want a toolchain to be pinned")
    # the block it introduces (its fences left out) and the sentence continuing after it
    assert ("settings file: [toolchain] channel = \"1.79\" or set the `TOOLCHAIN` variable in "
            "your shell's profile.\u201d [1]") in " ".join(text.split())
    assert "```" not in text and "Components" not in text
