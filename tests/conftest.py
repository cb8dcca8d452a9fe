"""Test session fixtures: a real Neo4j server, started for the session, never a mock.

Two tiers: a test that uses the server (through any of the fixtures in :data:`SERVER_FIXTURES`) is marked
``integration`` here, automatically; every other test is the unit tier, which needs no server and runs in under a
minute (``pytest -m "not integration"``). Tests of the shared benchmark data skip, not fail, when it is absent.

The test server is its own instance (ports 17687/17474, data under the kgagents cache in
``instances/test``, its own generated password in ``instances/test/password``) so running the tests never touches
the user's database; KGAGENTS_TEST_INSTANCE,
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
from kgagents.paths import data_dir
from kgagents.servers.neo4j import LocalNeo4j

SHARED_DATA = data_dir()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


#: fixtures that start or reach the test server: a test using one is in the integration tier
SERVER_FIXTURES = frozenset({"graph", "neo4j_settings", "local_server", "local_server_settings"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the server ``integration`` (so ``-m "not integration"`` is the unit tier)."""
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session", autouse=True)
def _own_vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tests' vector cache (kgagents.embeddings.cache) is their own, not the user's."""
    from kgagents.embeddings.cache import default_cache

    before = os.environ.get("KGAGENTS_EMBED_CACHE_DIR")
    os.environ["KGAGENTS_EMBED_CACHE_DIR"] = str(tmp_path_factory.mktemp("vectors"))
    default_cache.cache_clear()
    yield
    if before is None:
        os.environ.pop("KGAGENTS_EMBED_CACHE_DIR", None)
    else:
        os.environ["KGAGENTS_EMBED_CACHE_DIR"] = before
    default_cache.cache_clear()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real benchmark data next to the project root (../shared/data, or KGAGENTS_DATA_DIR); the test skips
    when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared benchmark data not found at {SHARED_DATA} (set KGAGENTS_DATA_DIR)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


def _worker_index() -> int:
    """0 for a plain run; the pytest-xdist worker's number (gw0, gw1, …) when the tests run in parallel."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


@pytest.fixture(scope="session")
def local_server_settings() -> LocalServerSettings:
    """The test server instance (its own name, ports and memory; see the module docstring). Parallel workers
    (``pytest -n 2``) each get their own instance, its ports 1000 higher per worker."""
    index = _worker_index()
    instance = os.environ.get("KGAGENTS_TEST_INSTANCE", "test")
    return LocalServerSettings(instance=f"{instance}-{index}" if index else instance,
                               bolt_port=int(os.environ.get("KGAGENTS_TEST_BOLT_PORT", "17687")) + 1000 * index,
                               http_port=int(os.environ.get("KGAGENTS_TEST_HTTP_PORT", "17474")) + 1000 * index,
                               heap=os.environ.get("KGAGENTS_TEST_HEAP", "2g"), pagecache="512m")


@pytest.fixture(scope="session")
def local_server(local_server_settings: LocalServerSettings) -> Iterator[LocalNeo4j | None]:
    """The test session's own server instance (started here, stopped after the session unless it was
    already running or KGAGENTS_TEST_KEEP_SERVER=1); ``None`` with KGAGENTS_TEST_USE_CONFIGURED=1."""
    if os.environ.get("KGAGENTS_TEST_USE_CONFIGURED") == "1":
        yield None
        return
    # the instance's own password (generated on its first start, kept in its password file), whatever
    # KGAGENTS_NEO4J_* say about the user's server: model_construct reads no environment
    server = LocalNeo4j(local_server_settings,
                        Neo4jSettings.model_construct(uri=f"bolt://127.0.0.1:{local_server_settings.bolt_port}"))
    already_running = server.pid() is not None
    server.start()  # refuses a taken port, and a server on the port that is not this instance
    yield server
    if not already_running and os.environ.get("KGAGENTS_TEST_KEEP_SERVER") != "1":
        server.stop()


@pytest.fixture(scope="session")
def neo4j_settings(local_server: LocalNeo4j | None) -> Neo4jSettings:
    """Settings that reach the test server."""
    if local_server is None:
        return Neo4jSettings()
    return local_server.neo4j


@pytest.fixture
def graph(neo4j_settings: Neo4jSettings, local_server: LocalNeo4j | None) -> Iterator[Graph]:
    """A connection to an empty database with the schema in place.

    The wipe runs only after checking that the server answering is the session's own instance: a
    test run never empties a database it did not create (e.g. another run's, on a clashing port).
    """
    with Graph(neo4j_settings) as g:
        if local_server is not None:
            local_server.verify_identity(g)
        g.run("admin/wipe")
        ensure_schema(g)
        yield g
