"""The candidate engine finds what the labels mean: hand-written expectations on a two-ontology fixture.

Expected pairs are written by hand from the meaning of the labels in tests/fixtures/embeddings/two_ontologies.cypher
(conf_a / conf_b pair up by meaning; conf_c is a decoy ontology full of near-copies of "Conference paper"),
not computed with the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.candidates import CandidateEngine, Vectors
from kgagents.embeddings.index import Scope, embed_nodes
from kgagents.embeddings.local_minilm import LocalMiniLM
from kgagents.graph.connection import Graph

A = "http://a.example/conf#"
B = "http://b.example/onto#"
PERSON = "http://xmlns.com/foaf/0.1/Person"
B_CLASSES = {B + n for n in ("PaperPresentedAtConference", "Referee", "Accommodation", "Fee", "PC", "GalaDinner")}
EXPECTED = {  # class of conf_a -> the conf_b class meaning the same thing
    A + "ConferencePaper": B + "PaperPresentedAtConference",
    A + "Reviewer": B + "Referee",
    A + "Hotel": B + "Accommodation",
    A + "RegistrationFee": B + "Fee",
    A + "ProgramCommittee": B + "PC",
    A + "Banquet": B + "GalaDinner",
}
CONF_A, CONF_B = Scope.ontology("conf_a", label="Class"), Scope.ontology("conf_b", label="Class")


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture
def indexed(graph: Graph, fixtures: Path, embedder: LocalMiniLM) -> Graph:
    graph.run_text((fixtures / "embeddings" / "two_ontologies.cypher").read_text())
    for name in ("conf_a", "conf_b", "conf_c"):
        embed_nodes(graph, embedder, scope=Scope.ontology(name), text_properties="name", vector_property="embedding")
    return graph


@pytest.mark.integration
@pytest.mark.parametrize("backend", ("exact", "single", "batched"))
def test_a_paraphrase_is_found_and_decoys_never_leave_their_scope(indexed: Graph, embedder: LocalMiniLM,
                                                                 backend: str) -> None:
    engine = CandidateEngine(indexed)
    query = Vectors(embedder.embed(["Conference paper"]))
    everywhere = engine.search(query, Scope("Class"), k=5, vector_property="embedding", backend=backend)["0"]
    assert any(h.key.startswith("http://c.example/") for h in everywhere)  # decoys outrank conf_b …
    best = engine.search(query, CONF_B, k=1, vector_property="embedding", backend=backend)["0"]
    assert [h.key for h in best] == [B + "PaperPresentedAtConference"]
    five = engine.search(query, CONF_B, k=5, vector_property="embedding", backend=backend)["0"]
    assert len(five) == 5 and {h.key for h in five} <= B_CLASSES | {PERSON}  # … but never pass the scope


@pytest.mark.integration
@pytest.mark.parametrize("backend", ("exact", "single", "batched", "bulk"))
def test_each_class_pairs_with_its_counterpart(indexed: Graph, backend: str) -> None:
    engine = CandidateEngine(indexed)
    top1 = engine.search(CONF_A, CONF_B, k=1, vector_property="embedding", floor=0.5, backend=backend)
    assert {s: [h.key for h in top1.get(s, [])] for s in EXPECTED} == {s: [t] for s, t in EXPECTED.items()}
    assert all(h.key in B_CLASSES | {PERSON} and h.cosine >= 0.5 for hits in top1.values() for h in hits)
    assert all(h.key != s for s, hits in top1.items() for h in hits)  # the shared Person never matches itself
    assert not any(engine.search(CONF_A, CONF_B, k=1, vector_property="embedding", floor=0.99,
                                 backend=backend).values())
    props = engine.search(Scope.ontology("conf_a", label="ObjectProperty"),
                          Scope.ontology("conf_b", label="ObjectProperty"), k=2, vector_property="embedding",
                          backend=backend)
    assert {s: [h.key for h in hits] for s, hits in props.items()} == {A + "writes": [B + "isAuthorOf"]}
