"""Per-channel vector retrieval in Neo4j and reciprocal rank fusion of the results.

For every entity of one side, each enabled channel asks the channel's vector index for the top-k
entities *of the other ontology and the same kind* with cosine ≥ T (one Cypher query per channel and
kind, see :func:`kgagents.embeddings.index.knn_for_nodes`); the lists are fused with RRF.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable

from kgagents.agent.matching.fusion import Fused, reciprocal_rank_fusion
from kgagents.embeddings.index import Scope, knn_for_nodes
from kgagents.graph.connection import Graph

KINDS = ("Class", "Relationship", "Property")


def channel_property(channel: str, no_llm: bool) -> str:
    """Node property holding a channel's text. Offline, the lexical channel is label + synonyms."""
    if channel == "lexical" and no_llm:
        return "om_labels"
    return f"om_{channel}"


def index_name(text_property: str) -> str:
    return text_property  # one vector index per channel text, named like the text property


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
) -> dict[str, list[Fused]]:
    """Fused candidate lists for every entity of ``source`` that any channel found something for.

    Pairs touching an entity in ``exclude`` (already matched) are dropped; twice k is fetched then so
    that up to k remain per channel.
    """
    lists: dict[str, dict[str, list[tuple[str, float]]]] = defaultdict(dict)
    for channel in channels:
        index = index_name(channel_property(channel, no_llm))
        for kind in kinds:
            pairs = knn_for_nodes(
                graph, index=index, k=2 * k if exclude else k, threshold=threshold,
                node_scope=Scope(kind, "ontologies", source, many=True),
                target_scope=Scope(kind, "ontologies", target, many=True),
            )
            for pair in pairs:
                s, t = pair.source.key, pair.target.key
                if s is None or t is None or s in exclude or t in exclude:
                    continue
                kept = lists[s].setdefault(channel, [])
                if len(kept) < k:  # pairs arrive best first per source
                    kept.append((t, pair.cosine))
    return {s: reciprocal_rank_fusion(chs) for s, chs in lists.items()}
