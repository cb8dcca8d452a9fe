"""Install and run a real Neo4j 5.26 Community server with GDS and APOC, from Maven Central.

Why not the tarball: this machine reaches only package registries, and Maven Central carries the
server (``org.neo4j:neo4j``), APOC core and the open GDS modules. ``neo4j-pom.xml`` (beside this module) pins the
versions; Maven copies the server classpath into ``lib/`` and the plugins into ``plugins/`` once, in a
cache; each *instance* (data, logs, conf, pid) lives in its own directory so the test session can run
its own server beside the user's.

The pom ships inside the package (``kgagents/servers/neo4j-pom.xml``, read as a package resource), so an installed
wheel assembles the same server as a source checkout; Maven runs on a copy of it in the cache, never in the
installed package.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pydantic import SecretStr

from kgagents.config import LOOPBACK_HOSTS, LocalServerSettings, Neo4jSettings
from kgagents.credentials import (
    PASSWORD_FILE,
    PENDING_FILE,
    generate_password,
    instance_password,
    legacy_password,
    read_password,
    weak_for_exposure,
    write_private,
)
from kgagents.errors import (
    BulkImportError,
    ForeignServerError,
    Neo4jAuthError,
    Neo4jUnavailableError,
    ServerInstallError,
)

if TYPE_CHECKING:
    import sys

    from kgagents.graph.connection import Graph

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

#: the Maven pom that pins the server, APOC and GDS (package data: found in a wheel and a checkout alike)
POM: Traversable = files("kgagents.servers").joinpath("neo4j-pom.xml")
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
JVM_FLAGS = [
    "-XX:+UseG1GC",
    "--add-modules=jdk.incubator.vector",  # SIMD distance functions for Lucene vector search
    "-XX:-OmitStackTraceInFastThrow",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
]
#: the umask of every process that writes into an instance (the server, neo4j-admin): files 0600, directories 0700
PRIVATE_UMASK = 0o077
#: seconds between "still waiting" lines while the server starts
WAIT_REPORT_S = 10.0
Say = Callable[[str], None]


def _silent(_: str) -> None:
    pass


def _open_private(path: Path, *, append: bool) -> BinaryIO:
    """``path`` opened for binary writing, created 0600 (this process's umask is not the instance's)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o600), "ab" if append else "wb")


LOG_CONFIG = "server-logs.xml"
# Log4j configuration of the server's own log: debug.log (rotated at 20 MB, 7 kept) catches everything,
# security events go to security.log. Without one, errors only reach console.log.
SERVER_LOGS_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="ERROR" packages="org.neo4j.logging.log4j">
  <Appenders>
    <RollingRandomAccessFile name="DebugLog" fileName="${config:server.directories.logs}/debug.log"
                             filePattern="$${config:server.directories.logs}/debug.log.%02i">
      <Neo4jDebugLogLayout pattern="%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p [%c{1.}] %m%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy fileIndex="min" max="7"/>
    </RollingRandomAccessFile>
    <RollingRandomAccessFile name="SecurityLog" fileName="${config:server.directories.logs}/security.log"
                             filePattern="$${config:server.directories.logs}/security.log.%02i">
      <PatternLayout pattern="%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p %m%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy fileIndex="min" max="7"/>
    </RollingRandomAccessFile>
  </Appenders>
  <Loggers>
    <Root level="INFO"><AppenderRef ref="DebugLog"/></Root>
    <Logger name="SecurityLogger" level="INFO" additivity="false"><AppenderRef ref="SecurityLog"/></Logger>
  </Loggers>
</Configuration>
"""


def pinned_versions(pom: Traversable = POM) -> dict[str, str]:
    """The Neo4j / APOC / GDS versions the pom pins (``<neo4j.version>`` etc.)."""
    if not pom.is_file():
        raise ServerInstallError(
            f"{pom} not found: the local server is assembled from the pom shipped inside the kgagents package; "
            "reinstall kgagents, or point KGAGENTS_NEO4J_URI at your own server."
        )
    text = pom.read_text(encoding="utf-8")
    return dict(re.findall(r"<(neo4j|apoc|gds)\.version>([^<]+)</", text))


def pom_digest(pom: Traversable = POM) -> str:
    """First 10 hex digits of the pom's SHA-256: part of the jar cache's name, so that a change to the pom
    (another version, the Browser jar) installs afresh instead of reusing a cache made from the old one."""
    return hashlib.sha256(pom.read_bytes()).hexdigest()[:10]


def _require(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise ServerInstallError(
            f"`{tool}` is not on PATH; the local Neo4j server needs it. Install it with "
            f"`apt-get install {package}` (Java 17 or 21 for Neo4j 5.26), or run Neo4j yourself "
            "(docker/compose.yml) and set KGAGENTS_NEO4J_URI."
        )
    return path


def client_host(listen_address: str) -> str:
    """The address a client on this machine uses for a server listening on ``listen_address`` (a wildcard or a
    loopback address: 127.0.0.1)."""
    return "127.0.0.1" if listen_address in LOOPBACK_HOSTS | {"0.0.0.0", "::", ""} else listen_address


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on ``host:port`` now (a port in TIME_WAIT counts as free)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


@contextmanager
def _argument_file(value: str, directory: Path) -> Iterator[Path]:
    """A picocli argument file (readable by the owner only) holding ``value`` as one quoted argument;
    deleted on exit."""
    quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"\n'
    fd, name = tempfile.mkstemp(prefix="admin-", suffix=".args", dir=directory)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(quoted)
        yield Path(name)
    finally:
        Path(name).unlink(missing_ok=True)


@dataclass
class ImportRun:
    """What one offline import did: the importer's wall and CPU time and peak memory, the restart that followed."""

    import_seconds: float
    import_peak_rss_mib: float
    restart_seconds: float
    log: Path
    cpu_seconds: float = 0.0


@dataclass
class ServerStatus:
    """What `kgagents neo4j status` reports."""

    running: bool
    pid: int | None
    bolt_uri: str
    version: str | None = None
    edition: str | None = None
    plugins: dict[str, int] = field(default_factory=dict)
    home: Path | None = None
    browser_url: str | None = None


class LocalNeo4j:
    """One local server instance: install once, start (idempotent), stop, status."""

    def __init__(self, server: LocalServerSettings | None = None, neo4j: Neo4jSettings | None = None) -> None:
        """``neo4j``: the user, database and — when given there — the password; by default the instance's own
        password (its password file, see :mod:`kgagents.credentials`)."""
        self.server = server or LocalServerSettings()
        self._settings = neo4j or Neo4jSettings()
        self.versions = pinned_versions()
        self.dist = self.server.home / f"neo4j-{self.versions['neo4j']}-gds-{self.versions['gds']}-{pom_digest()}"
        self.instance_dir = self.server.instance_dir
        self.pid_file = self.instance_dir / "run" / "neo4j.pid"
        self.password_file = self.instance_dir / PASSWORD_FILE
        self.host = client_host(self.server.listen_address)
        self.bolt_uri = f"bolt://{self.host}:{self.server.bolt_port}"
        self.browser_origin = f"http://{self.host}:{self.server.http_port}"

    # -- credentials -----------------------------------------------------------------------------
    @property
    def neo4j(self) -> Neo4jSettings:
        """Settings that reach this instance: its Bolt URI and its password (the given one, else its own)."""
        return self._settings.model_copy(update={"uri": self.bolt_uri, "password": self.password()})

    @property
    def password_given(self) -> bool:
        """Whether the password was given (``KGAGENTS_NEO4J_PASSWORD`` or the ``neo4j`` argument)."""
        return self._settings.password_given

    def password(self) -> SecretStr:
        """The given password (``KGAGENTS_NEO4J_PASSWORD`` or the ``neo4j`` argument), else the instance's own;
        empty for an instance not made yet."""
        if self._settings.password_given:
            return self._settings.password
        return SecretStr(instance_password(self.instance_dir) or "")

    def uses_legacy_password(self) -> bool:
        """Whether the instance still has one of the old fixed passwords (made before passwords were generated)."""
        return not self._settings.password_given and legacy_password(self.instance_dir) is not None

    def _check_exposure(self) -> None:
        """Refuse to listen beyond this machine with an old fixed or short password (a fresh instance's generated
        one is neither)."""
        if self.server.listen_address in LOOPBACK_HOSTS:
            return
        password = self.password().get_secret_value()
        if password and weak_for_exposure(password):
            raise ServerInstallError(
                f"Refusing to start instance '{self.server.instance}' on {self.server.listen_address}: other machines "
                "could connect, and its password is one of the old fixed ones or shorter than 16 characters. Start "
                "it once on 127.0.0.1 (unset KGAGENTS_SERVER_LISTEN_ADDRESS) so that it gets a generated password, "
                "or set a strong KGAGENTS_NEO4J_PASSWORD.")

    # -- install ---------------------------------------------------------------------------------
    def installed(self) -> bool:
        return (self.dist / ".complete").is_file()

    def install(self) -> Path:
        """Resolve the server and plugin jars with Maven into the cache (once)."""
        if self.installed():
            return self.dist
        mvn = _require("mvn", "maven")
        _require("java", "openjdk-17-jre-headless")
        tmp = self.dist.with_name(self.dist.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "maven").mkdir(parents=True)
        pom = tmp / "maven" / "pom.xml"  # a copy: Maven may write beside its pom, and the package may be read-only
        pom.write_bytes(POM.read_bytes())
        for profile, target in (("", "lib"), ("-Pplugins", "all")):
            cmd = [mvn, "-q", "-B", "-f", str(pom), *([profile] if profile else []),
                   "dependency:copy-dependencies", f"-DoutputDirectory={tmp / target}", "-DincludeScope=runtime"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise ServerInstallError(
                    "Maven could not fetch the Neo4j jars from Maven Central:\n"
                    + (proc.stdout + proc.stderr)[-2000:]
                )
        # plugins = what the plugin profile adds on top of the server classpath
        server_jars = {p.name for p in (tmp / "lib").iterdir()}
        (tmp / "plugins").mkdir()
        for jar in (tmp / "all").iterdir():
            if jar.name not in server_jars:
                jar.rename(tmp / "plugins" / jar.name)
        shutil.rmtree(tmp / "all")
        shutil.rmtree(tmp / "maven")
        (tmp / ".complete").write_text(f"{self.versions} pom sha256 {pom_digest()}")
        shutil.rmtree(self.dist, ignore_errors=True)
        tmp.rename(self.dist)
        return self.dist

    # -- instance --------------------------------------------------------------------------------
    def _conf(self) -> str:
        s = self.server
        listen = s.listen_address
        return "\n".join([
            f"server.default_listen_address={listen}",
            f"server.bolt.listen_address={listen}:{s.bolt_port}",
            f"server.bolt.advertised_address={self.host}:{s.bolt_port}",
            f"server.http.listen_address={listen}:{s.http_port}",
            f"server.http.advertised_address={self.host}:{s.http_port}",
            "server.https.enabled=false",
            "dbms.security.auth_enabled=true",
            # Only the Browser's own pages may call the HTTP API from a web browser (Neo4j's default, '*', lets
            # any web page the user opens send Cypher with credentials it guessed).
            f"dbms.security.http_access_control_allow_origin={s.allow_origin or self.browser_origin}",
            f"server.directories.plugins={self.dist / 'plugins'}",
            # Only the procedure families the project calls are loaded (config.ALLOWED_PROCEDURES).
            f"dbms.security.procedures.unrestricted={','.join(s.procedures)}",
            f"dbms.security.procedures.allowlist={','.join(s.procedures)}",
            f"server.memory.heap.initial_size={s.heap}",
            f"server.memory.heap.max_size={s.heap}",
            f"server.memory.pagecache.size={s.pagecache}",
            "db.tx_log.rotation.retention_policy=1 files",
            f"server.logs.config={self.instance_dir / 'conf' / LOG_CONFIG}",
            # Vector indexes: Neo4j's defaults flush a new Lucene segment every few thousand vectors and
            # hardly merge (population merge factor 1000), and every query then searches each segment's
            # HNSW graph in turn: 12 segments for 40k vectors gave 231 batched queries/s, one segment
            # 867/s. A large population buffer builds one segment; low merge factors keep it few.
            "internal.dbms.index.vector.population_ram_buffer_size=1024",
            "internal.dbms.index.vector.population_merge_factor=2",
            "internal.dbms.index.vector.standard_merge_factor=4",
            "",
        ])

    def _classpath(self) -> str:
        return f"{self.dist / 'plugins'}/*:{self.dist / 'lib'}/*"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.instance_dir)
        env["NEO4J_CONF"] = str(self.instance_dir / "conf")
        return env

    def _prepare_instance(self) -> None:
        """Directories (0700), configuration, and on the first start the instance's password: generated (or the
        given one), written to the password file, then set as the server's initial password."""
        for folder in (self.server.home / "instances", self.instance_dir):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for sub in ("conf", "data", "logs", "run", "import"):
            (self.instance_dir / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        write_private(self.instance_dir / "conf" / "neo4j.conf", self._conf())
        write_private(self.instance_dir / "conf" / LOG_CONFIG, SERVER_LOGS_XML)
        self._make_private()
        if not (self.instance_dir / "data" / "dbms" / "auth.ini").exists():
            password = self.password().get_secret_value() or generate_password()
            if read_password(self.password_file) != password:
                write_private(self.password_file, password)
            self.set_initial_password(password)

    def _make_private(self) -> None:
        """Directories 0700 and files 0600 under the instance (an instance made before, with the default umask, had
        its store, logs and ``auth.ini`` readable by every user); what the server writes later inherits
        :data:`PRIVATE_UMASK`."""
        self.server.home.joinpath("instances").chmod(0o700)
        for root, _, names in os.walk(self.instance_dir):
            Path(root).chmod(0o700)
            for name in names:
                path = Path(root, name)
                if not path.is_symlink():
                    path.chmod(0o600)

    def set_initial_password(self, password: str | None = None) -> None:
        """``neo4j-admin dbms set-initial-password`` (default: :meth:`password`) with the password in a private
        argument file.

        On the command line the password would be readable by every user in the process list; the
        admin tool (picocli) reads ``@file`` arguments instead, and the file exists only for the call.
        """
        java = _require("java", "openjdk-17-jre-headless")
        value = password if password is not None else self.password().get_secret_value()
        with _argument_file(value, self.instance_dir / "run") as args:
            proc = subprocess.run(self._admin_command(java, "dbms", "set-initial-password", f"@{args}"),
                                  capture_output=True, text=True, env=self._env(), umask=PRIVATE_UMASK)
        if proc.returncode != 0:
            raise ServerInstallError(f"Setting the initial Neo4j password failed:\n{proc.stderr[-2000:]}")

    def _replace_legacy_password(self, say: Say) -> None:
        """Give an instance made before passwords were generated (no password file) a generated password, or store
        the given one. The new password is written to a pending file before the server is told, so a crash in
        between leaves it known; only a server this process just launched is changed (nobody is connected)."""
        if self.password_file.exists():
            return
        user = self._settings.user
        if self._settings.password_given:
            given = self._settings.password.get_secret_value()
            write_private(self.password_file, given)
            say(f"stored the password of instance '{self.server.instance}' (KGAGENTS_NEO4J_PASSWORD) in "
                f"{self.password_file}")
            return
        pending = self.instance_dir / PENDING_FILE
        new = read_password(pending) or generate_password()
        write_private(pending, new)
        for old in dict.fromkeys(p for p in (legacy_password(self.instance_dir), new) if p):
            if self._change_password(user, old, new):
                os.replace(pending, self.password_file)
                say(f"replaced the old fixed password of instance '{self.server.instance}' with a generated one")
                return
        raise ServerInstallError(
            f"Instance '{self.server.instance}' has no password file ({self.password_file}) and rejects the old "
            "default passwords. Set KGAGENTS_NEO4J_PASSWORD to its password and run `kgagents neo4j start` again: "
            "the password is then stored in that file.")

    def _change_password(self, user: str, old: str, new: str) -> bool:
        """Log in with ``old`` and change the password to ``new`` (nothing to change when they are equal); False
        when ``old`` is rejected."""
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError

        with GraphDatabase.driver(self.bolt_uri, auth=(user, old), notifications_min_severity="OFF") as driver:
            try:
                driver.verify_connectivity()
            except AuthError:
                return False
            if old != new:
                driver.execute_query("ALTER CURRENT USER SET PASSWORD FROM $old TO $new", old=old, new=new,
                                     database_="system")
        return True

    def _admin_command(self, java: str, *args: str) -> list[str]:
        return [java, "-cp", self._classpath(), ADMIN_TOOL, *args]

    def pid(self) -> int | None:
        """The pid of this instance's server process, if it is alive."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        cmdline = Path(f"/proc/{pid}/cmdline")
        if cmdline.exists():  # a reused pid, or another instance's server, is not ours
            args = cmdline.read_bytes().split(b"\0")
            if ENTRY_POINT.encode() not in args or f"--home-dir={self.instance_dir}".encode() not in args:
                return None
        return pid

    def start(self, say: Say = _silent) -> ServerStatus:
        """Start the server unless it already runs; wait until Bolt answers. Safe to call twice.

        Refuses to launch when a port is taken (the new process would die with "Address already in
        use" while the port's owner answered in its place), and only reports success once the server
        answering on the port is this instance (see :meth:`status`). ``say`` hears what it is doing (every
        :data:`WAIT_REPORT_S` seconds while the server starts). An instance made before passwords were
        generated gets one when this launches it (:meth:`_replace_legacy_password`).
        """
        self._check_exposure()
        if self.pid() is not None:
            return self._wait_for_bolt(say=say)
        self.install()
        self._check_ports_free()
        self._prepare_instance()
        java = _require("java", "openjdk-17-jre-headless")
        log = _open_private(self.instance_dir / "logs" / "console.log", append=True)
        cmd = [java, f"-Xms{self.server.heap}", f"-Xmx{self.server.heap}", *JVM_FLAGS,
               "-cp", self._classpath(), ENTRY_POINT,
               f"--home-dir={self.instance_dir}", f"--config-dir={self.instance_dir / 'conf'}"]
        say(f"launching Neo4j instance '{self.server.instance}' (data in {self.instance_dir})")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=self._env(), start_new_session=True, umask=PRIVATE_UMASK)
        write_private(self.pid_file, str(proc.pid))
        return self._wait_for_bolt(proc, say)

    def _wait_for_bolt(self, proc: subprocess.Popen | None = None, say: Say = _silent) -> ServerStatus:
        started = time.monotonic()
        deadline = started + self.server.start_timeout_s
        reported = started
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise ServerInstallError(
                    f"Neo4j exited with code {proc.returncode} while starting. Last lines of "
                    f"{self.instance_dir / 'logs' / 'neo4j.log'}:\n{self.log_tail()}"
                )
            try:
                status = self.status()
            except ForeignServerError:
                if proc is not None:  # ours cannot bind the port: do not leave it behind
                    self._terminate(proc)
                raise
            except Neo4jAuthError as exc:
                if proc is None:
                    raise
                if not (self.password_file.exists() or self._settings.password_given):
                    self._replace_legacy_password(say)  # an old instance whose password is not one we know of
                    continue
                self._terminate(proc)  # we cannot tell it is ours: do not leave it behind
                source = "KGAGENTS_NEO4J_PASSWORD" if self.password_given else str(self.password_file)
                raise ServerInstallError(
                    f"The Neo4j server answering on {self.bolt_uri} rejects the password of instance "
                    f"'{self.server.instance}' ({source}): another instance answers on that port, or that is not this "
                    "instance's password. The server just launched was stopped.") from exc
            except Neo4jUnavailableError as exc:  # not up yet: keep polling until the deadline
                last_error = str(exc).splitlines()[0]
                time.sleep(0.5)
                if time.monotonic() - reported >= WAIT_REPORT_S:
                    reported = time.monotonic()
                    say(f"waiting for Neo4j to answer on {self.bolt_uri} ({reported - started:.0f} s)")
                continue
            if not self.password_file.exists() and (proc is not None or self.password_given):
                self._replace_legacy_password(say)  # a given password is stored; an old one replaced at launch
            return status
        raise ServerInstallError(
            f"Neo4j did not answer on {self.bolt_uri} within {self.server.start_timeout_s:.0f}s "
            f"({last_error}). Log tail:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 30) -> str:
        path = self.instance_dir / "logs" / "neo4j.log"
        if not path.exists():
            return "(no neo4j.log yet)"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def _check_ports_free(self) -> None:
        for what, port in (("bolt", self.server.bolt_port), ("http", self.server.http_port)):
            if not port_free(port, self.host):
                raise ServerInstallError(
                    f"Cannot start Neo4j instance '{self.server.instance}': its {what} port {port} on {self.host} "
                    "is already in use (another instance or program). Stop that, or give this instance other "
                    "ports with KGAGENTS_SERVER_BOLT_PORT / KGAGENTS_SERVER_HTTP_PORT."
                )

    def verify_identity(self, graph: Graph) -> None:
        """Raise :class:`ForeignServerError` unless the server behind ``graph`` is this instance.

        The server's own home directory (a setting it reports) must be this instance's directory, so
        a server of another instance that happens to answer on the port is never taken for this one.
        """
        rows = graph.run("server/home")
        home = rows[0]["home"] if rows else None
        if home is None or Path(home).resolve() != self.instance_dir.resolve():
            raise ForeignServerError(
                f"The Neo4j server answering on {graph.settings.uri} is not instance '{self.server.instance}' "
                f"(its home is {home}, expected {self.instance_dir}). Another instance uses that port: stop it, "
                "or give this instance other ports with KGAGENTS_SERVER_BOLT_PORT / KGAGENTS_SERVER_HTTP_PORT."
            )

    def status(self) -> ServerStatus:
        """Version and loaded plugin procedures, read over Bolt from this instance.

        Raises :class:`Neo4jUnavailableError` if Bolt does not answer, :class:`ForeignServerError` if
        another instance answers.
        """
        from kgagents.graph.connection import Graph

        with Graph(self.neo4j) as graph:
            self.verify_identity(graph)
            comp = graph.run("server/components")[0]
            plugins = {row["prefix"]: row["n"] for row in graph.run("server/plugin_procedures")}
        return ServerStatus(True, self.pid(), self.bolt_uri, comp["version"], comp["edition"], plugins,
                            self.instance_dir, f"{self.browser_origin}/browser/")

    @staticmethod
    def _terminate(proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the server if it runs. Returns whether a process was stopped."""
        pid = self.pid()
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.pid() is None:
                break
            time.sleep(0.3)
        else:
            os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        self.pid_file.unlink(missing_ok=True)
        return True

    # -- offline bulk import ---------------------------------------------------------------------------------
    def store_dirs(self, root: Path | None = None) -> tuple[Path, Path]:
        """The database's store and transaction-log directories under a data directory (default: the live one)."""
        data = root if root is not None else self.instance_dir / "data"
        return data / "databases" / self.neo4j.database, data / "transactions" / self.neo4j.database

    def import_database(self, importer_args: list[str], *, heap: str, max_off_heap: str,
                        threads: int | None = None, high_parallel_io: str | None = None) -> ImportRun:
        """``neo4j-admin database import full`` into a staging store, then stop, swap the store in, start.

        The importer writes into ``import-staging/`` next to the live data while the server keeps serving, so
        an import that fails (bad entry, out of memory) changes nothing. Only after it succeeds is the server
        stopped and the store directories swapped; if the server then does not start, the previous store is
        put back and started again. The previous database is deleted once the new one is up.
        """
        staging = self.instance_dir / "import-staging"
        run = self.run_importer(importer_args, staging, heap=heap, max_off_heap=max_off_heap, threads=threads,
                                high_parallel_io=high_parallel_io)
        started = time.perf_counter()
        self._swap_in(staging)
        run.restart_seconds = time.perf_counter() - started
        return run

    def run_importer(self, importer_args: list[str], into: Path, *, heap: str, max_off_heap: str,
                     threads: int | None = None, high_parallel_io: str | None = None) -> ImportRun:
        """The importer alone: a new store under ``into/data`` (emptied first), the live database untouched.
        On failure ``into`` is removed and :class:`BulkImportError` carries the log's last lines."""
        self.install()
        self._prepare_instance()
        shutil.rmtree(into, ignore_errors=True)
        into.mkdir(parents=True, mode=0o700)
        conf = into / "import.conf"
        conf.write_text(f"server.directories.data={into / 'data'}\n", encoding="utf-8")
        log = self.instance_dir / "logs" / "import.log"
        java = _require("java", "openjdk-17-jre-headless")
        cmd = [java, f"-Xmx{heap}", "-cp", self._classpath(), ADMIN_TOOL, "database", "import", "full",
               self.neo4j.database, f"--additional-config={conf}", "--bad-tolerance=0",
               "--skip-bad-relationships=false", "--skip-duplicate-nodes=false",
               f"--max-off-heap-memory={max_off_heap}", f"--report-file={into / 'import.report'}",
               *([f"--threads={threads}"] if threads else []),
               *([f"--high-parallel-io={high_parallel_io}"] if high_parallel_io else []), *importer_args]
        started = time.perf_counter()
        with _open_private(log, append=False) as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=self._env(), umask=PRIVATE_UMASK)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        import_seconds = time.perf_counter() - started
        if proc.returncode != 0:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
            shutil.rmtree(into, ignore_errors=True)
            raise BulkImportError(f"neo4j-admin database import failed (exit {proc.returncode}); the database was "
                                  f"not changed. Full output in {log}; last lines:\n{tail}")
        return ImportRun(import_seconds, usage.ru_maxrss / 1024, 0.0, log,
                         cpu_seconds=usage.ru_utime + usage.ru_stime)

    def _swap_in(self, staging: Path) -> None:
        """Stop the server, move the staged store in place of the live one, start; roll back if it fails."""
        live, staged, previous = self.store_dirs(), self.store_dirs(staging / "data"), self.store_dirs(staging / "old")
        self.stop()
        for src, dst in zip(live, previous, strict=True):
            if src.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                src.rename(dst)
        for src, dst in zip(staged, live, strict=True):
            dst.parent.mkdir(parents=True, exist_ok=True)
            src.rename(dst)
        try:
            self.start()
        except ServerInstallError as exc:
            self.stop()
            for src, dst in zip(previous, live, strict=True):
                shutil.rmtree(dst, ignore_errors=True)
                if src.exists():
                    src.rename(dst)
            self.start()
            raise BulkImportError(f"Neo4j did not start on the imported store, so the previous database was put "
                                  f"back: {exc}") from exc
        shutil.rmtree(staging, ignore_errors=True)
