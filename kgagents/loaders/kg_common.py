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
same transaction), leaves those out, and ``CREATE``s the rest with a dynamic type; duplicates inside one
input are removed before writing, so parallel duplicate triples become one relationship and a re-load
creates nothing. Two loads into the same KG must not run concurrently (the transaction's locks do not cover
relationships that do not exist yet).

What makes it fast: the entity write returns each node's id, and triples find their endpoints by id (no
(kg, id) index seek per endpoint, which the planner also tended to turn into an index *scan* per row); a KG
with no entities yet gets ``CREATE`` instead of ``MERGE``; and each batch of triples is grouped by relation,
so type, ``rel`` and ``name`` travel once per group instead of once per triple. Node ids are only used inside
the one transaction that created or matched the nodes, where they cannot be reused.
"""

from __future__ import annotations

import csv
import hashlib
import tempfile
import unicodedata
from array import array
from collections.abc import Callable, Iterator
from typing import IO, Any
from urllib.parse import unquote

import numpy as np
from pydantic import BaseModel, Field

from kgagents.cypher import cypher
from kgagents.graph.connection import Graph, Tx, batched

Progress = Callable[[int], None]

#: a short name longer than this is a sentence, not a relationship type: it is stored under a derived type
MAX_TYPE_LENGTH = 200
#: the prefix of a derived relationship type (see :func:`safe_type`)
DERIVED_PREFIX = "rel_"
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


def safe_type(uri: str, short: str) -> tuple[str, bool]:
    """The name a relation (its relationship type) or an attribute is stored under, and whether it was derived.

    Real data carries identifiers whose short name is empty, all whitespace or no usable type (machine-translated
    DBpedia properties such as ``http://ja.dbpedia.org/property/  ``); refusing the file would refuse a public
    benchmark. The short name, stripped, is kept when it is non-empty, has no control characters and at most
    :data:`MAX_TYPE_LENGTH` characters; otherwise the name is ``rel_`` + the first 12 hex digits of the SHA-1 of the
    full identifier — the same in every load and every loader, and distinct for distinct identifiers. The full
    identifier is always kept (``Relation.id``, the relationship's ``rel``); every loader goes through
    :meth:`KGData.relation` / :meth:`KGData.attribute_name`, which count the derived names for the load report.
    """
    name = short.strip()
    if name and len(name) <= MAX_TYPE_LENGTH and not any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        return name, False
    return DERIVED_PREFIX + hashlib.sha1(uri.encode("utf-8")).hexdigest()[:12], True


def readable_name(uri: str) -> str:
    """A display name from a URI: local name, underscores as spaces, runs of whitespace collapsed."""
    return " ".join(local_name(uri).replace("_", " ").split())


class KGData:
    """One knowledge graph parsed into rows, ready to write. Parse everything first, then write once.

    Why compact: a Wikidata subgraph has millions of statements, and a dict of string tuples costs ~300 bytes
    per triple. Entities and relations get dense integer indexes as they are first seen; each statement is
    three int32s in growing arrays (12 bytes), each literal statement adds its 80-bit id and is spooled, with
    its value, to an anonymous temporary file. Memory is O(entities) + ~24 bytes per statement. Duplicates are
    found once, by sorting the arrays (:meth:`unique_triples`), so a repeated statement becomes one
    relationship, as before.
    """

    def __init__(self, name: str, props: dict[str, Any]) -> None:
        self.name = name
        self.props = props
        self.entities: dict[str, dict[str, Any]] = {}  # id -> properties (only entities that have any)
        self.relations: dict[str, dict[str, Any]] = {}  # id -> properties (name, type, ...)
        self.entity_index: dict[str, int] = {}  # id -> dense index, in order of first appearance
        self.relation_index: dict[str, int] = {}
        self._triples = (array("i"), array("i"), array("i"))  # head, relation, tail indexes
        self._lit_rel = (array("i"), array("i"))  # head, relation indexes of literal statements
        self._lit_key = (array("Q"), array("H"))  # the literal id (80 bits of a SHA-1) as two integers
        self._spool: IO[str] | None = None  # literal rows: id, value, datatype, lang (CSV)
        self._unique: tuple[np.ndarray, np.ndarray] | None = None  # first occurrences (triples, literals)
        self.derived: set[str] = set()  # relation and attribute ids stored under a derived name (safe_type)

    # -- adding ----------------------------------------------------------------------------------------
    def _index(self, key: str) -> int:
        index = self.entity_index.get(key)
        if index is None:
            index = self.entity_index[key] = len(self.entity_index)
        return index

    def entity(self, key: str, /, **props: Any) -> None:
        """Add (or extend) an entity; ``name`` defaults to the id. ``None`` values are not stored."""
        self._index(key)
        values = {k: v for k, v in props.items() if v is not None}
        if values or key in self.entities:
            self.entities.setdefault(key, {"name": key}).update(values)

    def relation(self, key: str, /, *, name: str, type: str, **props: Any) -> None:
        """Add a catalogue relation; ``type`` (its short name) becomes the relationship type of its triples — or a
        derived one (:func:`safe_type`), marked ``derived_type`` on the relation, when it cannot be one."""
        type, derived = safe_type(key, type)
        if derived:
            self.derived.add(key)
            props["derived_type"] = True
        current = self.relations.get(key)
        if current is None:
            self.relation_index[key] = len(self.relation_index)
            current = self.relations[key] = {}
        current.update({"name": name.strip() or type, "type": type,
                        **{k: v for k, v in props.items() if v is not None}})

    def attribute_name(self, key: str, short: str) -> str:
        """The name attribute ``key`` (its short name ``short``) is stored under (:func:`safe_type`)."""
        name, derived = safe_type(key, short)
        if derived:
            self.derived.add(key)
        return name

    def triple(self, head: str, rel: str, tail: str) -> None:
        """Add a triple between two entities already added (a repeated triple is stored once, when written)."""
        heads, rels, tails = self._triples
        heads.append(self.entity_index[head])
        rels.append(self.relation_index[rel])
        tails.append(self.entity_index[tail])
        self._unique = None

    def literal(self, head: str, rel: str, value: str, datatype: str | None, lang: str | None) -> None:
        """A statement whose object is a value, stored as its own ``(:Literal)`` node (see wikidata.py)."""
        key = "\x1f".join((head, rel, value, datatype or "", lang or ""))
        digest = hashlib.sha1(key.encode("utf-8")).digest()
        self._lit_rel[0].append(self.entity_index[head])
        self._lit_rel[1].append(self.relation_index[rel])
        self._lit_key[0].append(int.from_bytes(digest[:8], "big"))
        self._lit_key[1].append(int.from_bytes(digest[8:10], "big"))
        if self._spool is None:
            self._spool = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
            self._spool_writer = csv.writer(self._spool)
        self._spool_writer.writerow((digest[:10].hex(), value, datatype or "", lang or ""))
        self._unique = None

    # -- reading ---------------------------------------------------------------------------------------
    def unique(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the first occurrence of every distinct triple and literal statement, in input order."""
        if self._unique is None:
            self._unique = (_first_occurrences(*(np.frombuffer(a, dtype=np.int32) for a in self._triples)),
                            _first_occurrences(np.frombuffer(self._lit_key[0], dtype=np.uint64),
                                               np.frombuffer(self._lit_key[1], dtype=np.uint16)))
        return self._unique

    @property
    def duplicate_triples(self) -> int:
        """Statements (triples and literal statements) that repeat an earlier one."""
        triples, literals = self.unique()
        return len(self._triples[0]) - len(triples) + len(self._lit_rel[0]) - len(literals)

    def triple_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(head, relation, tail) index arrays of the distinct triples, in input order."""
        keep = self.unique()[0]
        heads, rels, tails = (np.frombuffer(a, dtype=np.int32)[keep] for a in self._triples)
        return heads, rels, tails

    def triples(self) -> Iterator[tuple[str, str, str]]:
        """The distinct (head id, relation id, tail id) triples, in input order."""
        entity_ids, relation_ids = list(self.entity_index), list(self.relation_index)
        for h, r, t in zip(*(a.tolist() for a in self.triple_arrays())):
            yield entity_ids[h], relation_ids[r], entity_ids[t]

    def literal_rows(self) -> Iterator[tuple[int, int, str, str, str | None, str | None]]:
        """(head index, relation index, literal id, value, datatype, lang) of the distinct literal statements."""
        if self._spool is None:
            return
        keep = np.zeros(len(self._lit_rel[0]), dtype=bool)
        keep[self.unique()[1]] = True
        self._spool.flush()
        self._spool.seek(0)
        heads, rels = self._lit_rel
        for i, (lid, value, datatype, lang) in enumerate(csv.reader(self._spool)):
            if keep[i]:
                yield heads[i], rels[i], lid, value, datatype or None, lang or None
        self._spool.seek(0, 2)

    def literals(self) -> Iterator[dict[str, Any]]:
        """The distinct literal statements as rows (h = head id, rel = relation id, id, value, datatype, lang)."""
        entity_ids, relation_ids = list(self.entity_index), list(self.relation_index)
        for h, r, lid, value, datatype, lang in self.literal_rows():
            yield {"h": entity_ids[h], "rel": relation_ids[r], "id": lid, "value": value, "datatype": datatype,
                   "lang": lang}

    def entity_props(self, key: str) -> dict[str, Any]:
        """The properties an entity is written with (``name`` = the id unless set)."""
        return self.entities.get(key) or {"name": key}

    def counts(self) -> dict[str, int]:
        triples, literals = self.unique()
        return {"entities": len(self.entity_index), "relations": len(self.relations),
                "triples": len(triples), "literals": len(literals), "derived_types": len(self.derived)}

    def close(self) -> None:
        """Drop the literal spool file (also dropped when the object is garbage-collected)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None


def _first_occurrences(*columns: np.ndarray) -> np.ndarray:
    """Sorted positions of the first occurrence of each distinct row of the given equal-length columns."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(n),) + tuple(reversed(columns)))  # by columns, ties in input order
    new = np.ones(n, dtype=bool)
    for column in columns:
        ordered = column[order]
        new[1:] &= ordered[1:] == ordered[:-1]
    new[1:] = ~new[1:]
    return np.sort(order[new])


class KGLoadResult(BaseModel):
    """What one knowledge graph load produced (distinct counts, as written)."""

    kg: str
    entities: int
    relations: int
    triples: int
    literals: int = 0
    duplicate_triples: int = 0
    derived_types: int = Field(0, description="relations and attributes whose short name could be no relationship "
                               "type, stored under a derived name (safe_type)")
    seconds: float = 0.0


def write_kg(graph: Graph, tx: Tx, data: KGData, progress: Progress | None = None) -> KGLoadResult:
    """Write one parsed KG inside ``tx`` (KG node, entities, relation catalogue, triples, literals)."""
    tx.run(cypher("kg/merge_kg"), name=data.name, props=data.props).consume()
    nodes = _write_entities(graph, tx, data, progress)
    graph.write_rows(tx, "kg/merge_relations", ({"id": k, "props": v} for k, v in data.relations.items()),
                     on_batch=progress, kg=data.name)
    _write_triples(graph, tx, data, nodes, progress)
    if data.counts()["literals"]:
        stored_ids = {r["id"] for r in tx.run(cypher("kg/existing_literals"), kg=data.name)}
        relations = list(data.relations.items())
        graph.write_rows(tx, "kg/create_literals",
                         ({"node": int(nodes[h]), "id": lid, "value": value, "datatype": datatype, "lang": lang,
                           "rel": relations[r][0], "type": relations[r][1]["type"], "name": relations[r][1]["name"]}
                          for h, r, lid, value, datatype, lang in data.literal_rows() if lid not in stored_ids),
                         on_batch=progress, kg=data.name)
    return KGLoadResult(kg=data.name, duplicate_triples=data.duplicate_triples, **data.counts())


def _write_entities(graph: Graph, tx: Tx, data: KGData, progress: Progress | None) -> np.ndarray:
    """CREATE the entities of a KG that has none yet, else MERGE them; their node ids, by entity index.

    The node ids let the triples find their endpoints by id instead of two (kg, id) index seeks per triple.
    """
    fresh = not tx.run(cypher("kg/has_entities"), kg=data.name).single(strict=True)["found"]
    query = cypher("kg/create_entities" if fresh else "kg/merge_entities")
    nodes = np.empty(len(data.entity_index), dtype=np.int64)
    rows = ({"i": i, "id": key, "props": data.entity_props(key)} for i, key in enumerate(data.entity_index))
    for chunk in batched(rows, graph.settings.batch_size):
        for record in tx.run(query, rows=chunk, kg=data.name):
            nodes[record["i"]] = record["node"]
        if progress is not None:
            progress(len(chunk))
    return nodes


def _write_triples(graph: Graph, tx: Tx, data: KGData, nodes: np.ndarray, progress: Progress | None) -> None:
    """CREATE the triples not stored yet between the entities' node ids, each batch grouped by relation
    (type, rel and name travel once per group instead of once per triple)."""
    heads, rels, tails = data.triple_arrays()
    stored = {(r["h"], r["rel"], r["t"]) for r in tx.run(cypher("kg/existing_triples"), kg=data.name)}
    if stored:  # a re-load: leave out what is there
        keep = np.fromiter((t not in stored for t in data.triples()), dtype=bool, count=len(heads))
        heads, rels, tails = heads[keep], rels[keep], tails[keep]
    order = np.argsort(rels, kind="stable")
    rels = rels[order]
    pairs = np.stack([nodes[heads[order]], nodes[tails[order]]], axis=1)
    relations = list(data.relations.items())
    query = cypher("kg/create_triples")
    size = graph.settings.batch_size
    for lo in range(0, len(rels), size):
        chunk = rels[lo:lo + size]
        cuts = (np.flatnonzero(np.diff(chunk)) + 1).tolist()
        groups = []
        for a, b in zip([0, *cuts], [*cuts, len(chunk)]):
            key, props = relations[chunk[a]]
            groups.append({"type": props["type"], "rel": key, "name": props["name"],
                           "pairs": pairs[lo + a:lo + b].tolist()})
        tx.run(query, rows=groups).consume()
        if progress is not None:
            progress(len(chunk))


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
