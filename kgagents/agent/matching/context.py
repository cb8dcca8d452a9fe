"""The domain context the LLM steps are given, derived from the two ontologies themselves.

Agent-OM's prompts name the domain ("conference", "anatomy"). A fixed default is wrong for every other domain, and
asking the user is easy to forget, so the context is built from what the ontologies say about themselves: their
title and description when the header has them (rdfs:label / rdfs:comment / Dublin Core of the ``owl:Ontology``),
else the last segment of their IRI, plus the top classes with the most classes below them (the ontology's main
concepts). ``--context`` still overrides it.
"""

from __future__ import annotations

import re

from kgagents.agent.matching.text import tokenize_name
from kgagents.graph.connection import Graph

TOP_CLASSES = 5
MAX_DESCRIPTION = 160
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def _short(text: str) -> str:
    """The first sentence of a description, cut at :data:`MAX_DESCRIPTION` characters."""
    first = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    return first if len(first) <= MAX_DESCRIPTION else first[: MAX_DESCRIPTION - 1].rstrip() + "…"


def _iri_name(uri: str | None) -> str | None:
    tail = re.split(r"[/#]", uri.rstrip("/#"))[-1] if uri else ""
    tail = re.sub(r"\.(owl|rdf|ttl|xml|nt)$", "", tail)
    return tail or None


def describe_ontology(graph: Graph, ontology: str) -> str:
    """One line about one loaded ontology: title or IRI name, first sentence of its description, main concepts."""
    rows = graph.run("matching/ontology_context", ontology=ontology, limit=TOP_CLASSES)
    if not rows:
        return ontology
    row = rows[0]
    parts = [row["label"] or _iri_name(row["uri"]) or row["name"]]
    if row["comment"]:
        parts.append(f"({_short(row['comment'])})")
    if row["tops"]:
        parts.append("with main concepts " + ", ".join(" ".join(tokenize_name(t)) for t in row["tops"]))
    return " ".join(parts)


def derive_context(graph: Graph, source: str, target: str) -> str:
    """The context of matching ``source`` with ``target``: both ontologies described by their own metadata."""
    return f"matching ontology {describe_ontology(graph, source)} with ontology {describe_ontology(graph, target)}"
