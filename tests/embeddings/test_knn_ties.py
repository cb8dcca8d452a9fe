"""Equal cosines are ranked by URI, not by node creation order: which tied candidates make the top k is the
same on every run and in every database (a re-run of anatomy must not gain or lose a match by chance)."""

from __future__ import annotations

import pytest

from kgagents.embeddings.index import Scope, drop_vector_index, ensure_vector_index, knn_for_nodes
from kgagents.graph.connection import Graph

TARGETS = ["http://t#a", "http://t#b", "http://t#c", "http://t#d"]


@pytest.mark.parametrize("creation_order", [TARGETS, TARGETS[::-1]])
def test_tied_candidates_are_cut_at_k_by_uri(graph: Graph, creation_order: list[str]) -> None:
    ensure_vector_index(graph, name="tie_vec", label="TieTest", property="vec", dimensions=3)
    try:
        graph.run_text("CREATE (:TieTest {uri: 'http://s#x', ontologies: ['s'], vec: [1.0, 0.5, 0.0]})")
        for uri in creation_order:  # identical vectors: every target has the same cosine to the source
            graph.run_text("CREATE (:TieTest {uri: $uri, ontologies: ['t'], vec: [0.5, 1.0, 0.0]})", uri=uri)
        graph.run("embeddings/await_index", index_name="tie_vec", timeout_s=60)
        pairs = knn_for_nodes(graph, index="tie_vec", k=2, node_scope=Scope("TieTest", "ontologies", "s", many=True),
                              target_scope=Scope("TieTest", "ontologies", "t", many=True))
        assert [p.target.key for p in pairs] == TARGETS[:2]
    finally:
        drop_vector_index(graph, "tie_vec")
