"""Equal cosines are ranked by key, not by node creation order: which tied candidates make the top k is the
same on every run and in every database (a re-run of anatomy must not gain or lose a match by chance)."""

from __future__ import annotations

import pytest

from kgagents.candidates import CandidateEngine, Ids
from kgagents.embeddings.index import Scope, drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph

TARGETS = ["http://t#a", "http://t#b", "http://t#c", "http://t#d"]


@pytest.mark.parametrize("backend", ["exact", "single", "batched", "bulk"])
@pytest.mark.parametrize("creation_order", [TARGETS, TARGETS[::-1]])
def test_tied_candidates_are_cut_at_k_by_key(graph: Graph, creation_order: list[str], backend: str) -> None:
    graph.run_text("MATCH (n:TieTest) DETACH DELETE n")
    graph.run_text("CREATE (:TieTest {uri: 'http://s#x', ontologies: ['s'], vec: [1.0, 0.5, 0.0]})")
    for uri in creation_order:  # identical vectors: every target has the same cosine to the source
        graph.run_text("CREATE (:TieTest {uri: $uri, ontologies: ['t'], vec: [0.5, 1.0, 0.0]})", uri=uri)
    engine = CandidateEngine(graph)
    try:
        hits = engine.search(Ids(["http://s#x"], by="key", scope=Scope("TieTest", "ontologies", "s", many=True)), Scope("TieTest", "ontologies", "t", many=True),
                             k=2, vector_property="vec", backend=backend)
        assert [h.key for h in hits["http://s#x"]] == TARGETS[:2]
    finally:
        for index in vector_indexes(graph):
            if index.property == "vec":
                drop_vector_index(graph, index.name)
        graph.run_text("MATCH (n:TieTest) DETACH DELETE n")
