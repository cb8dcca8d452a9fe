"""Settings read from the environment (prefix ``KGAGENTS_``) or a ``.env`` file.

Users point kgagents at their own Neo4j / Aura, embedding endpoint or chat endpoint by setting
these variables; the defaults run everything locally and offline.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgagents.credentials import instance_password

#: host names that mean this machine (a server bound only to them cannot be reached from elsewhere)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _default_home() -> Path:
    return Path.home() / ".cache" / "kgagents"


def _default_data() -> Path:
    """``../shared/data`` beside a source checkout (where the project keeps its benchmark data); for an installed
    package, ``data`` under the kgagents cache. Either way KGAGENTS_DATA_DIR overrides it."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file():
        return checkout.parent / "shared" / "data"
    return _default_home() / "data"


class Neo4jSettings(BaseSettings):
    """Where the graph lives. Defaults match the server `kgagents neo4j start` runs.

    The password, unless given (``KGAGENTS_NEO4J_PASSWORD`` or an argument), is the one ``kgagents neo4j start``
    generated for the configured local instance (``KGAGENTS_SERVER_*``) when the URI points at it
    (:mod:`kgagents.credentials`); for any other server it must be given.
    """

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_NEO4J_", env_file=".env", extra="ignore")

    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    password: SecretStr = Field(SecretStr(""), description="default: the configured local instance's password file")
    database: str = "neo4j"
    batch_size: int = Field(5000, ge=1, description="rows per UNWIND batch on writes")
    _password_given: bool = PrivateAttr(False)

    @model_validator(mode="after")
    def _local_instance_password(self) -> Neo4jSettings:
        self._password_given = "password" in self.model_fields_set
        if not self._password_given:
            server = LocalServerSettings()
            if points_at(self.uri, server):
                found = instance_password(server.instance_dir)
                if found is not None:
                    self.__dict__["password"] = SecretStr(found)  # not marked as given: it is the instance's own
        return self

    @property
    def password_given(self) -> bool:
        """Whether the password was given (argument or ``KGAGENTS_NEO4J_PASSWORD``), not read from the instance."""
        return self._password_given


def points_at(uri: str, server: LocalServerSettings) -> bool:
    """Whether ``uri`` is the Bolt address of the local instance ``server`` (this machine, its Bolt port)."""
    try:
        parts = urlsplit(uri)
        port = parts.port or 7687
    except ValueError:
        return False
    return (parts.hostname or "") in LOOPBACK_HOSTS | {server.listen_address} and port == server.bolt_port


# The GDS and APOC procedures/functions the project's Cypher calls, as Neo4j allowlist patterns: the local
# server loads only these (dbms.security.procedures.allowlist) instead of every gds.* / apoc.* procedure.
# Add a pattern here when a new query needs another; tests/graph/test_server_security.py fails when a
# .cypher file under kgagents/cypher calls a name no pattern covers.
ALLOWED_PROCEDURES = (
    "gds.graph.*",
    "gds.knn*",
    "gds.nodeSimilarity*",
    "gds.similarity.*",
    "gds.util.*",
    "gds.version",
    "apoc.path.expandConfig",
)


class LocalServerSettings(BaseSettings):
    """The Neo4j server the project installs from Maven Central and runs itself."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_SERVER_", env_file=".env", extra="ignore")

    home: Path = Field(default_factory=_default_home, description="cache for jars; data under home/instances")
    instance: str = "default"
    bolt_port: int = 7687
    http_port: int = 7474
    listen_address: str = Field("127.0.0.1", description="the address Bolt and HTTP listen on; anything but a "
                                "loopback address lets other machines connect, and needs a strong password")
    allow_origin: str | None = Field(None, description="the one web origin whose pages may call the HTTP API "
                                     "(Access-Control-Allow-Origin); default: the Browser's own, http://HOST:HTTP_PORT")
    heap: str = "2g"
    pagecache: str = "1g"
    start_timeout_s: float = 120.0
    procedures: list[str] = Field(
        default_factory=lambda: list(ALLOWED_PROCEDURES),
        description="procedure/function name patterns the server loads (allowlist, with unrestricted access)",
    )

    @property
    def instance_dir(self) -> Path:
        """Where the instance keeps its data, logs, configuration and password."""
        return self.home / "instances" / self.instance


class BulkImportSettings(BaseSettings):
    """The offline importer (``kgagents load kg --bulk``): its JVM heap, off-heap cap and where its CSV goes.

    The importer's own default takes 90 % of free memory; on a machine shared with a server and other jobs
    a fixed cap is kinder, and 2 GB holds the id maps of tens of millions of nodes.
    """

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_BULK_", env_file=".env", extra="ignore")

    heap: str = "1g"
    max_off_heap: str = "2g"
    threads: int | None = Field(None, description="importer threads (default: one per core)")
    high_parallel_io: str | None = Field(None, description="the importer's --high-parallel-io: on | off | auto "
                                         "(default: the importer's own, auto)")
    work_dir: Path | None = Field(None, description="where the CSV files are written (default: the system temp)")


class EmbeddingSettings(BaseSettings):
    """Which embedding provider to use. ``local`` needs no network and no GPU."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_EMBED_", env_file=".env", extra="ignore")

    provider: str = "local"
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = None
    api_key: SecretStr | None = None
    batch_size: int = 64
    threads: int | None = None
    cache: bool = Field(True, description="keep each text's vector on disk (kgagents.embeddings.cache): a text "
                        "embedded once by a model is read back, not embedded again")
    cache_dir: Path = Field(default_factory=lambda: _default_home() / "vectors",
                            description="where the vector cache file lives")
    cache_mb: int = Field(512, ge=1, description="the cache's size bound; past it the oldest quarter is dropped")


class LLMSettings(BaseSettings):
    """OpenAI-compatible chat endpoint. Empty base_url means: the embedded local server, if running."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_LLM_", env_file=".env", extra="ignore")

    base_url: str | None = None
    api_key: SecretStr = SecretStr("not-needed")
    model: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 4
    temperature: float = 0.0
    prompt_cost_per_1k: float = 0.0
    completion_cost_per_1k: float = 0.0
    # how many calls the agents may send at once (independent items run on this many threads)
    parallel: int = Field(1, ge=1)
    # the embedded llama-server (`kgagents llm start`): model, port, threads (unset: the cores not busy when it
    # starts), parallel slots, and context tokens per slot
    local_port: int = 8765
    local_model: str = "qwen2.5-coder-1.5b"
    local_threads: int | None = Field(None, ge=1)
    local_parallel: int = Field(1, ge=1)
    local_ctx: int = Field(8192, ge=512)


class DataSettings(BaseSettings):
    """Where the benchmark data the demo and the benchmarks read is (read-only; never copied into the repository
    or the package). Set KGAGENTS_DATA_DIR to use it from an installed package."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_DATA_", env_file=".env", extra="ignore")

    dir: Path = Field(default_factory=_default_data,
                      description="the benchmark data folder (om/, ea/, kgqa/, extraction/); default ../shared/data "
                                  "beside a source checkout, else ~/.cache/kgagents/data")
