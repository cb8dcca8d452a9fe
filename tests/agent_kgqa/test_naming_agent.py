"""The naming check on real Neo4j with the real encoder, no LLM (a 19-triple film KG made for this test): a path
taking a relation no word of the question names loses to one that takes only named relations."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgagents.agent.kgqa.composition import named_relations, unnamed
from kgagents.agent.kgqa.observation import RelationNames
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import stored_trace
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import run_questions
from kgagents.loaders.qa import EntityRef, Question

TRIPLES = """Night Train|written_by|Lena Holt
Night Train|directed_by|Omar Reyes
Night Train|starred_actors|Lena Holt
Night Train|starred_actors|Paul Finch
Night Train|release_year|1999
Night Train|has_genre|Drama
Night Train|in_language|English
Glass River|written_by|Paul Finch
Glass River|starred_actors|Lena Holt
Glass River|directed_by|Lena Holt
Glass River|release_year|2004
Glass River|has_genre|Comedy
Glass River|in_language|English
Red Harbour|starred_actors|Paul Finch
Red Harbour|written_by|Omar Reyes
Red Harbour|directed_by|Omar Reyes
Red Harbour|release_year|2010
Red Harbour|has_genre|Drama
Red Harbour|in_language|French
"""


def test_a_path_loses_for_a_relation_the_question_does_not_name(prepared: Callable[[Path, str], Graph],
                                                                  tmp_path: Path) -> None:
    kb = tmp_path / "films_kb.txt"
    kb.write_text(TRIPLES, encoding="utf-8")
    text = "who is the writer of the movie X"
    q = Question(id="q", dataset="t", question=text.replace("X", "Night Train"),
                 topic_entities=[EntityRef(id="Night Train", name="Night Train")],
                 answers=[EntityRef(id="Lena Holt", name="Lena Holt")])
    g = prepared(kb, "films")
    plain = KGQASettings(mode="no_llm", memory=False)
    off = run_questions(g, "films", [q], plain.model_copy(update={"unnamed_penalty": 0.0}), None)
    on = run_questions(g, "films", [q], plain, None)
    relations = RelationNames(g, "films").get()
    trace = stored_trace(g, on.run_id, "q")
    embedder = get_embedder()
    named = named_relations(text, relations, embedder.embed, margin=plain.unnamed_margin)
    assert named is not None and "written_by" in named and "starred_actors" not in named
    # without the check the sentence vector prefers a longer path for its extra film words; with it, the answer's
    # path takes only relations the question's words name (here still not the one-relation path: "movie" names
    # more than one film relation, the check's limit)
    assert "starred actors" in off.output.results[0].path
    assert trace is not None and off.output.results[0].path != on.output.results[0].path
    steps = trace["trace"]["path_steps"]
    assert steps and unnamed(tuple(steps), named) == 0
