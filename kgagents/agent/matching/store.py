"""Matching results in Neo4j (``MATCHES`` relationships) and as an Alignment API file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping as MappingType
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from kgagents.cypher import cypher
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import Alignment, Cell, write_alignment
from kgagents.loaders.sssom import (
    UNSPECIFIED_LICENSE,
    Mapping,
    iri_namespace,
    sssom_prefixes,
    tool_version,
    write_sssom,
)


def write_matches(graph: Graph, state: MappingType[str, Any], mode: str, model: str) -> None:
    """Write the run's pairs as ``MATCHES`` relationships (one per pair and run) in one transaction, and tie the
    run to its two ontologies. The ``(:Run)`` node itself is the run store's (:mod:`kgagents.graph.runs`)."""
    rows = [{"source": m["source"], "target": m["target"], "score": float(m["score"]),
             "similarity": m.get("similarity"), "channels": list(m["channels"]), "validated": bool(m["validated"]),
             "reason": m.get("reason"), "log_odds": m.get("log_odds"), "confidence": m.get("confidence")}
            for m in state.get("matches", [])]
    with graph.transaction() as tx:
        graph.write_rows(tx, "matching/write_matches", rows, run_id=state["run_id"], model=model, mode=mode)
        tx.run(cypher("matching/run_on"), run_id=state["run_id"], source=state["source"],
               target=state["target"]).consume()


def run_alignment(graph: Graph, run_id: str, source: str, target: str) -> Alignment:
    """The run's matches as an Alignment API alignment (relation '=', measure = the pair's confidence; runs stored
    before confidences were: the fused score capped at 1)."""
    rows = graph.run("matching/run_matches", run_id=run_id)
    cells = [Cell(entity1=r["source"], entity2=r["target"], relation="=",
                  measure=float(r["confidence"]) if r["confidence"] is not None else min(1.0, float(r["score"])))
             for r in rows]
    uris = [(graph.run("matching/ontology_uri", ontology=o) or [{"uri": o}])[0]["uri"] for o in (source, target)]
    return Alignment(onto1=uris[0], onto2=uris[1], cells=cells)


def export_alignment(graph: Graph, run_id: str, source: str, target: str, path: Path) -> Alignment:
    alignment = run_alignment(graph, run_id, source, target)
    write_alignment(alignment, path)
    return alignment


# -- SSSOM ---------------------------------------------------------------------------------------
SEMAPV = "https://w3id.org/semapv/vocab/"
EXACT_MATCH = "http://www.w3.org/2004/02/skos/core#exactMatch"


def justification(channels: Sequence[str], validated: bool) -> str:
    """The semapv justification of a pair from the channels that found it: a pair the LLM validated was reviewed;
    evidence of more than one family (lexical and background, say) is a composite."""
    if validated:
        return SEMAPV + "MappingReview"
    # a name without ':' is a retrieval channel (the "lexical" one embeds labels), but for the structural stage
    families = {_FAMILIES[c.split(":", 1)[0]] if ":" in c and c.split(":", 1)[0] in _FAMILIES
                else "StructuralMatching" if c == "structural" else "SemanticSimilarityThresholdMatching"
                for c in channels}
    if len(families) > 1:
        return SEMAPV + "CompositeMatching"
    return SEMAPV + (families.pop() if families else "UnspecifiedMatching")


_FAMILIES = {"lexical": "LexicalMatching", "background": "BackgroundKnowledgeBasedMatching"}


def run_sssom(graph: Graph, run_id: str, source: str, target: str) -> tuple[list[Mapping], dict[str, Any],
                                                                              dict[str, str]]:
    """The run's matches as SSSOM mappings (IRIs), the mapping set's metadata, and the prefixes that compress
    them (:func:`sssom_prefixes`)."""
    rows = graph.run("matching/run_matches", run_id=run_id)
    mappings = [Mapping(subject_id=r["source"], predicate_id=EXACT_MATCH, object_id=r["target"],
                        mapping_justification=justification(r["channels"] or [], bool(r["validated"])),
                        confidence=float(r["confidence"]) if r["confidence"] is not None else None,
                        subject_label=r["source_label"], object_label=r["target_label"], comment=r["reason"],
                        reviewer_label=r["model"] if r["validated"] else None)
                for r in rows]
    uris = [(graph.run("matching/ontology_uri", ontology=o) or [{"uri": None}])[0]["uri"] for o in (source, target)]
    uris = [u if u and ":" in u else None for u in uris]  # the query falls back to the name of an IRI-less ontology
    metadata: dict[str, Any] = {
        "mapping_set_id": f"https://w3id.org/kgagents/run/{run_id}", "license": UNSPECIFIED_LICENSE,
        "mapping_tool": "kgagents", "mapping_tool_version": tool_version(),
        **({"subject_source": uris[0]} if uris[0] else {}), **({"object_source": uris[1]} if uris[1] else {}),
        "mapping_date": date.today().isoformat(),
        "comment": f"kgagents matching run {run_id}: {source} → {target}; confidence is the calibrated confidence "
                   "(kgagents.agent.matching.confidence)"}
    sides = ([m.subject_id for m in mappings], [m.object_id for m in mappings])
    # an ontology without an IRI of its own names the namespace most of its matched entities are in
    named = [uri or next((ns for ns, _ in Counter(map(iri_namespace, side)).most_common(1)), None)
             for uri, side in zip(uris, sides, strict=True)]
    return mappings, metadata, sssom_prefixes([*sides[0], *sides[1]], {source: named[0], target: named[1]})


def export_sssom(graph: Graph, run_id: str, source: str, target: str, path: Path) -> int:
    """Write the run's matches as SSSOM TSV; returns how many."""
    mappings, meta, prefixes = run_sssom(graph, run_id, source, target)
    write_sssom(path, mappings, meta, prefixes)
    return len(mappings)
