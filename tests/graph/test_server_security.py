"""The local server only reports itself, keeps its password off command lines, loads only the
procedures the project calls, and writes a debug.log."""

from __future__ import annotations

import fnmatch
import re
import shutil
import socket
import subprocess
import uuid
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from kgagents.config import ALLOWED_PROCEDURES, LocalServerSettings, Neo4jSettings
from kgagents.credentials import initial_password_matches
from kgagents.errors import ForeignServerError, ServerInstallError
from kgagents.graph.connection import Graph
from kgagents.servers import neo4j as server_module
from kgagents.servers.neo4j import LocalNeo4j

CALLED_NAME = re.compile(r"\b((?:gds|apoc)\.[A-Za-z_][\w.]*[A-Za-z_\d])")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def other_instance(local_server: LocalNeo4j | None) -> Iterator[LocalNeo4j]:
    """A second instance configured (by mistake) with the session server's bolt port."""
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: no local server of the session")
    name = f"clash-{uuid.uuid4().hex[:8]}"
    settings = LocalServerSettings(home=local_server.server.home, instance=name, heap="256m", pagecache="64m",
                                   bolt_port=local_server.server.bolt_port, http_port=_free_port(),
                                   start_timeout_s=120)
    # the session server's password, so that what tells the two apart is the identity check, not a login
    other = LocalNeo4j(settings, Neo4jSettings(password=local_server.password()))
    yield other
    other.stop()
    shutil.rmtree(other.instance_dir, ignore_errors=True)


def _marker(graph: Graph) -> int:
    return graph.run_text("MATCH (n:ClashMarker) RETURN count(n) AS n")[0]["n"]


def test_start_refuses_a_bolt_port_another_instance_listens_on(graph: Graph, other_instance: LocalNeo4j) -> None:
    graph.run_text("CREATE (:ClashMarker)")
    with pytest.raises(ServerInstallError, match=f"bolt port {other_instance.server.bolt_port} .* already in use"):
        other_instance.start()
    assert other_instance.pid() is None
    assert _marker(graph) == 1


def test_a_started_server_must_be_this_instance_not_whoever_answers_the_port(
        graph: Graph, other_instance: LocalNeo4j, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race the port check cannot close: the port is taken after the check. The other instance's
    server answers Bolt while ours dies with "Address already in use"; start must not report it."""
    graph.run_text("CREATE (:ClashMarker)")
    monkeypatch.setattr(LocalNeo4j, "_check_ports_free", lambda self: None)
    with pytest.raises(ForeignServerError, match=f"not instance '{other_instance.server.instance}'"):
        other_instance.start()
    assert other_instance.pid() is None  # the launched process was stopped
    assert _marker(graph) == 1


def test_a_started_server_that_rejects_the_instance_password_is_stopped(
        graph: Graph, other_instance: LocalNeo4j, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another instance answers the port and, its password being its own, rejects ours: start fails and leaves
    no process behind."""
    stranger = LocalNeo4j(other_instance.server, Neo4jSettings(password=SecretStr("another-instance-password")))
    monkeypatch.setattr(LocalNeo4j, "_check_ports_free", lambda self: None)
    with pytest.raises(ServerInstallError, match="rejects the password"):
        stranger.start()
    assert stranger.pid() is None
    assert _marker(graph) == 0


def test_status_of_an_instance_whose_port_another_server_answers_is_an_error(other_instance: LocalNeo4j) -> None:
    with pytest.raises(ForeignServerError, match="Another instance uses that port"):
        other_instance.status()


def test_the_session_server_is_its_own_instance(graph: Graph, local_server: LocalNeo4j | None) -> None:
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: no local server of the session")
    local_server.verify_identity(graph)
    assert local_server.status().home == local_server.instance_dir


def test_initial_password_is_set_without_appearing_on_a_command_line(
        local_server: LocalNeo4j | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if local_server is None:
        pytest.skip("needs the installed local server jars")
    (tmp_path / local_server.dist.name).symlink_to(local_server.dist)
    password = 'pa ss"wo\\rd #1\'x'
    server = LocalNeo4j(LocalServerSettings(home=tmp_path, instance="pw"),
                        Neo4jSettings(password=SecretStr(password)))
    (server.instance_dir / "run").mkdir(parents=True)
    commands: list[list[str]] = []
    real_run = subprocess.run

    def recording_run(cmd: list[str], *args: Any, **kwargs: Any) -> Any:
        commands.append(list(cmd))
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(server_module.subprocess, "run", recording_run)
    server.set_initial_password()
    assert commands and not any(password in arg for cmd in commands for arg in cmd)
    assert initial_password_matches(server.instance_dir / "data" / "dbms" / "auth.ini", password)
    assert list((server.instance_dir / "run").iterdir()) == []  # the argument file is gone


def _cypher_files() -> list[Path]:
    root = resources.files("kgagents.cypher")
    return sorted(Path(str(root)).rglob("*.cypher"))


def test_every_gds_and_apoc_name_the_cypher_calls_is_allowed() -> None:
    called = {name for path in _cypher_files() for name in CALLED_NAME.findall(path.read_text(encoding="utf-8"))}
    assert "gds.knn.filtered.stream" in called  # the scan finds calls at all
    not_allowed = sorted(n for n in called if not any(fnmatch.fnmatchcase(n, p) for p in ALLOWED_PROCEDURES))
    assert not_allowed == [], f"add a pattern to kgagents.config.ALLOWED_PROCEDURES for {not_allowed}"


def test_the_docker_compose_server_allows_the_same_procedures() -> None:
    from kgagents.paths import REPO_ROOT

    compose = (REPO_ROOT / "docker" / "compose.yml").read_text(encoding="utf-8")
    for setting in ("unrestricted", "allowlist"):
        found = re.search(rf'NEO4J_dbms_security_procedures_{setting}: "([^"]*)"', compose)
        assert found is not None and found.group(1).split(",") == list(ALLOWED_PROCEDURES)


def test_the_server_loads_only_allowed_procedures(graph: Graph) -> None:
    names = {r["name"] for what in ("PROCEDURES", "FUNCTIONS") for r in graph.run_text(
        f"SHOW {what} YIELD name WHERE name =~ '(gds|apoc)[.].*' RETURN name")}
    assert {"gds.knn.filtered.stream", "gds.graph.project", "gds.util.asNode"} <= names
    assert [n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in ALLOWED_PROCEDURES)] == []
    assert "gds.pageRank.stream" not in names and "apoc.cypher.runFirstColumnMany" not in names


def test_the_server_writes_a_debug_log(graph: Graph, local_server: LocalNeo4j | None) -> None:
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: the server's logs are not ours to read")
    debug = local_server.instance_dir / "logs" / "debug.log"
    assert debug.is_file() and debug.stat().st_size > 0
