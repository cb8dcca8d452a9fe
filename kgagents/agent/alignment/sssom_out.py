"""An entity alignment as an SSSOM mapping set: ``align --out pairs.sssom.tsv`` and ``ea export RUN --pairs
pairs.sssom.tsv``, so EA results travel in the format ontology mappings do (and read back as ``--seeds`` /
``--reference``).

Entities are named by the rule of :mod:`kgagents.loaders.entity_iri` (a URI id as itself, a Wikidata KG's ``Q42`` as
``wikidata:Q42``, any other id under ``https://w3id.org/kgagents/kg/<kg>/``), each KG's namespace prefixed by the
KG's name. The predicate is ``owl:sameAs``: an EA pair says two KG entities are one individual.

``confidence`` is the calibrated one (:mod:`~kgagents.agent.alignment.confidence`: how often retrieval's rank 1
was right at that margin on held-out seed links), left empty where there is none (no seed links, or a target the
EA-Agent chose over retrieval's rank 1). The fused retrieval score ranks a source's candidates but is no probability,
so it goes into the row's ``comment``, with whether the one-to-one assignment chose the pair and, for the EA-Agent's
decisions, the tool path.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kgagents.agent.alignment.aligned import AlignedPair, stored_pairs
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.loaders.entity_iri import WIKIDATA_ENTITY, entity_iri
from kgagents.loaders.sssom import (
    UNSPECIFIED_LICENSE,
    Mapping,
    iri_namespace,
    sssom_prefixes,
    tool_version,
    write_sssom,
)

SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
SEMAPV = "https://w3id.org/semapv/vocab/"


def export_ea_sssom(graph: Graph, name: str, path: Path | str) -> int:
    """Write the entity alignment stored as ``(:Alignment {name})`` (``kgagents align``, ``align_kgs``) as an SSSOM
    mapping set; returns the number of rows."""
    stored = stored_pairs(graph, name)
    if stored is None:
        raise KgAgentsError(f"No entity alignment named '{name}' in the graph (`kgagents align` writes one, named by "
                            "--name or its retrieval run id): MATCH (a:Alignment) RETURN a.name lists them.")
    kg1, kg2, pairs = stored
    return write_alignment_sssom(graph, path, name=name, kg1=kg1, kg2=kg2, pairs=pairs)


def write_alignment_sssom(graph: Graph, path: Path | str, *, name: str, kg1: str, kg2: str,
                          pairs: Sequence[AlignedPair]) -> int:
    """The pairs of the entity alignment ``name`` (``kg1`` → ``kg2``) as an SSSOM mapping set."""
    return write_ea_sssom(graph, Path(path), kg1=kg1, kg2=kg2, decisions=pairs,
                          set_id=f"https://w3id.org/kgagents/alignment/{quote(name, safe='')}",
                          comment=f"kgagents align: {kg1} → {kg2}, (:Alignment {{name: '{name}'}})")


def write_ea_sssom(graph: Graph, path: Path, *, kg1: str, kg2: str, decisions: Sequence[AlignedPair],
                   set_id: str, comment: str) -> int:
    """Write ``decisions`` (ids of ``kg1`` → ids of ``kg2``) as an SSSOM TSV mapping set; a decision a chat model
    made is a reviewed mapping (``semapv:MappingReview``, the model as ``reviewer_label``), the others composite
    matches of names and structure. Returns the number of rows."""
    names = {kg: _entities(graph, kg, ids) for kg, ids in
             ((kg1, [d.source for d in decisions]), (kg2, [d.target for d in decisions]))}
    mappings = [Mapping(subject_id=names[kg1][d.source][0], predicate_id=SAME_AS, object_id=names[kg2][d.target][0],
                        mapping_justification=SEMAPV + ("MappingReview" if d.reviewer else "CompositeMatching"),
                        subject_label=names[kg1][d.source][1], object_label=names[kg2][d.target][1],
                        confidence=d.confidence, comment=_row_comment(d),
                        reviewer_label=d.reviewer)
                for d in decisions]
    iris = {kg: [iri for iri, _ in side.values()] for kg, side in names.items()}
    metadata: dict[str, Any] = {
        "mapping_set_id": set_id, "license": UNSPECIFIED_LICENSE, "mapping_tool": "kgagents",
        "mapping_tool_version": tool_version(), "mapping_date": date.today().isoformat(),
        "comment": f"{comment}; ids by the rule of kgagents.loaders.entity_iri; confidence: the share of retrieval's "
                   "rank 1 right at that margin on held-out seed links (empty: not calibrated); each row's comment has "
                   "its fused retrieval score, which ranks but is no probability"}
    # one prefix per KG for its main namespace, whatever follows it ('Can't_Forget_Your_Love/Super_Music' too);
    # an IRI outside both gets a prefix of its own namespace
    chosen = dict(_prefix_name(kg, found) for kg, found in iris.items() if found)
    rest = [i for i in (*iris[kg1], *iris[kg2]) if not any(i.startswith(ns) for ns in chosen.values())]
    write_sssom(path, mappings, metadata, sssom_prefixes([*chosen.values(), *rest], chosen))
    return len(mappings)


def _entities(graph: Graph, kg: str, ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    """id → (IRI, name) of the entities ``ids`` of ``kg``."""
    wanted = sorted(set(ids))
    rows = graph.run("alignment_ea/entity_labels", kg=kg, ids=wanted)
    kg_format = rows[0]["format"] if rows else None
    labels = {r["id"]: r["name"] for r in rows}
    return {i: (entity_iri(kg, kg_format, i), labels.get(i)) for i in wanted}


def _prefix_name(kg: str, iris: Sequence[str]) -> tuple[str, str]:
    """(prefix, namespace): a KG's most frequent IRI namespace is prefixed by the KG's name, Wikidata's by
    ``wikidata``."""
    namespace = Counter(iri_namespace(i) for i in iris).most_common(1)[0][0]
    return ("wikidata" if namespace == WIKIDATA_ENTITY else kg), namespace


def _row_comment(d: AlignedPair) -> str:
    parts = ["no score" if math.isnan(d.score) else f"fused score {d.score:.4f}"]
    if d.decided_by == "retrieval":
        parts.append("chosen by the one-to-one assignment" if d.assigned else "not the one-to-one assignment's choice")
    else:
        parts.append(f"decided by the EA-Agent (tool path {d.decided_by or 'none'})")
    return "; ".join(parts)
