"""Question sets: JSON round trip (and LlamaIndex's files), a user's CSV/JSONL, a model's
questions (bad replies reported, not fatal), and offline questions from passages."""

from __future__ import annotations

import json

import pytest

from support.loopback import Reply, loopback  # noqa: F401 (fixture)

from ragcore.errors import ConfigError
from ragcore.evaluation import (
    EmbeddingQAFinetuneDataset,
    generate_offline_questions,
    generate_question_context_pairs,
    import_questions,
)
from ragcore.evaluation.questions.generated import parse_questions
from ragcore.llms.fake import FakeLLM
from ragcore.types import Node

PROSE = ("The heron waits in the shallow water of the marsh for hours without moving. "
         "When a silver fish swims close to its legs, the heron strikes with its long neck. "
         "Herons build their nests high in the alder trees along the river bank every spring. "
         "Young herons leave the colony after about seven weeks of careful feeding.")
OTHER = ("Granite forms when magma cools slowly deep below the surface of the earth. "
         "Its large crystals of quartz and feldspar can be seen without a magnifying glass. "
         "Quarries along the coast have cut granite for harbour walls since medieval times. "
         "Polished granite keeps its shine for centuries in city buildings and bridges.")


def passages() -> list[Node]:
    return [Node(text=PROSE, node_id="heron"), Node(text=OTHER, node_id="granite"),
            Node(text="Chapter 3: Birds", node_id="heading"),
            Node(text="| a | b |\n| 1 | 2 |\n| 3 | 4 |", node_id="table")]


def test_a_question_set_round_trips_and_reads_llamaindex_files(tmp_path):
    dataset = EmbeddingQAFinetuneDataset(
        {"q1": "Where do herons nest?"}, {"heron": PROSE}, {"q1": ["heron"]},
        reference_answers={"q1": "In alder trees."}, origin="test", problems=["one"])
    dataset.save_json(tmp_path / "set.json")
    assert EmbeddingQAFinetuneDataset.from_json(tmp_path / "set.json") == dataset
    assert dataset.query_docid_pairs == [("Where do herons nest?", ["heron"])]
    llamaindex = {"queries": {"a": "Q?"}, "corpus": {"n": "text"}, "relevant_docs": {"a": ["n"]},
                  "mode": "text"}
    (tmp_path / "li.json").write_text(json.dumps(llamaindex))
    assert EmbeddingQAFinetuneDataset.from_json(tmp_path / "li.json").relevant_docs == \
        {"a": ["n"]}
    (tmp_path / "bad.json").write_text('{"format": "ragcore-chat", "messages": []}')
    with pytest.raises(ConfigError, match="not a question set"):
        EmbeddingQAFinetuneDataset.from_json(tmp_path / "bad.json")


def test_import_csv_with_answers_and_sources(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text('Question,expected_answer,expected_source\n'
                    '"Where, exactly, do herons nest?",In alder trees,birds.txt; nature.pdf\n'
                    'What is granite?,,\n', encoding="utf-8")
    dataset = import_questions(path)
    assert list(dataset.queries.values()) == ["Where, exactly, do herons nest?",
                                              "What is granite?"]
    assert dataset.reference_answers == {"q001": "In alder trees"}
    assert dataset.expected_sources == {"q001": ["birds.txt", "nature.pdf"]}
    assert dataset.expected_ids("q001") == ["birds.txt", "nature.pdf"]


def test_import_errors_name_the_line(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"question": "Where do herons nest?", "answer": "alder trees"}\n\n'
                    '{"question": "broken\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mine.jsonl:3: not JSON"):
        import_questions(path)
    path.write_text('{"question": "ok?"}\n{"expected_answer": "no question"}\n')
    with pytest.raises(ConfigError, match=r"mine.jsonl:2: no question"):
        import_questions(path)
    csv_path = tmp_path / "mine.csv"
    csv_path.write_text("query,answer\nok?,yes\nno, comma, quoted,x\n")
    with pytest.raises(ConfigError, match=r"mine.csv:3: more cells"):
        import_questions(csv_path)
    csv_path.write_text("text,answer\nok?,yes\n")
    with pytest.raises(ConfigError, match=r"mine.csv:1: .*no 'question' column"):
        import_questions(csv_path)


def test_import_keeps_a_repeated_question_once_and_says_so(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "Why?"}\n{"question": " Why? "}\n')
    dataset = import_questions(path)
    assert len(dataset) == 1 and "q.jsonl:2" in dataset.problems[0]


def test_parse_questions_strips_numbering_and_keeps_questions():
    reply = "Here are the questions:\n1. Where do herons nest?\nQ2: How long do they wait?\n"
    assert parse_questions(reply, 5) == ["Where do herons nest?", "How long do they wait?"]
    assert parse_questions("- Name the bird that waits\n", 2) == ["Name the bird that waits"]
    assert parse_questions("Sorry, no question comes to mind.", 2) == []


def test_model_questions_go_with_their_passage_and_a_bad_reply_is_reported():
    llm = FakeLLM(["1. Where do herons nest?\n2. What do herons eat?", "I cannot."])
    dataset = generate_question_context_pairs(passages()[:2], llm, num_questions_per_chunk=2)
    assert list(dataset.queries.values()) == ["Where do herons nest?", "What do herons eat?"]
    assert dataset.relevant_docs == {"q001": ["heron"], "q002": ["heron"]}
    assert "granite" in dataset.problems[0] and "I cannot." in dataset.problems[0]
    assert "2 questions" in llm.calls[0][0].content and PROSE in llm.calls[0][0].content
    with pytest.raises(ConfigError, match="no usable question"):
        generate_question_context_pairs(passages()[:1], FakeLLM(["no"]))


def test_offline_questions_are_seeded_and_skip_headings_and_tables():
    first = generate_offline_questions(passages(), num_questions=5, seed=3)
    again = generate_offline_questions(passages(), num_questions=5, seed=3)
    assert first == again and len(first) == 2
    assert set(d for ids in first.relevant_docs.values() for d in ids) == {"heron", "granite"}
    for qid, query in first.queries.items():
        assert query.startswith("What does the text say about ")
        assert first.reference_answers[qid] in first.corpus[first.relevant_docs[qid][0]]
    assert "2 of 4 passages skipped" in first.problems[0]
    held_out = generate_offline_questions(passages(), num_questions=1, seed=3, style="sentence")
    only = next(iter(held_out.queries))
    assert held_out.queries[only] == held_out.reference_answers[only]


def test_a_key_phrase_names_the_rarest_words_in_sentence_order():
    from ragcore.evaluation.questions.offline import key_phrase_query

    sentence = "Young herons leave the colony after about seven weeks of careful feeding."
    rarity = {"colony": 3.0, "feed": 2.5, "seven": 2.0, "young": 1.5, "week": 1.2, "heron": 0.1}
    assert key_phrase_query(sentence, rarity) == \
        "What does the text say about Young colony seven weeks feeding?"


def test_a_key_phrase_leaves_out_numbers_and_the_stems_of_contractions():
    from ragcore.evaluation.questions.offline import key_phrase_query

    sentence = "Families shouldn\u2019t pay more than 7% of their income for young children."
    rarity = {"shouldn": 9.0, "7": 8.0, "family": 3.0, "incom": 2.0, "young": 1.5,
              "children": 1.2, "pay": 1.0}
    assert key_phrase_query(sentence, rarity) == \
        "What does the text say about Families pay income young children?"


def test_every_passage_holding_the_sentence_is_relevant():
    overlap = Node(text="Intro words here. " + PROSE, node_id="overlap")
    dataset = generate_offline_questions([Node(text=PROSE, node_id="heron"), overlap],
                                         num_questions=1, seed=1)
    assert sorted(next(iter(dataset.relevant_docs.values()))) == ["heron", "overlap"]


def test_offline_questions_from_nothing_usable_say_what_to_do():
    with pytest.raises(ConfigError, match="import questions instead"):
        generate_offline_questions(passages()[2:], num_questions=3)


def test_questions_written_by_a_model_behind_the_loopback_openai_server(loopback):
    from ragcore.llms.openai import OpenAILLM

    llm = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url, retry_backoff=0.0,
                    timeout=5.0, max_retries=0)
    loopback.queue(Reply(text="1. Where do herons nest?"), Reply(status=500, error="down"))
    dataset = generate_question_context_pairs(passages()[:2], llm, num_questions_per_chunk=1)
    assert dataset.queries == {"q001": "Where do herons nest?"}
    assert dataset.origin == "written by openai:gpt-4o-mini"
    assert "granite: the model failed" in dataset.problems[0]
