"""Learn the matcher's confidence table (:mod:`kgagents.agent.matching.confidence`) on tuning data and check it on
held-out data. ``kgagents bench om-calibrate`` writes ``om/calibration/<run>.json`` and the shipped table.

Learned on: the conference tuning half and our own pairs (:mod:`benchmarks.om_rules`'s decision groups) and, for
the background kinds only anatomy has, the anatomy pairs whose mouse class is in a seeded half of mouse's classes.
Checked on: the conference reporting half and the other half of anatomy — per confidence band, the mean confidence
beside the precision found, and the expected calibration error (the pair-weighted mean gap).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.om_rules import DECISION_GROUPS, conference_split, tasks
from benchmarks.provenance import write_results
from kgagents.agent.matching.confidence import CALIBRATION_FILE, Calibration
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import PairRun, ensure_loaded, match_pair
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.prefixes import read_prefix_map
from kgagents.metrics.calibration import reliability as scored_reliability
from kgagents.metrics.oaei import equivalence_pairs
from kgagents.paths import data_dir

Decided = list[tuple[Mapping[str, Any], bool]]


def _decided(run: PairRun, gold: set[tuple[str, str]], keep: Callable[[str], bool] = lambda s: True) -> Decided:
    return [(m, (m["source"], m["target"]) in gold) for m in (run.result.output if run.result else [])
            if keep(m["source"])]


def reliability(table: Calibration, decided: Iterable[tuple[Mapping[str, Any], bool]]) -> dict[str, Any]:
    """Per confidence band: pairs, mean confidence, precision; and the expected calibration error."""
    return scored_reliability((table.confidence(m), right) for m, right in decided)


def calibrate(graph: Graph, settings: MatchSettings, *, out: Path, seed: int, background: Sequence[Path],
              prefix_map: Path | None, save: bool = True,
              on_pair: Callable[[PairRun], None] | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    embedder = get_embedder()
    learn: Decided = []
    held_out: dict[str, Decided] = {"conference_reporting": [], "anatomy_half_b": []}
    for task in tasks(seed):
        source, target = ensure_loaded(graph, task.source), ensure_loaded(graph, task.target)
        run = match_pair(graph, source, target, settings, embedder=embedder, reference=task.reference)
        decided = _decided(run, equivalence_pairs(read_alignment(task.reference)))
        (learn if task.group in DECISION_GROUPS else held_out["conference_reporting"]).extend(decided)
        if on_pair is not None:
            on_pair(run)
    anatomy = data_dir("om", "anatomy")
    mouse, human = ensure_loaded(graph, anatomy / "mouse.owl"), ensure_loaded(graph, anatomy / "human.owl")
    run = match_pair(graph, mouse, human, settings, embedder=embedder, reference=anatomy / "reference.rdf",
                     background=background, prefixes=read_prefix_map(prefix_map) if prefix_map else [])
    if on_pair is not None:
        on_pair(run)
    classes = sorted(r["uri"] for r in graph.run("matching/entities", ontology=mouse, properties=True))
    half_a = set(random.Random(seed).sample(classes, len(classes) // 2))
    gold = equivalence_pairs(read_alignment(anatomy / "reference.rdf"))
    learn += _decided(run, gold, lambda s: s in half_a)
    held_out["anatomy_half_b"] = _decided(run, gold, lambda s: s not in half_a)
    tuning, reporting = conference_split(seed)
    source = (f"bench om-calibrate seed {seed}: conference tuning half {', '.join(tuning)}; own pairs; anatomy "
              f"(background: {', '.join(p.name for p in background) or 'none'}) pairs whose mouse class is in the "
              "seeded half A")
    table = Calibration.learn(learn, source)
    if save:
        table.save(CALIBRATION_FILE)
    result = {
        "benchmark": "OM confidence calibration: learned on tuning data, checked on held-out data",
        "mode": settings.mode, "settings": settings.model_dump(mode="json"),
        "split": {"seed": seed, "conference_tuning": tuning, "conference_reporting": reporting,
                  "anatomy": "mouse classes split in half with random.Random(seed).sample; half A learns"},
        "table": table.as_dict(), "saved_to": str(CALIBRATION_FILE) if save else None,
        "learned_on": reliability(table, learn),
        "held_out": {k: reliability(table, v) for k, v in held_out.items()},
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    write_results(out, f"om/calibration/calibration_{settings.mode}_seed{seed}", result)
    return result
