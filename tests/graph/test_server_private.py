"""The local server is private by default: a generated password kept 0600 and read by every command, an instance
only its owner can read, HTTP CORS limited to the Browser's own origin, loopback only unless told otherwise — and
an instance made with the old fixed password keeps its data and gets a generated one."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.credentials import LEGACY_PASSWORDS, PASSWORD_FILE, read_password, weak_for_exposure, write_private
from kgagents.errors import Neo4jAuthError, ServerInstallError
from kgagents.graph.connection import Graph
from kgagents.servers.neo4j import LocalNeo4j

runner = CliRunner()


def _own_server(local_server: LocalNeo4j | None) -> LocalNeo4j:
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: no local server of the session")
    return local_server


def _instance_env(server: LocalNeo4j) -> dict[str, str | None]:
    """The environment of a user whose configured instance is ``server``, with no password set."""
    s = server.server
    return {"KGAGENTS_SERVER_HOME": str(s.home), "KGAGENTS_SERVER_INSTANCE": s.instance,
            "KGAGENTS_SERVER_BOLT_PORT": str(s.bolt_port), "KGAGENTS_SERVER_HTTP_PORT": str(s.http_port),
            "KGAGENTS_NEO4J_URI": server.bolt_uri, "KGAGENTS_NEO4J_PASSWORD": None}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the session server ---------------------------------------------------------------------------------------
def test_the_password_is_generated_and_only_its_owner_can_read_it(graph: Graph,
                                                                   local_server: LocalNeo4j | None) -> None:
    server = _own_server(local_server)
    password = read_password(server.password_file)
    assert password is not None and not weak_for_exposure(password) and password not in LEGACY_PASSWORDS
    assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600


def test_the_instance_is_readable_by_its_owner_only(graph: Graph, local_server: LocalNeo4j | None) -> None:
    server = _own_server(local_server)
    graph.run_text("CREATE (:PrivacyProbe)")  # the store and transaction logs have been written to
    modes = {}
    for root, dir_names, file_names in os.walk(server.instance_dir):
        for name in dir_names + file_names:
            path = Path(root, name)
            if not path.is_symlink():
                modes[path] = stat.S_IMODE(path.stat().st_mode)
    assert stat.S_IMODE(server.instance_dir.stat().st_mode) == 0o700
    files = {p for p in modes if p.is_file()}
    assert {server.instance_dir / "data" / "dbms" / "auth.ini", server.instance_dir / "logs" / "debug.log"} <= files
    assert any("databases" in p.parts for p in files)  # store files, written by the server itself
    assert {p: m for p, m in modes.items() if m & 0o077} == {}


def test_every_command_reads_the_instance_password(graph: Graph, local_server: LocalNeo4j | None) -> None:
    """With no KGAGENTS_NEO4J_PASSWORD, a command reaching the configured local instance logs in with its file."""
    server = _own_server(local_server)
    graph.run_text("CREATE (:KG {name: 'password-probe'})")
    result = runner.invoke(app, ["stats"], env=_instance_env(server))
    assert result.exit_code == 0, result.output
    assert "password-probe" in result.output


def test_kgagents_neo4j_password_still_overrides(local_server: LocalNeo4j | None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    server = _own_server(local_server)
    for key, value in _instance_env(server).items():
        monkeypatch.setenv(key, value) if value is not None else monkeypatch.delenv(key, raising=False)
    assert Neo4jSettings().password.get_secret_value() == read_password(server.password_file)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", "not-the-instance-password")
    with pytest.raises(Neo4jAuthError, match="kgagents neo4j password"):
        Graph(Neo4jSettings()).driver  # noqa: B018 - the property connects


def test_neo4j_password_prints_it_and_start_says_where_it_is(local_server: LocalNeo4j | None) -> None:
    server = _own_server(local_server)
    printed = runner.invoke(app, ["neo4j", "password"], env=_instance_env(server))
    assert printed.exit_code == 0 and printed.stdout.strip() == read_password(server.password_file)
    started = runner.invoke(app, ["neo4j", "start"], env=_instance_env(server))  # running already: harmless
    assert started.exit_code == 0, started.output
    assert f"password: in {server.password_file}" in " ".join(started.output.split())
    password = read_password(server.password_file)
    assert password is not None and password not in started.output


def test_a_web_page_of_another_origin_is_refused(local_server: LocalNeo4j | None) -> None:
    """The CORS preflight a browser sends before a page on evil.example.com posts Cypher: the answer allows only the
    Browser's own origin (Neo4j's default, '*', would let the page in)."""
    server = _own_server(local_server)
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.server.http_port}/db/neo4j/tx/commit", method="OPTIONS",
        headers={"Origin": "http://evil.example.com", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"})
    with urllib.request.urlopen(request, timeout=30) as response:
        allowed = response.headers.get("Access-Control-Allow-Origin")
    assert allowed == f"http://127.0.0.1:{server.server.http_port}"
    assert allowed not in ("*", "http://evil.example.com")


# -- without a server -------------------------------------------------------------------------------------------
def test_listening_beyond_loopback_needs_a_strong_password(tmp_path: Path) -> None:
    exposed = LocalServerSettings(home=tmp_path, instance="exposed", listen_address="0.0.0.0")
    for weak in ("kgagents-dev", "short"):
        with pytest.raises(ServerInstallError, match="other machines could connect"):
            LocalNeo4j(exposed, Neo4jSettings(password=SecretStr(weak))).start()  # refused before anything runs
    assert not (tmp_path / "instances" / "exposed").exists()
    strong = LocalNeo4j(exposed, Neo4jSettings(password=SecretStr("x" * 24)))
    strong._check_exposure()
    assert "server.bolt.listen_address=0.0.0.0:7687" in strong._conf()
    loopback = LocalNeo4j(LocalServerSettings(home=tmp_path), Neo4jSettings(password=SecretStr("kgagents-dev")))
    loopback._check_exposure()  # on 127.0.0.1 an old password is not refused (the next start replaces it)
    assert "server.bolt.listen_address=127.0.0.1:7687" in loopback._conf()


def test_status_of_a_stopped_server_says_stopped(tmp_path: Path) -> None:
    port = _free_port()
    result = runner.invoke(app, ["neo4j", "status"], env={
        "KGAGENTS_SERVER_HOME": str(tmp_path), "KGAGENTS_SERVER_INSTANCE": "never-started",
        "KGAGENTS_SERVER_BOLT_PORT": str(port), "KGAGENTS_NEO4J_URI": f"bolt://127.0.0.1:{port}"})
    assert result.exit_code == 3, result.output
    assert result.output.startswith("stopped") and "error" not in result.output


def test_neo4j_password_before_the_first_start_says_how_to_make_one(tmp_path: Path) -> None:
    result = runner.invoke(app, ["neo4j", "password"], env={
        "KGAGENTS_SERVER_HOME": str(tmp_path), "KGAGENTS_SERVER_INSTANCE": "new", "KGAGENTS_NEO4J_PASSWORD": None})
    assert result.exit_code == 1 and "kgagents neo4j start" in result.output


def test_the_password_file_is_never_readable_by_others(tmp_path: Path) -> None:
    path = tmp_path / "instance" / PASSWORD_FILE
    old = os.umask(0)  # even under a permissive umask
    try:
        write_private(path, "secret")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and read_password(path) == "secret"
    assert [p.name for p in path.parent.iterdir()] == [PASSWORD_FILE]


# -- an instance made before passwords were generated ---------------------------------------------------------------
@pytest.fixture
def old_instance(local_server: LocalNeo4j | None) -> Iterator[LocalServerSettings]:
    server = _own_server(local_server)
    settings = LocalServerSettings(home=server.server.home, instance=f"legacy-{uuid.uuid4().hex[:8]}",
                                   heap="256m", pagecache="64m", bolt_port=_free_port(), http_port=_free_port(),
                                   start_timeout_s=300)  # two starts on a machine shared by many test runs
    yield settings
    LocalNeo4j(settings, Neo4jSettings(password=SecretStr("unused"))).stop()
    shutil.rmtree(settings.instance_dir, ignore_errors=True)


def test_an_instance_with_the_old_fixed_password_keeps_its_data_and_gets_a_generated_one(
        old_instance: LocalServerSettings) -> None:
    made_before = LocalNeo4j(old_instance, Neo4jSettings(password=SecretStr("kgagents-dev")))
    made_before.start()
    with Graph(made_before.neo4j) as g:
        g.run_text("CREATE (:OldData {n: 1})")
    made_before.stop()
    made_before.password_file.unlink()  # as an instance made by an older kgagents: no password file
    os.chmod(old_instance.instance_dir / "data" / "dbms" / "auth.ini", 0o644)  # and the old, open modes

    server = LocalNeo4j(old_instance, Neo4jSettings.model_construct())  # the instance's own password
    assert server.uses_legacy_password() and server.password().get_secret_value() == "kgagents-dev"
    said: list[str] = []
    server.start(say=said.append)
    assert any("replaced the old fixed password" in line for line in said)
    new = read_password(server.password_file)
    assert new is not None and new != "kgagents-dev" and not server.uses_legacy_password()
    with Graph(server.neo4j) as g:
        assert g.run_text("MATCH (n:OldData) RETURN n.n AS n") == [{"n": 1}]
    with pytest.raises(Neo4jAuthError):
        Graph(server.neo4j.model_copy(update={"password": SecretStr("kgagents-dev")})).driver  # noqa: B018
    assert stat.S_IMODE((old_instance.instance_dir / "data" / "dbms" / "auth.ini").stat().st_mode) == 0o600
