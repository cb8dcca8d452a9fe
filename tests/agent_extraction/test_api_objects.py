"""The extraction API takes the graph as a Driver, URI or Graph and the LLM as any LangChain chat model; other
objects are one clear UnsupportedObjectError (issue 18, item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from neo4j import GraphDatabase

from kgagents.config import Neo4jSettings
from kgagents.errors import UnsupportedObjectError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.extraction import extract_document, feed_document
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import label_triples
from kgagents.tools.runtime import ToolRuntime

TEXT = "The AWH Engineering College has 250 academic staff."


@pytest.fixture(scope="module")
def university(shared_data: Path):  # noqa: ANN201
    return compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "1_university_ontology.json")


def test_wrong_objects_are_refused_before_anything_runs(university) -> None:  # noqa: ANN001
    with pytest.raises(UnsupportedObjectError, match="neo4j.Driver"):
        ToolRuntime(object(), university)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedObjectError, match="ToolCatalogue"):
        ToolRuntime("bolt://127.0.0.1:1", "university.json")  # type: ignore[arg-type]
    with pytest.raises(UnsupportedObjectError, match="neo4j.Driver"):
        feed_document(42, university, [("a", "country", "b")])  # type: ignore[arg-type]
    with pytest.raises(UnsupportedObjectError, match="BaseChatModel"):
        extract_document("bolt://127.0.0.1:1", university, TEXT, chat="gpt-4o")


@pytest.mark.integration
def test_a_uri_a_driver_and_a_langchain_model_work(graph: Graph, neo4j_settings: Neo4jSettings, university,  # noqa: ANN001
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGAGENTS_NEO4J_USER", neo4j_settings.user)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    run = feed_document(neo4j_settings.uri, university, [("AWH", "academicStaffSize", "250")], abox="by-uri")
    assert run.output[0].triples == [("AWH", "academicStaffSize", "250")]
    auth = (neo4j_settings.user, neo4j_settings.password.get_secret_value())
    with GraphDatabase.driver(neo4j_settings.uri, auth=auth) as driver:
        runtime = ToolRuntime(driver, university, abox="by-driver")
        assert runtime.call("create_University", {"label": "AWH"}).ok
        college = {"name": "AWH Engineering College", "class": "University"}
        replies = iter([AIMessage(json.dumps({"entities": [college]})),
                        AIMessage(json.dumps({"facts": [{"subject": "E1", "relation": "academicStaffSize",
                                                         "object": "250"}]}))])
        chat = GenericFakeChatModel(messages=replies)
        run = extract_document(driver, university, TEXT, chat=chat, abox="by-langchain")
    assert label_triples(graph, "by-driver") == [] and label_triples(graph, "by-langchain") == [
        ("AWH Engineering College", "academicStaffSize", "250")]
    assert run.llm.calls == 2 and RunStore(graph).get(run.run_id).get("llm_calls") == 2


def test_the_extract_job_feeds_triples_and_needs_a_model_for_text(university) -> None:  # noqa: ANN001
    from kgagents.errors import ChatModelRequiredError, InputFileError
    from kgagents.jobs.extraction import extract

    with pytest.raises(ChatModelRequiredError, match="nothing is extracted"):
        extract("bolt://127.0.0.1:1", university, text=TEXT)
    with pytest.raises(InputFileError, match="not both"):
        extract("bolt://127.0.0.1:1", university, text=TEXT, triples=[("a", "country", "b")])
