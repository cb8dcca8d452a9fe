"""Per-scope labels and vector indexes: how a search covers only the target scope.

Neo4j 5.26 vector search has no pre-filter, so one index over every KG and ontology forces over-fetching and
post-filtering. Instead every node of a scope gets an extra label derived from the scope (readable, plus a
hash so two scopes never share one), and each (scope label, vector property) gets its own vector index: a
query on it returns only in-scope nodes. The label is set before the index is created, so the index is built
in one population pass (one Lucene segment on the local server) rather than grown by many small updates.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from kgagents.embeddings.index import Scope, ensure_vector_index, identifier, render, vector_indexes
from kgagents.graph.connection import Graph, Row

_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")
_MAX_READABLE = 40


def scope_label(scope: Scope, prefix: str = "Scope") -> str:
    """The extra label of a scope's nodes, e.g. ``Scope_Class_cmt_1a2b3c4d`` (a whole-label scope is its label)."""
    if scope.key is None:
        return scope.label
    readable = _UNSAFE.sub("_", f"{scope.label}_{scope.value}").strip("_")[:_MAX_READABLE]
    digest = hashlib.sha1(repr((scope.label, scope.key, scope.value, scope.many)).encode()).hexdigest()[:8]
    return identifier(f"{prefix}_{readable}_{digest}", "label")


ONTOLOGY_LABELS = frozenset({"Resource", "Class", "Relationship", "Property"})


def key_property(scope: Scope) -> str:
    """The property that names a node of the scope: ``uri`` for ontology resources (a scope on ``ontologies``
    or an ontology label), ``id`` for everything else (KG entities, other node sets such as benchmark vectors)."""
    return "uri" if scope.key == "ontologies" or scope.label in ONTOLOGY_LABELS else "id"


def index_name(label: str, vector_property: str) -> str:
    return identifier(f"{label}__{vector_property}", "index")


@dataclass(frozen=True)
class ScopeIndex:
    """A vector index covering exactly one scope's vectors of one property."""

    scope: Scope
    label: str
    name: str
    vector_property: str


def label_scope(graph: Graph, scope: Scope, label: str) -> None:
    """Make the nodes carrying ``label`` exactly the nodes of ``scope`` (idempotent; cheap when nothing changed)."""
    if label == scope.label:
        return
    graph.run_text(render("candidates/label_scope", label=scope.label, scope_label=label), scope=scope.params())
    graph.run_text(render("candidates/unlabel_scope", label=scope.label, scope_label=label), scope=scope.params())


def ensure_scope_index(graph: Graph, scope: Scope, vector_property: str, dimensions: int, *,
                       m: int, ef_construction: int, prefix: str = "Scope", timeout_s: float = 3600.0) -> ScopeIndex:
    """Label the scope's nodes, then create (if missing) and await the vector index over just them.

    A whole-label scope (no key) reuses an index that already covers (label, property) under any name.
    """
    identifier(vector_property, "property")
    label = scope_label(scope, prefix)
    label_scope(graph, scope, label)
    name = index_name(label, vector_property)
    if scope.key is None:
        name = next((i.name for i in vector_indexes(graph) if (i.label, i.property) == (label, vector_property)), name)
    ensure_vector_index(graph, name=name, label=label, property=vector_property, dimensions=dimensions,
                        m=m, ef_construction=ef_construction, timeout_s=timeout_s)
    return ScopeIndex(scope, label, name, vector_property)


def scope_members(graph: Graph, scope: Scope, vector_property: str) -> list[Row]:
    """``{id, key}`` of every node of ``scope`` with ``vector_property``, by key."""
    return graph.run_text(render("candidates/scope_members", label=scope.label),
                          scope=scope.params(), vector_property=identifier(vector_property, "property"))


def resolve_keys(graph: Graph, scope: Scope, keys: list[str]) -> dict[str, str]:
    """Key → element id of the nodes of ``scope`` named in ``keys`` (unknown keys are absent)."""
    rows = graph.run_text(render("candidates/resolve_keys", label=scope.label, key_property=key_property(scope)),
                          scope=scope.params(), keys=keys)
    return {row["key"]: row["id"] for row in rows}


def count_in_scope(graph: Graph, scope: Scope, vector_property: str) -> int:
    """How many nodes of ``scope`` carry ``vector_property``."""
    return graph.run_text(render("embeddings/count_vectors", label=scope.label),
                          vector_property=identifier(vector_property, "property"), scope=scope.params())[0]["n"]
