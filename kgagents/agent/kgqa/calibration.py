"""How close a question must come to the path memory's phrasings before the memory votes — calibrated on the memory.

A memory votes for the paths of the learned phrasings nearest to a question. Near a phrasing it was taught, the
vote is right; far from all of them ("when was X published" against a memory of "which city is X's publisher
in"), its nearest phrasings are about something else and a vote would overrule a right zero-shot answer. How near
is near enough depends on the memory (six learned questions or twenty thousand; templates or people's wording) and
on the embedder, so it is measured on the memory itself, **leaving one phrasing out**: each phrasing of a seeded
sample is treated as a new question; the other phrasings vote as they would (:func:`~kgagents.agent.kgqa.pathmemory
.vote`), and the vote is right when its best path is one of the phrasing's own paths. Ranked by their nearest
other phrasing's similarity, the threshold is the lowest similarity at and above which the votes were right at
least ``memory_precision`` of the time. A whole phrasing is left out (not one question) because a question asked
again in a learned phrasing always finds it at similarity 1: the threshold is about wordings the memory has not
seen. When no similarity reaches the precision (a memory of a few unrelated questions), the threshold is 1: only a
learned phrasing itself votes.

The threshold is stored on ``(:PathMemoryCalibration {kg})``; every change to the memory removes it, and the next
agent computes it again (seconds for tens of thousands of phrasings: one matrix product per sampled phrasing).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from kgagents.agent.kgqa.pathmemory import vote
from kgagents.agent.kgqa.paths import PathKey
from kgagents.graph.connection import Graph


@dataclass(frozen=True)
class Calibration:
    """The vote threshold of one memory and the leave-one-phrasing-out record it came from."""

    threshold: float
    precision: float | None  # of the votes at and above the threshold
    target: float
    sample: int
    phrasings: int
    examples: int
    k: int
    temperature: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def threshold_for(records: Sequence[tuple[float, bool]], target: float) -> tuple[float, float | None]:
    """(threshold, precision there) from (nearest similarity, vote right?) records: the lowest similarity at and
    above which at least ``target`` of the votes were right; (1.0, None) when none is."""
    ranked = sorted(records, key=lambda r: -r[0])
    right = 0
    best: tuple[float, float | None] = (1.0, None)
    for i, (similarity, correct) in enumerate(ranked, 1):
        right += correct
        if right / i >= target and (i == len(ranked) or ranked[i][0] < similarity):
            best = (min(similarity, 1.0), round(right / i, 4))
    return best


def calibrate(rows: Sequence[Mapping[str, Any]], *, k: int, temperature: float, target: float, sample: int,
              seed: int) -> Calibration:
    """The threshold of a memory given as ``kgqa/memory_phrasings`` rows (see the module docstring)."""
    n = len(rows)
    examples = sum(len(r["examples"]) for r in rows)
    if n < 2:
        return Calibration(1.0, None, target, 0, n, examples, k, temperature)
    vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    grouped = [_grouped(r) for r in rows]
    chosen = sorted(random.Random(seed).sample(range(n), min(sample, n)))
    records: list[tuple[float, bool]] = []
    for i in chosen:
        sims = vectors @ vectors[i]
        sims[i] = -np.inf
        order = np.argsort(-sims)[:k]
        voting = [{**row, "similarity": float(sims[j]), "phrasing": rows[j]["phrasing"], "masked": rows[j]["masked"]}
                  for j in order if sims[j] > -np.inf for row in grouped[j]]
        if not voting:
            continue
        prior = vote(voting, min_similarity=-1.0, temperature=temperature)
        best = prior.best
        own = {tuple(x["path"]) for x in rows[i]["examples"]}
        records.append((float(sims[order[0]]), best is not None and best[0] in own))
    threshold, precision = threshold_for(records, target)
    return Calibration(round(threshold, 4), precision, target, len(records), n, examples, k, temperature)


def _grouped(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One phrasing's examples as ``kgqa/memory_nearest`` gives them: per (path, re-entry) the summed weight, over
    how many learned questions the phrasing stands for."""
    questions = len({x["question_key"] for x in row["examples"]})
    weights: dict[tuple[PathKey, bool], float] = {}
    for x in row["examples"]:
        key = (tuple(x["path"]), bool(x["reentry"]))
        weights[key] = weights.get(key, 0.0) + float(x["weight"])
    return [{"path": list(p), "reentry": r, "weight": w, "questions": questions, "question": None}
            for (p, r), w in weights.items()]


def stored_or_calibrated(graph: Graph, kg: str, *, k: int, temperature: float, target: float, sample: int,
                         seed: int) -> Calibration:
    """The memory's stored calibration when it was made with these settings, else a new one (stored)."""
    rows = graph.run("kgqa/memory_calibration_read", kg=kg)
    if rows and rows[0]["k"] == k and rows[0]["temperature"] == temperature and rows[0]["target"] == target \
            and rows[0]["sample"] is not None and rows[0]["sample"] <= sample:
        return Calibration(**{f: rows[0][f] for f in Calibration.__dataclass_fields__})
    found = calibrate(graph.run("kgqa/memory_phrasings", kg=kg), k=k, temperature=temperature, target=target,
                      sample=sample, seed=seed)
    graph.run("kgqa/memory_calibration_write", kg=kg, props=found.as_dict())
    return found
