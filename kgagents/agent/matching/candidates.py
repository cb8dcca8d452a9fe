"""Per-channel vector retrieval in Neo4j and reciprocal rank fusion of the results.

For every entity of one side, each enabled channel asks the candidate engine
(:class:`kgagents.candidates.CandidateEngine`) for the top-k entities *of the other ontology and the same
kind* with cosine ≥ T (one search per channel and kind; the engine picks exact Cypher cosine for small
ontologies and a per-scope vector index or GDS KNN for large ones); the lists are fused with RRF.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable

from kgagents.agent.matching.fusion import Fused, reciprocal_rank_fusion
from kgagents.candidates import CandidateEngine, Ids
from kgagents.candidates.scopes import scope_members
from kgagents.embeddings.index import Scope
from kgagents.graph.connection import Graph

KINDS = ("Class", "Relationship", "Property")


def channel_property(channel: str, no_llm: bool) -> str:
    """Node property holding a channel's text. Offline, the lexical channel is label + synonyms."""
    if channel == "lexical" and no_llm:
        return "om_labels"
    return f"om_{channel}"


def vector_property(text_property: str) -> str:
    return f"{text_property}_vec"


def retrieve(
    graph: Graph,
    *,
    source: str,
    target: str,
    channels: Iterable[str],
    no_llm: bool,
    k: int,
    threshold: float,
    kinds: Iterable[str] = KINDS,
    exclude: Collection[str] = (),
    engine: CandidateEngine | None = None,
) -> dict[str, list[Fused]]:
    """Fused candidate lists for every entity of ``source`` that any channel found something for.

    Entities in ``exclude`` (already matched) are neither searched from nor returned: each channel's list
    holds the top ``k`` of what is left.
    """
    engine = engine or CandidateEngine(graph)
    lists: dict[str, dict[str, list[tuple[str, float]]]] = defaultdict(dict)
    for channel in channels:
        prop = vector_property(channel_property(channel, no_llm))
        for kind in kinds:
            sources = Scope(kind, "ontologies", source, many=True)
            wanted = [row["key"] for row in scope_members(graph, sources, prop) if row["key"] not in exclude]
            found = engine.search(Ids(wanted, by="key", scope=sources), Scope(kind, "ontologies", target, many=True),
                                  k=k, vector_property=prop, floor=threshold, exclude=exclude)
            for s, hits in found.items():
                if hits:
                    lists[s][channel] = [(h.key, h.cosine) for h in hits if h.key is not None]
    return {s: reciprocal_rank_fusion(chs) for s, chs in lists.items()}
