"""A question worded as nested noun phrases walks the chain it names (a family KG made for this test, real Neo4j,
real encoders, no LLM): with the observation cut to one path per level, the zero-shot answer misses the chain and
the parsed chain finds it; a question that is not such a phrase is not parsed; the trace says what was read. A
question about a shared value ("the same mother as X") is answered by a relation there and back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import stored_trace
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import ask, run_questions
from kgagents.loaders.qa import EntityRef, Question
from tests.agent_kgqa.conftest import load_prepared
from tests.scripted_chat import ScriptedChatModel

KG = "family"
TRIPLES = """Ada Quill|spouse|Bram Quill
Bram Quill|spouse|Ada Quill
Ada Quill|mother|Cora Vane
Bram Quill|mother|Dina Quill
Ada Quill|place_of_birth|Leeds
Bram Quill|place_of_birth|York
Cora Vane|place_of_birth|Bath
Dina Quill|place_of_birth|Hull
Cora Vane|spouse|Evan Vane
Dina Quill|spouse|Fred Quill
Evan Vane|place_of_birth|Derby
Fred Quill|place_of_birth|Wells
Ada Quill|occupation|engineer
Bram Quill|occupation|teacher
Gail Vane|mother|Cora Vane
Gail Vane|place_of_birth|Bath
"""


@pytest.fixture(scope="module")
def family(neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Graph]:
    kb = tmp_path_factory.mktemp("family") / "family_kb.txt"
    kb.write_text(TRIPLES, encoding="utf-8")
    with Graph(neo4j_settings) as g:
        yield load_prepared(g, Path(kb), KG)


def _question(text: str, answer: str) -> Question:
    return Question(id="q", dataset="t", question=text, topic_entities=[EntityRef(id="Ada Quill", name="Ada Quill")],
                    answers=[EntityRef(id=answer, name=answer)])


def test_a_noun_phrase_question_walks_the_chain_it_names(family: Graph) -> None:
    narrow = KGQASettings(mode="no_llm", memory=False, top_n=1, min_expand=1)
    q = _question("what is the place of birth of Ada Quill's husband's mother", "Hull")  # spouse → mother → born
    unread = run_questions(family, KG, [q], narrow.model_copy(update={"parse_weight": 0.0}), None)
    assert unread.output.results[0].answer != "Hull"  # one path per level: the chain is not reached
    read = run_questions(family, KG, [q], narrow, None)
    assert read.output.results[0].answer == "Hull"
    assert read.output.results[0].path == "spouse → mother → place of birth"
    trace = stored_trace(family, read.run_id, "q")
    assert trace is not None
    assert trace["trace"]["parsed_chain"] == ["spouse", "mother", "place_of_birth"]
    assert trace["trace"]["parsed_mentions"] == ["husband", "mother", "place of birth"]


def test_a_question_that_is_not_a_noun_phrase_is_not_parsed(family: Graph) -> None:
    q = _question("where was Ada Quill's husband's mother born", "Hull")
    run = run_questions(family, KG, [q], KGQASettings(mode="no_llm", memory=False), None)
    trace = stored_trace(family, run.run_id, "q")
    assert trace is not None and "parsed_chain" not in trace["trace"]


def test_a_shared_value_is_a_relation_there_and_back(family: Graph) -> None:
    q = _question("who has the same mother as Ada Quill", "Gail Vane")
    plain = KGQASettings(mode="no_llm", memory=False)
    off = run_questions(family, KG, [q], plain.model_copy(update={"share_weight": 0.0}), None).output.results[0]
    on = run_questions(family, KG, [q], plain, None).output.results[0]
    assert off.answer != "Gail Vane"
    assert on.answer == "Gail Vane" and on.path == "mother → mother (inverse)"


def test_a_possessive_topic_is_linked_from_plain_words(family: Graph) -> None:
    asked = ask(family, KG, "what is the place of birth of Ada Quill's husband's mother",
                settings=KGQASettings(mode="no_llm", memory=False))
    assert asked.linked and asked.linked[0]["name"] == "Ada Quill"  # "Quill's" names "Quill"
    assert asked.result.answer == "Hull"


def test_a_models_chain_naming_a_shared_relation_once_counts_there_and_back(family: Graph) -> None:
    # SCRIPTED chat model: it writes "mother" once, as the local model does; the question asks for a shared value
    q = _question("who has the same mother as Ada Quill", "Gail Vane")
    checked = KGQASettings(mode="gated", memory=False, confident=0.0, chain_weight=1.0)
    chat = ScriptedChatModel([json.dumps({"chain": ["mother"]})])
    result = run_questions(family, KG, [q], checked, chat).output.results[0]
    assert [c["purpose"] for c in chat.calls] == ["kgqa:chain"]
    assert result.answer == "Gail Vane" and result.path == "mother → mother (inverse)"
