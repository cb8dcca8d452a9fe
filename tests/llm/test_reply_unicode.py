"""A reply carrying a lone UTF-16 surrogate (half an emoji, sent as a JSON escape) cannot crash a run:
the client hands on valid text, and `kgagents match` stores it in Neo4j."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import LLMSettings, Neo4jSettings
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.llm import OpenAIChatModel
from tests.llm.conftest import Answer, FakeEndpoint

HALF_EMOJI = "\ud83d"


def test_lone_surrogates_in_a_reply_become_replacement_characters(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text=f"a paper {HALF_EMOJI} about \U0001F600 things")]
    chat = OpenAIChatModel(LLMSettings(base_url=fake_endpoint.base_url, model="fake-model"))
    text = chat.complete([{"role": "user", "content": "describe"}], purpose="test").text
    assert text == "a paper \ufffd about \U0001F600 things"
    text.encode("utf-8")  # valid: would raise UnicodeEncodeError otherwise


def test_match_survives_replies_with_lone_surrogates_in_the_texts_stage(
        graph: Graph, neo4j_settings: Neo4jSettings, fake_endpoint: FakeEndpoint, fixtures: Path) -> None:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    fake_endpoint.answers = [Answer(text=f"yes {HALF_EMOJI} it is a scholarly item") for _ in range(400)]
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri, "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
           "KGAGENTS_LLM_BASE_URL": fake_endpoint.base_url, "KGAGENTS_LLM_MODEL": "fake-model"}
    d = fixtures / "matching"
    result = CliRunner().invoke(app, ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl")], env=env)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    stored = graph.run_text("MATCH (r:Resource) WHERE r.om_lexical IS NOT NULL RETURN r.om_lexical AS t")
    assert stored and all("\ufffd" in row["t"] for row in stored)
