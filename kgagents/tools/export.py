"""Read an A-Box back out of Neo4j: as RDF Turtle, or as (subject, relation, object) label triples.

Turtle is what other RDF tools consume (``rdf:type``, ``rdfs:label``, one triple per assertion, typed
literals, ``owl:sameAs`` to grounded reference-KG entities). Label triples are what Text2KGBench
scores: subject label, the relation's name, and the object's label or literal value.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from kgagents.graph.connection import Graph


def abox_rows(graph: Graph, abox: str) -> list[dict[str, Any]]:
    """Instances of ``abox`` with their assertions (``tools/export``)."""
    return graph.run("tools/export", abox=abox)


def entity_iri(kg: str, entity_id: str) -> str:
    """A reference-KG entity's IRI: its id when that is an IRI, else a URN naming the KG."""
    if "://" in entity_id:
        return entity_id
    return f"urn:kgagents:kg:{quote(kg, safe='')}:{quote(entity_id, safe='')}"


def export_turtle(graph: Graph, abox: str) -> str:
    """The A-Box as Turtle (deterministic: rdflib sorts subjects and predicates)."""
    g = rdflib.Graph()
    g.bind("owl", OWL)
    for row in abox_rows(graph, abox):
        node = rdflib.URIRef(row["iri"])
        g.add((node, RDF.type, rdflib.URIRef(row["class"])))
        g.add((node, RDFS.label, rdflib.Literal(row["label"])))
        for a in row["assertions"]:
            obj: rdflib.term.Node = (rdflib.URIRef(a["iri"]) if a["iri"] is not None
                                     else rdflib.Literal(a["value"], datatype=rdflib.URIRef(a["datatype"])))
            g.add((node, rdflib.URIRef(a["property"]), obj))
        for same in row["same_as"]:
            g.add((node, OWL.sameAs, rdflib.URIRef(entity_iri(same["kg"], same["id"]))))
    return g.serialize(format="turtle")


def label_triples(graph: Graph, abox: str) -> list[tuple[str, str, str]]:
    """``(subject label, relation name, object label or value)`` for every assertion, sorted."""
    out = {(row["label"], a["name"], a["label"] if a["iri"] is not None else a["value"])
           for row in abox_rows(graph, abox) for a in row["assertions"]}
    return sorted(out)
