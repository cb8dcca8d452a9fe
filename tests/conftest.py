"""Test session fixtures: a real Neo4j server, started for the session, never a mock.

The test server is its own instance (ports 17687/17474, data under the kgagents cache in
``instances/test``) so running the tests never touches the user's database; KGAGENTS_TEST_INSTANCE,
KGAGENTS_TEST_BOLT_PORT, KGAGENTS_TEST_HTTP_PORT and KGAGENTS_TEST_HEAP run several side by side. Set
``KGAGENTS_TEST_USE_CONFIGURED=1`` to run against the server KGAGENTS_NEO4J_* points at instead
(it will be wiped).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.graph.server import LocalNeo4j
from kgagents.paths import data_dir

SHARED_DATA = data_dir()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real benchmark data next to the project root (../shared/data)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def local_server_settings() -> LocalServerSettings:
    """The test server instance (its own name, ports and memory; see the module docstring)."""
    return LocalServerSettings(instance=os.environ.get("KGAGENTS_TEST_INSTANCE", "test"),
                               bolt_port=int(os.environ.get("KGAGENTS_TEST_BOLT_PORT", "17687")),
                               http_port=int(os.environ.get("KGAGENTS_TEST_HTTP_PORT", "17474")),
                               heap=os.environ.get("KGAGENTS_TEST_HEAP", "2g"), pagecache="512m")


@pytest.fixture(scope="session")
def neo4j_settings(local_server_settings: LocalServerSettings) -> Iterator[Neo4jSettings]:
    """Start (or reuse) the test server and yield settings that reach it."""
    if os.environ.get("KGAGENTS_TEST_USE_CONFIGURED") == "1":
        yield Neo4jSettings()
        return
    settings = Neo4jSettings(uri=f"bolt://127.0.0.1:{local_server_settings.bolt_port}", password="kgagents-test")
    server = LocalNeo4j(local_server_settings, settings)
    already_running = server.pid() is not None
    server.start()
    yield settings
    if not already_running and os.environ.get("KGAGENTS_TEST_KEEP_SERVER") != "1":
        server.stop()


@pytest.fixture
def graph(neo4j_settings: Neo4jSettings) -> Iterator[Graph]:
    """A connection to an empty database with the schema in place."""
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        ensure_schema(g)
        yield g
