"""The domain context the LLM steps are given, derived from the two ontologies themselves.

Agent-OM's prompts name the domain ("conference", "anatomy"). A fixed default is wrong for every other domain, and
asking the user is easy to forget, so the context is built from what the ontologies say about themselves: their
title and description when the header has them (rdfs:label / rdfs:comment / Dublin Core of the ``owl:Ontology``),
else the last segment of their IRI, plus the top classes with the most classes below them (the ontology's main
concepts). ``--context`` still overrides it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.agent.matching.text import tokenize_name
from kgagents.graph.connection import Graph

TOP_CLASSES = 5
#: the root every OWL class is under: declared as a class by some files (OAEI mouse), never a concept of the domain
OWL_THING = "http://www.w3.org/2002/07/owl#Thing"
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


def main_concepts(classes: Sequence[Mapping[str, Any]], limit: int = TOP_CLASSES) -> list[str]:
    """Names of the top classes (no superclass in the ontology) with the most classes below them, most first;
    a top class with nothing below it is no main concept. ``classes``: ``{uri, name, parents}`` rows."""
    classes = [{**c, "parents": [p for p in c["parents"] if p != OWL_THING]} for c in classes if c["uri"] != OWL_THING]
    children: dict[str, list[str]] = defaultdict(list)
    for c in classes:
        for p in c["parents"]:
            children[p].append(c["uri"])
    counted = []
    for c in classes:
        if c["parents"]:
            continue
        seen: set[str] = set()
        todo = list(children[c["uri"]])
        while todo:
            uri = todo.pop()
            if uri not in seen:
                seen.add(uri)
                todo.extend(children[uri])
        seen.discard(c["uri"])
        if seen:
            counted.append((-len(seen), str(c["name"])))
    return [name for _, name in sorted(counted)[:limit]]


def describe_ontology(graph: Graph, ontology: str) -> str:
    """One line about one loaded ontology: title or IRI name, first sentence of its description, main concepts."""
    rows = graph.run("matching/ontology_context", ontology=ontology)
    if not rows:
        return ontology
    row = rows[0]
    parts = [row["label"] or _iri_name(row["uri"]) or row["name"]]
    if row["comment"]:
        parts.append(f"({_short(row['comment'])})")
    tops = main_concepts(row["classes"])
    if tops:
        parts.append("with main concepts " + ", ".join(" ".join(tokenize_name(t)) for t in tops))
    return " ".join(parts)


def derive_context(graph: Graph, source: str, target: str) -> str:
    """The context of matching ``source`` with ``target``: both ontologies described by their own metadata."""
    return f"matching ontology {describe_ontology(graph, source)} with ontology {describe_ontology(graph, target)}"
