"""The observation walks only the KG's relationship types, written into its queries (``cypher.with_types``): a hub's
other links — the run store's traces, which grow with every run — are never read, and answers are the same."""

from __future__ import annotations

from kgagents.agent.kgqa.observation import PathObserver, follow
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.cypher import cypher, with_types
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from tests.agent_kgqa.conftest import KG


def test_the_types_are_quoted_into_the_pattern_and_none_means_any_type() -> None:
    assert "-[r:`P27`|`has ``odd`` name`]-" in with_types("kgqa/follow_path", ["has `odd` name", "P27", "P27"])
    for none in (None, []):
        assert "-[r]-" in with_types("kgqa/follow_path", none)
    assert "{{types}}" in cypher("kgqa/expand_paths") and "{{types}}" not in with_types("kgqa/expand_paths", None)


def test_links_that_are_not_triples_change_no_observation_and_no_follow(movies: Graph) -> None:
    topic, question = "William Dieterle", "who starred in the films directed by X"
    observer = PathObserver(movies, KG, KGQASettings(mode="no_llm", min_expand=100, top_percent=1.0),
                            PathScorer(get_embedder(), KGQASettings()))
    path = ["directed_by^-1", "starred_actors"]

    def seen() -> tuple[list[tuple[tuple[str, ...], list[str], int]], list[dict[str, object]]]:
        paths = observer.observe(observer.scorer.query(question), [topic]).paths
        return [(tuple(p.path), p.ends, p.size) for p in paths], follow(movies, KG, topic, path, [topic], 100)

    before = seen()
    # links a graph holds besides the KG's triples: a trace touching the topic and a film, an alignment link from
    # the film to another KG's entity
    movies.run_text("MATCH (t:Entity {kg: $kg, id: $topic}), (f:Entity {kg: $kg, id: 'Kismet'}) "
                    "CREATE (x:QATrace:TypedWalkProbe {run_id: 'probe'})-[:TOUCHED {role: 'topic'}]->(t), "
                    "(x)-[:TOUCHED {role: 'answer'}]->(f), "
                    "(f)-[:ALIGNED_TO {score: 1.0}]->(:Entity:TypedWalkProbe {kg: 'other', id: 'Y'})",
                    kg=KG, topic=topic)
    try:
        assert seen() == before
    finally:
        movies.run_text("MATCH (x:TypedWalkProbe) DETACH DELETE x")
