"""The local server is real Neo4j 5.26 with GDS and APOC, and errors are actionable."""

from __future__ import annotations

import os
import urllib.request

import pytest
from pydantic import SecretStr

from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.errors import Neo4jAuthError, Neo4jUnavailableError
from kgagents.graph.connection import Graph
from kgagents.servers.neo4j import LocalNeo4j, pinned_versions


def test_server_is_neo4j_526_with_gds(graph: Graph) -> None:
    comp = graph.run("server/components")[0]
    assert comp["version"].startswith("5.26.")
    assert comp["edition"] == "community"
    plugins = {row["prefix"]: row["n"] for row in graph.run("server/plugin_procedures")}
    assert plugins.get("gds", 0) > 10  # only the allowed families (see test_server_security.py)


def test_gds_knn_is_listed(graph: Graph) -> None:
    names = {row["name"] for row in graph.run_text("SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'gds.knn' RETURN name")}
    assert {"gds.knn.stream", "gds.knn.filtered.stream"} <= names


def test_pinned_versions_match_running_server(graph: Graph) -> None:
    versions = pinned_versions()
    assert graph.run("server/components")[0]["version"] == versions["neo4j"]


def test_unreachable_server_gives_start_instructions() -> None:
    with pytest.raises(Neo4jUnavailableError, match="kgagents neo4j start"):
        Graph(Neo4jSettings(uri="bolt://127.0.0.1:1")).driver  # noqa: B018 - the property connects


def test_wrong_password_is_an_auth_error(neo4j_settings: Neo4jSettings) -> None:
    bad = neo4j_settings.model_copy(update={"password": SecretStr("definitely-wrong")})
    with pytest.raises(Neo4jAuthError, match="KGAGENTS_NEO4J_PASSWORD"):
        Graph(bad).driver  # noqa: B018 - the property connects


def test_start_twice_is_harmless(local_server: LocalNeo4j | None) -> None:
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: no local server of the session")
    pid_before = local_server.pid()
    status = local_server.start()
    assert status.running and local_server.pid() == pid_before


@pytest.mark.skipif(os.environ.get("KGAGENTS_TEST_USE_CONFIGURED") == "1", reason="HTTP port of a server we did not start")
def test_neo4j_browser_is_served_at_the_http_port(local_server_settings: LocalServerSettings) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{local_server_settings.http_port}/browser/", timeout=30) as response:
        assert response.status == 200
        assert "<title>Neo4j Browser</title>" in response.read().decode("utf-8", "replace")
