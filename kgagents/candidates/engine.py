"""The candidate engine: "for these sources, the k most similar nodes of that scope", one interface for every agent.

:meth:`CandidateEngine.search` resolves the request (:mod:`kgagents.candidates.requests`), picks a back-end and
returns, for every source that has a vector, its hits best first (cosine desc, then key, so runs repeat):

* ``exact``   — exact cosine in Cypher over an explicit target list (:mod:`kgagents.candidates.exact`);
* ``single``  — one ``db.index.vector.queryNodes`` per source on the target scope's own index;
* ``batched`` — many sources per round trip on that index, parallel sessions (:mod:`kgagents.candidates.hnsw`);
* ``bulk``    — GDS KNN over a projection of just the two scopes (:mod:`kgagents.candidates.bulk`).

``auto`` chooses by workload size with the thresholds in :class:`EngineSettings`, which the engine benchmark
measured (``kgagents bench engine``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kgagents.candidates.bulk import search_bulk
from kgagents.candidates.exact import search_exact
from kgagents.candidates.hnsw import fetch_size, search_index
from kgagents.candidates.requests import TargetIds, exclusion_map, resolve_source, resolve_target
from kgagents.candidates.scopes import ScopeIndex, count_in_scope, ensure_scope_index, index_name, scope_label
from kgagents.candidates.settings import EngineSettings
from kgagents.candidates.types import BACKENDS, Hit, Ids, Source, Target
from kgagents.embeddings.index import Scope, identifier, render, vector_indexes
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import GraphLike, connect


class CandidateEngine:
    """Nearest-neighbour candidates inside Neo4j.

    An instance caches, per (target scope, vector property), the prepared index and the number of vectors, so
    repeated searches cost one round trip; after adding nodes or vectors to a scope it searched, call
    :meth:`refresh` (or use a new engine) so the scope label and size are checked again.
    """

    def __init__(self, graph: GraphLike | None = None, settings: EngineSettings | None = None) -> None:
        """``graph``: a :class:`Graph`, a ``neo4j.Driver``, a URI or settings (see :func:`connect`); none: the
        database the environment configures."""
        self.graph = connect(graph)
        self.settings = settings or EngineSettings()
        self._indexes: dict[tuple[Scope, str], ScopeIndex] = {}
        self._sizes: dict[tuple[Scope, str], int] = {}

    def refresh(self) -> None:
        """Forget what was cached about scopes (they changed)."""
        self._indexes.clear()
        self._sizes.clear()

    def _size(self, target: Scope, vector_property: str) -> int:
        key = (target, vector_property)
        if key not in self._sizes:
            self._sizes[key] = count_in_scope(self.graph, target, vector_property)
        return self._sizes[key]

    # -- preparation ---------------------------------------------------------------------------
    def prepare(self, target: Scope, vector_property: str, dimensions: int) -> ScopeIndex:
        """Make sure the target scope has its label and vector index (idempotent; cached per engine)."""
        key = (target, vector_property)
        if key not in self._indexes:
            s = self.settings
            self._indexes[key] = ensure_scope_index(
                self.graph, target, vector_property, dimensions,
                m=s.hnsw_m, ef_construction=s.hnsw_ef_construction, prefix=s.scope_label_prefix,
                timeout_s=s.index_timeout_s)
        return self._indexes[key]

    def _prepared(self, target: Scope, vector_property: str) -> ScopeIndex | None:
        """The scope's index, preparing it with the dimension of its stored vectors; None if it has no vectors."""
        if (target, vector_property) in self._indexes:
            return self._indexes[(target, vector_property)]
        rows = self.graph.run_text(render("candidates/vector_dimensions", label=target.label),
                                   scope=target.params(), vector_property=vector_property)
        if not rows or rows[0]["dimensions"] is None:
            return None
        return self.prepare(target, vector_property, rows[0]["dimensions"])

    # -- choice ----------------------------------------------------------------------------------
    def choose(self, source_kind: str, n_sources: int, target: Target, n_targets: int,
               index_ready: bool = True) -> str:
        """The back-end ``auto`` runs for this workload: exact when scanning every target costs less than index
        queries (plus building the index when ``index_ready`` is false), GDS for many node sources; the rates are
        :class:`EngineSettings`' measured ones."""
        s = self.settings
        if isinstance(target, Ids):
            return "exact"
        exact_seconds = n_sources * n_targets / s.exact_pairs_per_s
        build_seconds = 0.0 if index_ready else n_targets / s.index_build_vectors_per_s
        index_seconds = n_sources / s.index_queries_per_s + build_seconds
        if exact_seconds <= index_seconds:
            return "exact"
        if source_kind == "node" and s.bulk_min_sources and n_sources >= s.bulk_min_sources:
            return "bulk"
        return "single" if n_sources == 1 else "batched"

    def index_ready(self, target: Scope, vector_property: str) -> bool:
        """Whether the target scope's vector index exists already (then ``auto`` does not count building it)."""
        if (target, vector_property) in self._indexes:
            return True
        name = index_name(scope_label(target, self.settings.scope_label_prefix), vector_property)
        return any(i.name == name or (i.label, i.property) == (target.label, vector_property) and target.key is None
                   for i in vector_indexes(self.graph))

    # -- search ----------------------------------------------------------------------------------
    def search(self, source: Source, target: Target, *, k: int, vector_property: str,
               source_vector_property: str | None = None, floor: float = -1.0, exclude: Collection[str] = (),
               backend: str = "auto") -> dict[str, list[Hit]]:
        """For every source with a vector: its top-``k`` targets with cosine ≥ ``floor``, best first (ties by key).

        Sources without any hit map to ``[]``; sources without a vector (or unknown keys) are absent.
        """
        if k < 1:
            raise KgAgentsError(f"k must be at least 1, got {k}")
        if backend not in BACKENDS:
            raise KgAgentsError(f"Unknown back-end '{backend}'; expected one of {', '.join(BACKENDS)}")
        identifier(vector_property, "property")
        source_vector_property = identifier(source_vector_property or vector_property, "property")
        if backend in ("single", "batched", "bulk") and not isinstance(target, Scope):
            raise KgAgentsError(f"The '{backend}' back-end searches a target Scope; an explicit Ids list "
                                "is searched by the 'exact' back-end")
        sources = resolve_source(self.graph, source, source_vector_property)
        if not sources.rows:
            return {}
        if isinstance(target, Scope):
            n_targets = self._size(target, vector_property)
        else:
            n_targets = len(target.values)
        if backend == "auto":
            ready = isinstance(target, Ids) or self.index_ready(target, vector_property)
            chosen = self.choose(sources.kind, len(sources), target, n_targets, ready)
        else:
            chosen = backend
        if chosen == "bulk" and sources.kind != "node":
            raise KgAgentsError("The 'bulk' back-end (GDS KNN) needs node sources (a Scope or node Ids), "
                                "not raw vectors or relationships; use 'batched'")
        s = self.settings
        common: dict[str, Any] = {"k": k, "vector_property": vector_property,
                                  "source_vector_property": source_vector_property,
                                  "floor": floor, "exclude": exclusion_map(exclude)}
        if chosen == "exact" or n_targets == 0:
            targets = (resolve_target(self.graph, target, vector_property) if n_targets
                       else TargetIds("node", []))
            return search_exact(self.graph, sources, targets, batch_size=s.batch_size,
                                parallel=s.parallel_sessions, target_batch=s.exact_target_batch, **common)
        assert isinstance(target, Scope)
        if chosen == "bulk":
            return search_bulk(self.graph, sources, target, settings=s, **common)
        index = self._prepared(target, vector_property)
        if index is None:  # pragma: no cover - n_targets > 0 means a vector exists
            return {key: [] for key in sources.keys}
        single = chosen == "single"
        fetch = n_targets if n_targets <= s.exhaustive_below else fetch_size(k, s.fetch_factor, s.min_fetch)
        return search_index(self.graph, sources, index=index.name, size=n_targets, fetch=fetch,
                            batch_size=1 if single else s.batch_size, parallel=1 if single else s.parallel_sessions,
                            **common)

    def scope_label(self, scope: Scope) -> str:
        """The label the engine gives the nodes of ``scope`` (what its per-scope index covers)."""
        return scope_label(scope, self.settings.scope_label_prefix)

