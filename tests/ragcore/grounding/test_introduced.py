"""An answer in the lines a sentence introduces (issue 64): a manual states what a directive does
in prose, then shows it in the lines after a colon ("The two configurations directives to use
are:"). The answer held there is located by the introduction when it states what was asked, and
refused when it does not."""

from __future__ import annotations

from ragcore.grounding.verdict import SUPPORTED, UNSUPPORTED, check_answer

DOCKER = ("When Docker, or other types of containers using port forwarding, or Network Address "
          "Translation is used, Redis replication needs some extra care. Redis 3.2.2 introduced "
          "the ability to force a replica to announce an arbitrary pair of IP and port to the "
          "master. The two configurations directives to use are:\n\n"
          "    replica-announce-ip 5.5.5.5\n    replica-announce-port 1234\n\n"
          "And are documented in the example redis.conf of recent Redis distributions.")
ASKED = "Which directive makes a replica announce an arbitrary port to the master?"


def test_an_answer_in_the_lines_a_stating_sentence_introduces_is_located():
    verdict = check_answer("**replica-announce-port**.", [DOCKER], question=ASKED)
    assert verdict.label == SUPPORTED
    start, end = verdict.claims[0].support[0][1]
    assert "replica-announce-port" in DOCKER[start:end]


def test_nor_when_the_introduction_states_another_question():
    asked = "What is the default size of the Redis replication backlog?"
    assert check_answer("**1234**.", [DOCKER], question=asked).label == UNSUPPORTED


def test_nor_without_the_colon_that_introduces_the_lines():
    plain = DOCKER.replace("directives to use are:", "directives exist.")
    assert check_answer("**replica-announce-port**.", [plain], question=ASKED).label \
        == UNSUPPORTED


# The sentences after an answer's, each pointing back to the one before: the last states what
# was asked ("This is where Intel ..."), the first holds the answer (the conversation
# benchmark's turn 4, where the check refused "Columbus, Ohio" quoting the Intel sentence).
OHIO = ("If you travel 20 miles east of Columbus, Ohio, you'll find 1,000 empty acres of land. "
        "It won't look like much, but if you stop and look closely, you'll see a field of "
        "dreams. This is where Intel is going to build its $20 billion semiconductor mega site.")
WHERE = "Where is Intel going to build its semiconductor mega site?"


def test_an_answer_the_sentences_after_it_point_back_to_is_located():
    verdict = check_answer("**Columbus, Ohio**.", [OHIO], question=WHERE)
    assert verdict.label == SUPPORTED
    start, end = verdict.claims[0].support[0][1]
    assert OHIO[start:end].startswith("If you travel") and OHIO[start:end].endswith("mega site.")


def test_nor_when_a_sentence_between_does_not_point_back():
    broken = OHIO.replace("It won't look like much", "Farmers won't notice much")
    assert check_answer("**Columbus, Ohio**.", [broken], question=WHERE).label == UNSUPPORTED
