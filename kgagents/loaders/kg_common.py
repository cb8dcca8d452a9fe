"""The graph model every knowledge-graph loader writes (JAPE pairs, head|rel|tail files, Wikidata N-Triples).

Model::

    (:KG {name, source, format, ...})                 one per knowledge graph
    (:Entity {kg, id, name, ...})                     unique per (kg, id)
    (:Relation {kg, id, name, type, ...})             the KG's relation catalogue; id = full relation id / URI
    (:Entity)-[:<type> {rel, name}]->(:Entity)        one relationship per distinct (head, relation, tail)
    (:Entity)-[:<type> {rel, name}]->(:Literal)       a value-typed statement (Wikidata; see wikidata.py)

The relationship *type* is the relation's short name (MetaQA ``directed_by``, Wikidata ``P31``, the DBpedia
property's local name such as ``birthPlace`` or ``毗邻``), so users write natural Cypher
(``MATCH (m)-[:directed_by]->(d)``); ``rel`` is the full relation id (= ``Relation.id``, e.g. the property URI),
which keeps two relations whose short names coincide apart (DBP15K has ``…/property/country/region`` and
``…/property/region``); ``name`` is the relation's readable name (Wikidata: the property's English label).

Why ``CREATE`` and not ``MERGE``: types are Cypher 5.26 dynamic types (``$(row.type)``, parameterised, so
no identifier validation is needed and any name — ``country/region``, ``毗邻`` — is a valid type). But on
Neo4j 5.26 ``MERGE (a)-[:$(row.type)]->(b)`` is planned as a scan of *all* relationships per row (quadratic:
the DBP15K pair had not finished after 13 minutes), and so was a ``NOT EXISTS { (a)-[x]->(b) … }`` guard,
because the planner's statistics see an empty graph while the load's own transaction fills it.
``apoc.merge.relationship`` works (≈150 s for DBP15K on this shared 2-core machine) but needs APOC. So the
loader reads the triples the KG already has (``kg/existing_triples``, one index-seek + expand pass inside the
same transaction), leaves those out in Python, and ``CREATE``s the rest with a dynamic type (the DBP15K pair,
165,556 triples, now loads in ≈13 s, a re-load in ≈10 s); duplicates
inside one input are removed while parsing, so parallel duplicate triples become one relationship and a
re-load creates nothing. ``USING INDEX SEEK`` hints keep the endpoint lookups index seeks for the same
reason (the planner otherwise picks an index *scan* per row). Two loads into the same KG must not run
concurrently (the transaction's locks do not cover relationships that do not exist yet).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel

from kgagents.cypher import cypher
from kgagents.graph.connection import Graph, Tx

Progress = Callable[[int], None]

#: path segments after which a DBpedia-style URI's local name starts (it may contain '/', e.g. ``country/region``)
_LOCAL_NAME_MARKERS = ("/resource/", "/property/", "/ontology/")


def local_name(uri: str) -> str:
    """The URL-decoded local name of a URI: after a DBpedia namespace (``/resource/``, ``/property/``,
    ``/ontology/``; names like ``C#`` or ``F/A-18E`` stay whole), else after '#', else after the last '/'."""
    marker = next((m for m in _LOCAL_NAME_MARKERS if m in uri), None)
    if marker is not None:
        tail = uri.split(marker, 1)[1]
    elif "#" in uri:
        tail = uri.rsplit("#", 1)[1]
    else:
        tail = uri.rstrip("/").rsplit("/", 1)[-1]
    return unquote(tail)


def readable_name(uri: str) -> str:
    """A display name from a URI: local name, underscores as spaces, runs of whitespace collapsed."""
    return " ".join(local_name(uri).replace("_", " ").split())


@dataclass
class KGData:
    """One knowledge graph parsed into rows, ready to write. Parse everything first, then write once."""

    name: str
    props: dict[str, Any]
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    relations: dict[str, dict[str, Any]] = field(default_factory=dict)
    triples: dict[tuple[str, str, str], None] = field(default_factory=dict)  # ordered set of (head, rel, tail)
    literals: dict[str, dict[str, Any]] = field(default_factory=dict)  # literal id -> row
    duplicate_triples: int = 0

    def entity(self, key: str, /, **props: Any) -> None:
        """Add (or extend) an entity; ``name`` defaults to the id. ``None`` values are not stored."""
        current = self.entities.setdefault(key, {"name": key})
        current.update({k: v for k, v in props.items() if v is not None})

    def relation(self, key: str, /, *, name: str, type: str, **props: Any) -> None:
        """Add a catalogue relation; ``type`` becomes the relationship type of its triples."""
        if not type:
            raise ValueError(f"relation {key!r} has an empty short name; it cannot be a relationship type")
        current = self.relations.setdefault(key, {})
        current.update({"name": name, "type": type, **{k: v for k, v in props.items() if v is not None}})

    def triple(self, head: str, rel: str, tail: str) -> None:
        """Add a triple between two entities already added; a repeated triple is counted, not stored twice."""
        key = (head, rel, tail)
        if key in self.triples:
            self.duplicate_triples += 1
        else:
            self.triples[key] = None

    def literal(self, head: str, rel: str, value: str, datatype: str | None, lang: str | None) -> None:
        """A statement whose object is a value, stored as its own ``(:Literal)`` node (see wikidata.py)."""
        key = "\x1f".join((head, rel, value, datatype or "", lang or ""))
        lid = hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]
        if lid in self.literals:
            self.duplicate_triples += 1
        else:
            self.literals[lid] = {"h": head, "rel": rel, "id": lid, "value": value, "datatype": datatype,
                                  "lang": lang}

    def counts(self) -> dict[str, int]:
        return {"entities": len(self.entities), "relations": len(self.relations),
                "triples": len(self.triples), "literals": len(self.literals)}


class KGLoadResult(BaseModel):
    """What one knowledge graph load produced (distinct counts, as written)."""

    kg: str
    entities: int
    relations: int
    triples: int
    literals: int = 0
    duplicate_triples: int = 0
    seconds: float = 0.0


def write_kg(graph: Graph, tx: Tx, data: KGData, progress: Progress | None = None) -> KGLoadResult:
    """Write one parsed KG inside ``tx`` (KG node, entities, relation catalogue, triples, literals)."""
    tx.run(cypher("kg/merge_kg"), name=data.name, props=data.props).consume()
    kg = data.name
    graph.write_rows(tx, "kg/merge_entities", ({"id": k, "props": v} for k, v in data.entities.items()),
                     on_batch=progress, kg=kg)
    graph.write_rows(tx, "kg/merge_relations", ({"id": k, "props": v} for k, v in data.relations.items()),
                     on_batch=progress, kg=kg)
    rel = data.relations
    stored = {(r["h"], r["rel"], r["t"]) for r in tx.run(cypher("kg/existing_triples"), kg=kg)}
    graph.write_rows(tx, "kg/create_triples",
                     ({"h": h, "t": t, "rel": r, "type": rel[r]["type"], "name": rel[r]["name"]}
                      for h, r, t in data.triples if (h, r, t) not in stored),
                     on_batch=progress, kg=kg)
    if data.literals:
        stored_ids = {r["id"] for r in tx.run(cypher("kg/existing_literals"), kg=kg)}
        graph.write_rows(tx, "kg/create_literals",
                         ({**lit, "type": rel[lit["rel"]]["type"], "name": rel[lit["rel"]]["name"]}
                          for lid, lit in data.literals.items() if lid not in stored_ids),
                         on_batch=progress, kg=kg)
    return KGLoadResult(kg=kg, duplicate_triples=data.duplicate_triples, **data.counts())


def kg_stats(graph: Graph, kg: str) -> dict[str, int]:
    """Counts of what is in the graph for one KG (entities, relations, triples, literals, gold links out)."""
    return graph.run("kg/stats", kg=kg)[0]


def delete_kg(graph: Graph, kg: str) -> None:
    """Remove one KG and everything in it (its load records stay as history). Other KGs are untouched."""
    graph.run("kg/delete_kg", kg=kg)


def get_entity(graph: Graph, kg: str, entity_id: str) -> dict[str, Any] | None:
    """The stored properties of one entity, or None."""
    rows = graph.run("kg/entity", kg=kg, id=entity_id)
    return rows[0]["entity"] if rows else None


def get_relations(graph: Graph, kg: str) -> dict[str, dict[str, Any]]:
    """The KG's relation catalogue: relation id → properties (name, type, …)."""
    return {row["relation"]["id"]: row["relation"] for row in graph.run("kg/relations", kg=kg)}


def triples_between(graph: Graph, kg: str, head: str, tail: str) -> list[dict[str, str]]:
    """Relationship type, ``rel`` and ``name`` of every triple head → tail."""
    return graph.run("kg/triples_between", kg=kg, head=head, tail=tail)
