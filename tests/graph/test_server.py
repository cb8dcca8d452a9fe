"""The local server is real Neo4j 5.26 with GDS and APOC, and errors are actionable."""

from __future__ import annotations

import os
import urllib.request

import pytest
from pydantic import SecretStr

from kgagents.config import Neo4jSettings
from kgagents.errors import Neo4jAuthError, Neo4jUnavailableError
from kgagents.graph.connection import Graph
from kgagents.graph.server import LocalNeo4j, pinned_versions


def test_server_is_neo4j_526_with_gds_and_apoc(graph: Graph) -> None:
    comp = graph.run("server/components")[0]
    assert comp["version"].startswith("5.26.")
    assert comp["edition"] == "community"
    plugins = {row["prefix"]: row["n"] for row in graph.run("server/plugin_procedures")}
    assert plugins.get("gds", 0) > 100
    assert plugins.get("apoc", 0) > 100


def test_gds_knn_is_listed(graph: Graph) -> None:
    names = {row["name"] for row in graph.run_text("SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'gds.knn' RETURN name")}
    assert {"gds.knn.stream", "gds.knn.filtered.stream"} <= names


def test_pinned_versions_match_running_server(graph: Graph) -> None:
    versions = pinned_versions()
    assert graph.run("server/components")[0]["version"] == versions["neo4j"]


def test_unreachable_server_gives_start_instructions() -> None:
    with pytest.raises(Neo4jUnavailableError, match="kgagents neo4j start"):
        Graph(Neo4jSettings(uri="bolt://127.0.0.1:1")).driver


def test_wrong_password_is_an_auth_error(neo4j_settings: Neo4jSettings) -> None:
    bad = neo4j_settings.model_copy(update={"password": SecretStr("definitely-wrong")})
    with pytest.raises(Neo4jAuthError, match="KGAGENTS_NEO4J_PASSWORD"):
        Graph(bad).driver


def test_start_twice_is_harmless(neo4j_settings: Neo4jSettings) -> None:
    from kgagents.config import LocalServerSettings

    import os

    port = int(os.environ.get("KGAGENTS_TEST_BOLT_PORT", "17687"))
    instance = os.environ.get("KGAGENTS_TEST_INSTANCE", "test")
    server = LocalNeo4j(LocalServerSettings(instance=instance, bolt_port=port), neo4j_settings)
    pid_before = server.pid()
    status = server.start()
    assert status.running and server.pid() == pid_before


@pytest.mark.skipif(os.environ.get("KGAGENTS_TEST_USE_CONFIGURED") == "1", reason="HTTP port of a server we did not start")
def test_neo4j_browser_is_served_at_the_http_port(neo4j_settings: Neo4jSettings) -> None:
    http = int(os.environ.get("KGAGENTS_TEST_HTTP_PORT", "17474"))
    with urllib.request.urlopen(f"http://127.0.0.1:{http}/browser/", timeout=30) as response:
        assert response.status == 200
        assert "<title>Neo4j Browser</title>" in response.read().decode("utf-8", "replace")
