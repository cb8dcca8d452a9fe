"""Exception types with messages a user can act on.

Every error the CLI can show is one of these; the CLI prints the message and exits non-zero
instead of showing a stack trace.
"""

from __future__ import annotations


class KgAgentsError(Exception):
    """Base class for every error kgagents raises on purpose."""


class Neo4jUnavailableError(KgAgentsError):
    """The configured Neo4j server cannot be reached."""

    def __init__(self, uri: str, reason: str) -> None:
        super().__init__(
            f"Cannot reach Neo4j at {uri} ({reason}).\n"
            "Start the local server with `kgagents neo4j start` (or `make neo4j`), or point "
            "KGAGENTS_NEO4J_URI / KGAGENTS_NEO4J_USER / KGAGENTS_NEO4J_PASSWORD at your own server."
        )
        self.uri = uri


class Neo4jAuthError(KgAgentsError):
    """The server answered but rejected the credentials."""

    def __init__(self, uri: str, user: str) -> None:
        super().__init__(
            f"Neo4j at {uri} rejected user '{user}'. Set KGAGENTS_NEO4J_PASSWORD to the server's password (the "
            "local server's own is printed by `kgagents neo4j password`; unset the variable to use it)."
        )


class ServerInstallError(KgAgentsError):
    """The local Neo4j server could not be installed or started."""


class ParseError(KgAgentsError):
    """An input file is malformed; nothing was written to the graph."""

    def __init__(self, path: str, line: int | None, detail: str) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {detail} (nothing was written to the graph)")
        self.path = path
        self.line = line
        self.detail = detail


class MappingFileError(ParseError):
    """A mapping file (SSSOM TSV) is malformed at a line and column; nothing was written to the graph."""

    def __init__(self, path: str, line: int | None, column: str | None, detail: str) -> None:
        super().__init__(path, line, f"column {column}: {detail}" if column else detail)
        self.column = column


class CypherNotFoundError(KgAgentsError):
    """A named query does not exist in kgagents/cypher."""


class EmbeddingError(KgAgentsError):
    """An embedding provider could not produce vectors."""


class LLMUnavailableError(KgAgentsError):
    """No chat model is configured or reachable."""


class StructuredOutputError(KgAgentsError):
    """The chat model's answer could not be parsed into the requested schema, even after a repair retry."""


class InputFileError(KgAgentsError):
    """An input file is missing, unreadable or in a format kgagents cannot read."""


class VectorIndexError(KgAgentsError):
    """A vector index is missing or does not fit the vectors (other dimension, label or property)."""


class LLMRequestError(KgAgentsError):
    """The chat endpoint answered but the request failed (rejected, or still failing after the retries)."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class ForeignServerError(ServerInstallError):
    """The server answering on an instance's port belongs to another instance."""


class OntologyNameClashError(KgAgentsError):
    """An ontology's default name is already used by an ontology loaded from another file."""


class Neo4jConfigError(KgAgentsError):
    """The Neo4j connection settings cannot work as given (e.g. an http:// URI for the Bolt driver)."""


class ValueTooLargeError(KgAgentsError):
    """Neo4j refused to index a property value (index entries hold at most about 8 KB); nothing was written."""

    def __init__(self, label: str, property: str, size: int | None) -> None:
        bytes_ = f"{size:,} bytes" if size is not None else "more bytes than allowed"
        super().__init__(
            f"Neo4j cannot index a value of {bytes_} in :{label}({property}) (an index entry holds about 8 KB), so "
            "the write was refused and nothing was written. Shorten that value in the input."
        )
        self.label = label
        self.property = property
        self.size = size


class UnsupportedObjectError(KgAgentsError, TypeError):
    """An argument is of a kind kgagents cannot use (e.g. a chat model or graph connection of another type)."""


class ChatModelRequiredError(KgAgentsError, ValueError):
    """An agent was asked for an LLM mode without a chat model."""


class BulkImportError(KgAgentsError):
    """A bulk import (neo4j-admin database import) was refused or failed; the previous database is unchanged."""


class AgentSettingsError(KgAgentsError, ValueError):
    """An agent's settings are invalid (unknown field, wrong type, value out of range)."""


class UnfinishedLoadError(KgAgentsError):
    """A KG is being written by a batched load, or holds part of one that died: reading it would give wrong
    answers."""


class UnknownKGError(KgAgentsError):
    """No KG of that name is loaded (usually a misspelt --kg)."""
