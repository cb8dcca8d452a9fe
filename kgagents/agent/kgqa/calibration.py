"""How close a question must come to the path memory's phrasings before the memory votes — calibrated on the memory.

A memory votes for the paths of the learned phrasings nearest to a question. Near a phrasing it was taught, the
vote is right; far from all of them ("when was X published" against a memory of "which city is X's publisher
in"), its nearest phrasings are about something else and a vote would overrule a right zero-shot answer. How near
is near enough depends on the memory (six learned questions or twenty thousand; templates or people's wording),
on the embedder, and on how good the zero-shot answer is on the KG (46 % of PathQuestion's 3-hop questions, so an
imperfect vote still pays there; most of six unrelated questions about a small KG), so it is measured on the
memory itself, **leaving one phrasing out**: each phrasing of a seeded sample is treated as a new question —

* the other phrasings vote as they would (:func:`~kgagents.agent.kgqa.pathmemory.vote`): right when the vote's
  best path is one of the phrasing's own paths;
* the zero-shot observation answers its learned question (its topic, no memory): right when its best path is one
  of them;

and the threshold is the similarity (to the nearest other phrasing) at and above which voting, and below which
zero-shot, answers the most of them right (ties: the higher threshold — vote less). A whole phrasing is left out
(not one question) because a question asked again in a learned phrasing always finds it at similarity 1: the
threshold is about wordings the memory has not seen. When voting never beats zero-shot (a memory of a few
unrelated questions), the threshold is 1: only a learned phrasing itself votes.

The threshold is stored on ``(:PathMemoryCalibration {kg})``; every change to the memory removes it, and the next
agent computes it again (one matrix product and one zero-shot observation per sampled phrasing).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from kgagents.agent.kgqa.pathmemory import vote
from kgagents.agent.kgqa.paths import PathKey
from kgagents.graph.connection import Graph

#: the zero-shot answer to learned questions: (question text, topic) pairs → each one's best path (None: none)
ZeroShot = Callable[[Sequence[tuple[str, str]]], list[PathKey | None]]


@dataclass(frozen=True)
class Calibration:
    """The vote threshold of one memory and the leave-one-phrasing-out record it came from: how often the vote
    and the zero-shot answer were right on the sampled phrasings, and with the threshold."""

    threshold: float
    sample: int
    phrasings: int
    examples: int
    k: int
    temperature: float
    vote_right: float | None = None  # share of the sample the vote got right, had it always voted
    zero_shot_right: float | None = None  # share the zero-shot answer got right
    chosen_right: float | None = None  # share right with the threshold (vote above, zero-shot below)
    voting: float | None = None  # share of the sample at or above the threshold

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Record:
    """One left-out phrasing: its nearest other phrasing's similarity, and who answered it right."""

    similarity: float
    vote_right: bool
    zero_shot_right: bool


def threshold_for(records: Sequence[Record]) -> tuple[float, int]:
    """(threshold, how many records it answers right): vote at and above it, zero-shot below; the candidates are
    the records' similarities and 1 (vote only for a learned phrasing itself), ties to the higher threshold."""
    ranked = sorted(records, key=lambda r: -r.similarity)
    zero_total = sum(r.zero_shot_right for r in ranked)
    best = (1.0, zero_total)
    voted = zero_above = 0
    for i, r in enumerate(ranked):
        voted += r.vote_right
        zero_above += r.zero_shot_right
        if i + 1 < len(ranked) and ranked[i + 1].similarity == r.similarity:
            continue  # a tie is one threshold: the records at one similarity are in or out together
        right = voted + zero_total - zero_above
        if right > best[1]:
            best = (min(r.similarity, 1.0), right)
    return best


def calibrate(rows: Sequence[Mapping[str, Any]], zero_shot: ZeroShot, *, k: int, temperature: float, sample: int,
              seed: int) -> Calibration:
    """The threshold of a memory given as ``kgqa/memory_phrasings`` rows (see the module docstring)."""
    n = len(rows)
    examples = sum(len(r["examples"]) for r in rows)
    if n < 2:
        return Calibration(1.0, 0, n, examples, k, temperature)
    vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    grouped = [_grouped(r) for r in rows]
    chosen = sorted(random.Random(seed).sample(range(n), min(sample, n)))
    asked = [(rows[i]["examples"][0]["question"], rows[i]["examples"][0]["topic"]) for i in chosen]
    answered = zero_shot(asked)
    records: list[Record] = []
    for i, zero in zip(chosen, answered, strict=True):
        sims = vectors @ vectors[i]
        sims[i] = -np.inf
        order = np.argsort(-sims)[:k]
        voting = [{**row, "similarity": float(sims[j]), "phrasing": rows[j]["phrasing"], "masked": rows[j]["masked"]}
                  for j in order if sims[j] > -np.inf for row in grouped[j]]
        own = {tuple(x["path"]) for x in rows[i]["examples"]}
        best = vote(voting, min_similarity=-1.0, temperature=temperature).best if voting else None
        records.append(Record(float(sims[order[0]]), best is not None and best[0] in own, zero in own))
    threshold, right = threshold_for(records)
    m = len(records)
    return Calibration(round(threshold, 4), m, n, examples, k, temperature,
                       vote_right=round(sum(r.vote_right for r in records) / m, 4),
                       zero_shot_right=round(sum(r.zero_shot_right for r in records) / m, 4),
                       chosen_right=round(right / m, 4),
                       voting=round(sum(r.similarity >= threshold for r in records) / m, 4))


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


def stored_or_calibrated(graph: Graph, kg: str, zero_shot: ZeroShot, *, k: int, temperature: float, sample: int,
                         seed: int, scorer: str = "") -> Calibration:
    """The memory's stored calibration when it was made with these settings, else a new one (stored); ``scorer``:
    the zero-shot scorer's values as text — its answers are what the vote is weighed against, so a run with
    another length penalty (e.g. one its KG's bootstrap learned) calibrates again."""
    rows = graph.run("kgqa/memory_calibration_read", kg=kg)
    fields = Calibration.__dataclass_fields__
    if rows and rows[0]["k"] == k and rows[0]["temperature"] == temperature and rows[0]["requested"] == sample \
            and rows[0]["zero_shot_right"] is not None and (rows[0]["scorer"] or "") == scorer:
        return Calibration(**{f: rows[0][f] for f in fields})
    found = calibrate(graph.run("kgqa/memory_phrasings", kg=kg), zero_shot, k=k, temperature=temperature,
                      sample=sample, seed=seed)
    graph.run("kgqa/memory_calibration_write", kg=kg, props={**found.as_dict(), "requested": sample,
                                                             "scorer": scorer})
    return found
