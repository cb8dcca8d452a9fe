"""The naming check on real Neo4j with the real encoders, no LLM (a 19-triple film KG made for this test): a
longer path whose extra relation no word of the question names loses to the one-relation path it asks about."""

from __future__ import annotations

from pathlib import Path

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.jobs.kgqa import prepare_kg, run_questions
from kgagents.loaders.qa import EntityRef, Question
from kgagents.loaders.triples import load_triples

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


def test_a_path_loses_for_a_relation_the_question_does_not_name(neo4j_settings: Neo4jSettings,
                                                                  tmp_path: Path) -> None:
    kb = tmp_path / "films_kb.txt"
    kb.write_text(TRIPLES, encoding="utf-8")
    q = Question(id="q", dataset="t", question="which person wrote the movie Night Train",
                 topic_entities=[EntityRef(id="Night Train", name="Night Train")],
                 answers=[EntityRef(id="Lena Holt", name="Lena Holt")])
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        ensure_schema(g)
        load_triples(g, kb, kg="films")
        prepare_kg(g, "films")
        # margin 0: each word names its closest relation only (at the default margin, 0.03, more relations count
        # as named and this question is not helped)
        plain = KGQASettings(mode="no_llm", memory=False, unnamed_margin=0.0)
        off = run_questions(g, "films", [q], plain.model_copy(update={"unnamed_penalty": 0.0}), None)
        on = run_questions(g, "films", [q], plain.model_copy(update={"unnamed_penalty": 0.1}), None)
    # without the check the sentence vector prefers the path with more film words: the films Lena Holt acted in
    # and their writers' other films
    assert off.output.results[0].path == "starred actors → written by (inverse)"
    assert on.output.results[0].answer == "Lena Holt" and on.output.results[0].path == "written by"
