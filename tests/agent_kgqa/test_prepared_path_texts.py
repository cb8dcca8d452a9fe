"""``kgqa prepare`` embeds the texts of the KG's one- and two-relation path types once (real Neo4j, real MiniLM):
exactly the types the KG's walks have — enumerated here from the triples file, not from the graph —, nothing
again on a second prepare, at most ``prepared_path_texts``, and a run observing two levels then embeds no path
text of its own."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from kgagents.agent.kgqa.observation import RelationNames
from kgagents.agent.kgqa.paths import path_text, step
from kgagents.agent.kgqa.questions import masked
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import learn, prepare_kg, run_questions
from kgagents.loaders.qa import read_questions
from tests.agent_kgqa.conftest import KG

SETTINGS = KGQASettings(e5_weight=0.0, mode="no_llm", memory=False)


def _walk_types(kb: Path) -> set[tuple[str, ...]]:
    """Every (step) and (step, step) a walk over the triples can take (a step may go back over the link it came
    by: the observation excludes only the topic, so such a type exists wherever the middle entity has another link
    of that kind, and embedding one more text is harmless)."""
    leaving: dict[str, set[str]] = defaultdict(set)
    for line in kb.read_text().splitlines():
        head, relation, tail = line.split("|")
        leaving[head].add(step(relation, True))
        leaving[tail].add(step(relation, False))
    types: set[tuple[str, ...]] = set()
    for steps in leaving.values():
        for second in steps:
            types.add((second,))
            for back in steps:
                first = back[: -len("^-1")] if back.endswith("^-1") else step(back, False)
                types.add((first, second))
    return types


def _stored(graph: Graph, space: str) -> set[str]:
    rows = graph.run_text("MATCH (p:PathText {kg: $kg, space: $space}) RETURN p.text AS text", kg=KG, space=space)
    return {r["text"] for r in rows}


def test_prepare_embeds_the_kgs_short_path_types_once(movies: Graph, fixtures: Path) -> None:
    space = PathScorer(get_embedder(), SETTINGS).space
    movies.run_text("MATCH (p:PathText {kg: $kg}) DETACH DELETE p", kg=KG)
    names = RelationNames(movies, KG).get()
    expected = {path_text(t, names) for t in _walk_types(fixtures / "kgqa" / "movies_kb.txt")}

    capped = prepare_kg(movies, KG, settings=SETTINGS.model_copy(update={"prepared_path_texts": 3}))
    assert capped["path_texts"]["embedded"] == 3 and len(_stored(movies, space)) == 3

    first = prepare_kg(movies, KG, settings=SETTINGS)
    assert _stored(movies, space) == expected
    assert first["path_texts"]["embedded"] == len(expected) - 3 and first["path_texts"]["stored_before"] == 3
    assert prepare_kg(movies, KG, settings=SETTINGS)["path_texts"]["embedded"] == 0

    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    run = run_questions(movies, KG, questions, SETTINGS.model_copy(update={"depth": 2}))
    new = _stored(movies, space) - expected
    assert run.output.path_texts["embedded"] == len(new) > 0
    # what the run embedded were its questions (they share the path space), never a path of the KG
    assert new <= {masked(q.question) for q in questions}


def test_the_memorys_calibration_reuses_the_stored_path_texts(movies: Graph, fixtures: Path) -> None:
    """Starting a run with a memory calibrates its vote by observing its phrasings; that observation reads the
    stored path texts, so a run whose texts are all stored embeds none, calibration included."""
    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    learn(movies, KG, questions, source="test: labelled")
    settings = SETTINGS.model_copy(update={"memory": True})
    first = run_questions(movies, KG, questions, settings)
    assert first.output.path_texts["embedded"] > 0 and first.output.memory_calibration is not None
    movies.run("kgqa/memory_calibration_clear", kg=KG)  # the next run calibrates again
    again = run_questions(movies, KG, questions, settings)
    assert again.output.memory_calibration is not None and again.output.path_texts["embedded"] == 0
