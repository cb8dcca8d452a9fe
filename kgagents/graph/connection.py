"""One small wrapper around the Neo4j driver: named queries, batched writes, clear errors.

Why a wrapper: every query is loaded by name from ``kgagents/cypher``, every write is parameterised
and batched with ``UNWIND``, and driver exceptions that mean "server not there" become
:class:`Neo4jUnavailableError` with instructions, so no command shows a stack trace for that.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any, TypeVar

from neo4j import Driver, GraphDatabase, ManagedTransaction, Record, Transaction
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from kgagents.config import Neo4jSettings
from kgagents.cypher import cypher, statements
from kgagents.errors import (
    Neo4jAuthError,
    Neo4jConfigError,
    Neo4jUnavailableError,
    UnsupportedObjectError,
    ValueTooLargeError,
)

Row = dict[str, Any]
_SCALARS = (str, int, float, bool, type(None))
T = TypeVar("T")
Tx = Transaction | ManagedTransaction
DEADLOCK_ATTEMPTS = 5  # tries of a transaction the server ended to break a deadlock
_TOO_LARGE = re.compile(r"too large to index.*?schema=\(:(\w+) \{([\w, ]+)\}\).*?property size: (\d+)", re.S)


#: what a schema statement's loser of a concurrent ``CREATE … IF NOT EXISTS`` race is told
_ALREADY_EXISTS = ("EquivalentSchemaRuleAlreadyExists", "IndexWithNameAlreadyExists",
                   "ConstraintWithNameAlreadyExists")


def retry_deadlocks(work: Callable[[], T], attempts: int = DEADLOCK_ATTEMPTS) -> T:
    """``work()``, run again after a short back-off when the server ended its transaction to break a deadlock.
    Concurrent writers of one graph (ontologies extracted on parallel server slots, MCP clients, a batched
    load's two stages) lose such races now and then; the server rolls the loser back whole, so running it
    again is safe. Any other error, and the last attempt's, propagates."""
    for attempt in range(attempts):
        try:
            return work()
        except TransientError as exc:
            if "DeadlockDetected" not in (exc.code or "") or attempt == attempts - 1:
                raise
            time.sleep(0.05 * 2 ** attempt)
    raise AssertionError("unreachable")


def _raise_refused_value(exc: Neo4jError) -> None:
    """Raise :class:`ValueTooLargeError` if Neo4j refused to index a value; any other error is left alone."""
    text = exc.message or str(exc)
    if "too large to index" not in text:
        return
    found = _TOO_LARGE.search(text)
    if found is None:
        raise ValueTooLargeError("?", "property", None) from exc
    raise ValueTooLargeError(found.group(1), found.group(2), int(found.group(3))) from exc


def batched(rows: Iterable[T], size: int) -> Iterator[list[T]]:
    """Successive lists of at most ``size`` rows."""
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


class Graph:
    """A connection to one Neo4j database. Use as a context manager or call :meth:`close`."""

    def __init__(self, settings: Neo4jSettings | None = None, *, driver: Driver | None = None) -> None:
        """``driver``: use this (already configured) driver instead of opening one from ``settings``; it
        stays the caller's, so :meth:`close` leaves it open."""
        self.settings = settings or Neo4jSettings()
        self._driver: Driver | None = driver
        self._owns_driver = driver is None

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def driver(self) -> Driver:
        if self._driver is None:
            s = self.settings
            try:
                driver = GraphDatabase.driver(s.uri, auth=(s.user, s.password.get_secret_value()),
                                              connection_acquisition_timeout=30.0,
                                              notifications_min_severity="OFF")
            except (ConfigurationError, ValueError) as exc:
                raise Neo4jConfigError(
                    f"Neo4j URI '{s.uri}' (KGAGENTS_NEO4J_URI) does not work with the Bolt driver: "
                    f"{str(exc).splitlines()[0]} Use e.g. bolt://127.0.0.1:7687 (the Bolt port, not the HTTP one)."
                ) from exc
            try:
                driver.verify_connectivity()
            except AuthError as exc:
                driver.close()
                raise Neo4jAuthError(s.uri, s.user) from exc
            except (ServiceUnavailable, SessionExpired, OSError, ValueError) as exc:
                driver.close()
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise Neo4jUnavailableError(s.uri, reason) from exc
            self._driver = driver
        return self._driver

    def close(self) -> None:
        if self._driver is not None and self._owns_driver:
            self._driver.close()
            self._driver = None

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads and small writes ------------------------------------------------------------------
    def run(self, name: str, **params: Any) -> list[Row]:
        """Run the named query in an auto-commit transaction and return all rows as dicts."""
        return self.run_text(cypher(name), **params)

    def run_text(self, text: str, **params: Any) -> list[Row]:
        """Run query text that was itself loaded from a named file (e.g. a generated index DDL); a deadlock
        victim is run again (:func:`retry_deadlocks`: the project's queries that commit in batches, ``CALL {…} IN
        TRANSACTIONS``, are deletes and labellings, which a second run completes rather than repeats)."""
        def once() -> list[Row]:
            with self.driver.session(database=self.settings.database) as session:
                return [_row(record) for record in session.run(text, params)]

        try:
            return retry_deadlocks(once)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise Neo4jUnavailableError(self.settings.uri, str(exc).splitlines()[0]) from exc
        except Neo4jError as exc:
            _raise_refused_value(exc)
            raise

    def run_script(self, name: str) -> None:
        """Run every statement of a multi-statement file (schema DDL, ``IF NOT EXISTS``), each on its own. Two
        processes creating the schema of a fresh database at once race: ``IF NOT EXISTS`` checks before the other
        commits, and the loser is told an equivalent rule already exists — which is what it asked for."""
        for stmt in statements(name):
            try:
                self.run_text(stmt)
            except ClientError as exc:
                if not (exc.code or "").endswith(_ALREADY_EXISTS):
                    raise

    # -- transactional writes --------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One explicit transaction: committed if the block completes, rolled back otherwise."""
        try:
            with self.driver.session(database=self.settings.database) as session:
                tx = session.begin_transaction()
                try:
                    yield tx
                    tx.commit()
                finally:
                    if not tx.closed():
                        tx.rollback()
        except (ServiceUnavailable, SessionExpired) as exc:
            raise Neo4jUnavailableError(self.settings.uri, str(exc).splitlines()[0]) from exc
        except Neo4jError as exc:  # rolled back above; a refused value gets a message a user can act on
            _raise_refused_value(exc)
            raise

    def in_transaction(self, work: Callable[[Transaction], T]) -> T:
        """``work`` in one committed transaction (:meth:`transaction`), run again whole when the server ends it
        to break a deadlock (:func:`retry_deadlocks`): ``work`` must not have effects outside the transaction."""
        def once() -> T:
            with self.transaction() as tx:
                return work(tx)

        return retry_deadlocks(once)

    def write_rows(
        self,
        tx: Tx,
        name: str,
        rows: Sequence[Row] | Iterable[Row],
        *,
        batch_size: int | None = None,
        on_batch: Callable[[int], None] | None = None,
        **params: Any,
    ) -> int:
        """``UNWIND $rows`` the named query over ``rows`` in batches inside ``tx``; returns rows written."""
        query = cypher(name)
        total = 0
        for chunk in batched(rows, batch_size or self.settings.batch_size):
            tx.run(query, rows=chunk, **params).consume()
            total += len(chunk)
            if on_batch is not None:
                on_batch(len(chunk))
        return total


#: What the agents and jobs accept as "the graph": a :class:`Graph`, a ``neo4j.Driver``, a bolt/neo4j URI
#: (user and password from ``KGAGENTS_NEO4J_*``) or :class:`Neo4jSettings`.
GraphLike = Graph | Driver | str | Neo4jSettings


def connect(graph: GraphLike | None = None, *, database: str | None = None) -> Graph:
    """``graph`` as a :class:`Graph`; with none, the database the environment configures (KGAGENTS_NEO4J_URI,
    _USER, _PASSWORD; default the local server), so ``with connect() as graph:`` works as it reads. A driver stays
    the caller's (never closed here); ``database`` picks the database for a driver or URI (default:
    ``KGAGENTS_NEO4J_DATABASE``, else ``neo4j``)."""
    if isinstance(graph, Graph):
        return graph
    settings = Neo4jSettings()
    if database is not None:
        settings = settings.model_copy(update={"database": database})
    if graph is None:
        return Graph(settings)
    if isinstance(graph, Driver):
        return Graph(settings, driver=graph)
    if isinstance(graph, str):
        return Graph(settings.model_copy(update={"uri": graph}))
    if isinstance(graph, Neo4jSettings):
        return Graph(graph)
    raise UnsupportedObjectError(
        f"Cannot use a {type(graph).__module__}.{type(graph).__qualname__} as the graph: pass a neo4j.Driver "
        "(neo4j.GraphDatabase.driver(uri, auth=...)), a bolt:// or neo4j:// URI, Neo4jSettings or a kgagents Graph."
    )


def _row(record: Record) -> Row:
    """A record as a dict. ``Record.data()`` walks every value to turn nodes and relationships into dicts, which
    costs about 2 ms per row of two 384-float vectors (73 s for the name vectors of one DBP15K KG); rows of scalars
    and lists of scalars (every named query but a few) are taken as they are."""
    values = record.values()
    if all(isinstance(v, _SCALARS) or (isinstance(v, list) and all(isinstance(x, _SCALARS) for x in v))
           for v in values):
        return dict(zip(record.keys(), values, strict=True))
    return record.data()
