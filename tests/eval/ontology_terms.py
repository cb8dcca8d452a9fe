"""What the tests need to know about ontology entities, read straight from the OWL files with rdflib
(independent of kgagents' own ontology loader)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import rdflib
from rdflib import OWL, RDF, RDFS


def parse(paths: Iterable[Path]) -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in paths:
        graph.parse(path, format="xml")
    return graph


def rdfs_labels(graph: rdflib.Graph) -> dict[str, list[str]]:
    """Every ``rdfs:label`` of every URI subject."""
    labels: dict[str, list[str]] = {}
    for subject, label in graph.subject_objects(RDFS.label):
        if isinstance(subject, rdflib.URIRef):
            labels.setdefault(str(subject), []).append(str(label))
    return labels


def classes(graph: rdflib.Graph) -> set[str]:
    return {str(s) for s in graph.subjects(RDF.type, OWL.Class) if isinstance(s, rdflib.URIRef)}


def properties(graph: rdflib.Graph) -> set[str]:
    kinds = (OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property)
    return {str(s) for kind in kinds for s in graph.subjects(RDF.type, kind) if isinstance(s, rdflib.URIRef)}
