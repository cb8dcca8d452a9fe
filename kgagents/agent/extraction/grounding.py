"""Ground created instances in a reference KG already in Neo4j: lexical candidates, deterministic choice.

Candidates come from a full-text index on ``(:Entity).name`` (fuzzy terms, so "Kuttikkatoor" still finds
"Kuttikkattoor"); each is scored by the similarity of normalised labels (1.0 when equal, else
difflib's ratio), and the best one at or above ``min_score`` is linked — ties broken by entity id, so
the same graph always gives the same links. Links are ``(:Instance)-[:OWL_SAME_AS {score}]->(:Entity)``
and export as ``owl:sameAs``. No LLM is involved.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from kgagents.tools import om2_units as om
from kgagents.tools.datatypes import normalise_label
from kgagents.tools.runtime import ToolRuntime

CANDIDATES = 25


def lucene_query(label: str) -> str | None:
    """Fuzzy terms of a label (Lucene syntax characters dropped), or None when nothing is left."""
    terms = [t for t in re.findall(r"\w+", normalise_label(label)) if t]
    return " ".join(f"{t}~1" if len(t) > 3 else t for t in terms) or None


def similarity(a: str, b: str) -> float:
    ka, kb = normalise_label(a), normalise_label(b)
    return 1.0 if ka == kb else difflib.SequenceMatcher(None, ka, kb).ratio()


def ground_instances(runtime: ToolRuntime, kg: str, min_score: float) -> list[dict[str, Any]]:
    """Link every naming instance of the runtime's A-Box to its best reference entity; returns the links."""
    graph = runtime.graph
    links = []
    for inst in graph.run("tools/groundable", abox=runtime.abox, excluded=[om.MEASURE, om.UNIT]):
        query = lucene_query(inst["label"])
        if query is None:
            continue
        candidates = graph.run("tools/ground_candidates", query=query, kg=kg, limit=CANDIDATES)
        scored = sorted(((similarity(inst["label"], c["name"] or ""), c["id"]) for c in candidates),
                        key=lambda x: (-x[0], x[1]))
        if scored and scored[0][0] >= min_score:
            links.append({"iri": inst["iri"], "label": inst["label"], "id": scored[0][1],
                          "score": round(scored[0][0], 4)})
    with graph.transaction() as tx:
        graph.write_rows(tx, "tools/write_same_as", links, abox=runtime.abox, kg=kg)
    return links
