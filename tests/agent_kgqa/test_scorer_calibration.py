"""The scorer's length penalty learned by ``kgqa bootstrap`` (kgqa/scorer_calibration.py), on real Neo4j.

A small KG of people who live in towns that are located in regions: asked "what is the lives in of X", the
default penalty lets a longer path win (every person's question is answered wrong zero-shot), the bootstrap's
held-out questions show it, the learned penalty is stored with the memory, and the runs that use that memory
answer right — while zero-shot runs, runs given a penalty, and a labelled memory keep the settings' own value.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.bootstrap import Instance, PathType
from kgagents.agent.kgqa.pathmemory import PathMemory
from kgagents.agent.kgqa.scorer_calibration import Observed, choose, held_out
from kgagents.agent.kgqa.settings import BootstrapSettings, KGQASettings
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.kgqa import prepare_kg, run_questions
from kgagents.jobs.kgqa_bootstrap import bootstrap
from kgagents.loaders.qa import EntityRef, Question
from kgagents.loaders.triples import load_triples
from kgagents.settings import LEARNED

KG = "towns"
PEOPLE = 40


def _kg(graph: Graph, tmp_path: Path) -> dict[str, str]:
    """The KG loaded and prepared; each person's town."""
    homes = {f"Person {i}": f"Town {i * 7 % 12}" for i in range(PEOPLE)}
    lines = [f"{p}|lives_in|{t}" for p, t in homes.items()] + [f"Town {j}|located_in|Region {j % 4}" for j in range(12)]
    (tmp_path / "towns.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    load_triples(graph, tmp_path / "towns.txt", kg=KG)
    prepare_kg(graph, KG)
    return homes


def _questions(homes: dict[str, str]) -> list[Question]:
    return [Question(id=p, dataset="towns", question=f"what is the lives in of [{p}]", answers=[EntityRef(id=t, name=t)],
                     topic_entities=[EntityRef(id=p, name=p)]) for p, t in homes.items()]


def test_the_learned_penalty_is_stored_with_the_memory_and_changes_the_answers(graph: Graph, tmp_path: Path) -> None:
    homes = _kg(graph, tmp_path)
    questions = _questions(homes)
    zero_shot = run_questions(graph, KG, questions, KGQASettings(memory=False)).output
    assert zero_shot.summary()["hits_at_1"] == 0.0  # the default penalty: a longer path wins every question

    made = bootstrap(graph, KG, settings=BootstrapSettings(topics=60), prepare=False)
    learned = made.scorer_calibration
    assert learned is not None and learned["values"]["length_penalty"] > KGQASettings().length_penalty
    assert learned["questions"] > 50 and set(learned["questions_by_hops"]) >= {"1", "2"}
    grid = {r["length_penalty"]: r for r in learned["grid"]}
    chosen = grid[learned["values"]["length_penalty"]]
    assert chosen["gain"] > chosen["gain_standard_error"] > 0 and chosen["objective"] > learned["default"]["objective"]
    assert json.loads(RunStore(graph).get(made.run_id).get("scorer_calibration"))["values"] == learned["values"]

    # a run with the bootstrap memory uses it, and says so; the memory's vote is switched off (prior_weight 0,
    # always explore) so that only the penalty differs from the zero-shot run
    scorer_only = KGQASettings(prior_weight=0.0, memory_focus=2.0)
    agent = ODAAgent(graph, None, scorer_only.model_copy(update={"mode": "no_llm"}), kg=KG)
    assert agent.settings.length_penalty == learned["values"]["length_penalty"]
    assert agent.settings_sources["length_penalty"].startswith(LEARNED) and made.run_id in \
        agent.settings_sources["length_penalty"]
    run = run_questions(graph, KG, questions, scorer_only).output
    assert run.summary()["hits_at_1"] == 1.0
    recorded = run.summary()["scorer_calibration"]
    assert recorded["bootstrap_run"] == made.run_id and recorded["values"] == learned["values"]
    assert f"length_penalty={learned['values']['length_penalty']}," in _memory_threshold_scorer(graph)

    # a penalty given explicitly wins; a zero-shot run ignores the memory and what was learned with it
    given = run_questions(graph, KG, questions, scorer_only.model_copy(update={"length_penalty": 0.02})).output
    assert given.settings["length_penalty"] == 0.02 and given.summary()["scorer_calibration"] is None
    assert given.summary()["hits_at_1"] == 0.0
    assert "length_penalty=0.02," in _memory_threshold_scorer(graph)  # the vote threshold weighed against it
    again = run_questions(graph, KG, questions, KGQASettings(memory=False)).output
    assert again.settings["length_penalty"] == 0.02 and again.summary()["hits_at_1"] == 0.0

    # without the bootstrap examples (a labelled memory only) the calibration is not used
    PathMemory(graph, KG).forget_other_sources("labelled elsewhere")
    assert ODAAgent(graph, None, KGQASettings(mode="no_llm"), kg=KG).settings.length_penalty == 0.02


def _memory_threshold_scorer(graph: Graph) -> str:
    """The scorer values the memory's vote threshold was calibrated with (kgqa/calibration.py)."""
    return str(graph.run_text("MATCH (c:PathMemoryCalibration {kg: $kg}) RETURN c.scorer AS s", kg=KG)[0]["s"])


def test_a_bootstrap_without_calibration_removes_the_previous_one(graph: Graph, tmp_path: Path) -> None:
    _kg(graph, tmp_path)
    bootstrap(graph, KG, settings=BootstrapSettings(topics=60), prepare=False)
    assert ODAAgent(graph, None, KGQASettings(mode="no_llm"), kg=KG).scorer_calibration is not None
    bootstrap(graph, KG, settings=BootstrapSettings(topics=60, calibration_questions=0), prepare=False)
    agent = ODAAgent(graph, None, KGQASettings(mode="no_llm"), kg=KG)
    assert agent.scorer_calibration is None and agent.settings.length_penalty == 0.02


def _observed(hops: int, right_at: list[bool]) -> Observed:
    """A question with a one-relation and a two-relation path; the longer is more similar by 0.025 (so it wins
    up to a penalty of 0.025 at 10 words); ``right_at``: whether the shorter, the longer is right."""
    paths = np.array([[0.80, 1, 0.0, right_at[0]], [0.825, 2, 0.0, right_at[1]]], dtype=np.float64)
    return Observed(hops, 10, paths)


def test_the_default_is_kept_unless_the_best_beats_it_by_a_standard_error() -> None:
    settings = KGQASettings()
    clear = [_observed(1, [True, False]) for _ in range(60)]
    assert choose(clear, settings, "r").values["length_penalty"] > 0.02
    # two questions in sixty are answered right only above the default, one only at it: the net gain of one
    # question is within the noise, the default stays
    mixed = [_observed(1, [True, False]), _observed(1, [True, False]), _observed(1, [False, True])] + [
        _observed(1, [True, True]) for _ in range(57)]
    kept = choose(mixed, settings, "r")
    assert kept.values["length_penalty"] == settings.length_penalty == kept.default["length_penalty"]


def test_held_out_questions_are_not_about_the_memorys_topics() -> None:
    def instance(topic: str) -> Instance:
        return Instance(topic, topic, ("r",), 1, [f"{topic}-answer"], ["a"])

    types = [PathType(("r",), [instance("A"), instance("B"), instance("C")]),
             PathType(("r", "s"), [instance("A"), instance("D")])]
    asked = held_out(types, {}, lambda p: "A", count=10, seed=1)
    assert asked and all(a.topic != "A" for a in asked)
    assert sorted((a.hops, a.topic) for a in asked) == [(1, "B"), (1, "C"), (2, "D")]  # each once, then no more
