"""The EA LLM gate: the retrieval margin (rank-1 score minus the best other score) at or above which retrieval's
rank 1 is kept without asking the model. Learned on TRAIN links only, so that ``gated`` mode spends the model where
retrieval is unsure and never on a threshold read off the reported links."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.agent.alignment.bootstrap import bootstrap
from kgagents.agent.alignment.confidence import margin_of
from kgagents.agent.alignment.fusion import Weights
from kgagents.agent.alignment.retrieval import collect_signals, final_ranking, pair_kgs, split_links
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairView
from kgagents.graph.connection import Graph

#: the gate keeps retrieval's rank 1 where it was right at least this often on held-out train links
GATE_PRECISION = 0.99


@dataclass(frozen=True)
class HeldOut:
    """The train-only validation protocol: a seeded third of the train links held out (``validation``), the other
    two thirds as ``seeds``; the validation and test sources are aligned together (``sources``) against the
    validation and test targets (``targets``), as retrieval will be used."""

    validation: list[tuple[str, str]]
    seeds: dict[str, str]
    sources: list[str]
    targets: set[str]


def held_out(graph: Graph, dataset: str, seed: int = 0) -> HeldOut:
    train, test = split_links(graph, dataset, "train"), split_links(graph, dataset)
    held = sorted(train)
    random.Random(seed).shuffle(held)
    validation, seeds = held[: len(held) // 3], dict(held[len(held) // 3:])
    return HeldOut(validation, seeds, sorted({s for s, _ in validation} | {s for s, _ in test}),
                   {t for _, t in validation} | {t for _, t in test})


def gate_on_validation(final: Mapping[str, Sequence[tuple[str, float]]], validation: list[tuple[str, str]],
                       precision: float = GATE_PRECISION) -> dict[str, Any]:
    """The gate learned on ``validation`` links: sources are sorted by retrieval margin, and the gate is the smallest
    margin above which retrieval's rank 1 is right for at least ``precision`` of them (infinite when no prefix is
    that precise: then every source may go to the model)."""
    gold = dict(validation)
    rows = [(margin_of(final.get(s, [])), bool(final.get(s)) and final[s][0][0] == gold[s]) for s, _ in validation]
    rows.sort(key=lambda r: -r[0])
    right, best = 0, 0
    for k, (_, ok) in enumerate(rows, 1):
        right += ok
        if right / k >= precision:
            best = k
    margin = rows[best - 1][0] if best else float("inf")
    below = rows[best:]
    return {"margin": margin, "precision": precision, "validation_sources": len(rows),
            "share_gated": len(below) / len(rows) if rows else 0.0,
            "errors_gated": sum(1 for _, ok in below if not ok),
            "errors_total": sum(1 for _, ok in rows if not ok)}


def learn_gate(graph: Graph, *, dataset: str, settings: RetrievalSettings | None = None,
               precision: float = GATE_PRECISION, seed: int = 0) -> dict[str, Any]:
    """Learn the gate for ``dataset`` the way retrieval will be used: a seeded third of the train links is held out
    (validation), the other two thirds are the seeds, and the validation and test sources are retrieved together
    with ``settings`` (bootstrapping and the one-to-one assignment included); test gold targets are never read
    beyond what retrieval itself reads for ``candidate_space="test"``."""
    settings = settings or RetrievalSettings()
    kg1, kg2 = pair_kgs(graph, dataset)
    split = held_out(graph, dataset, seed)
    allowed = split.targets if settings.candidate_space == "test" else None
    signals, collector = collect_signals(PairView(graph, kg1=kg1, kg2=kg2, settings=settings), sources=split.sources,
                                         seeds=split.seeds, settings=settings)
    weights = Weights.of(settings)
    bootstrap(collector, signals, sources=split.sources, seeds=split.seeds, weights=weights, allowed=allowed,
              rounds=settings.bootstrap_rounds, share=settings.bootstrap_share)
    final = final_ranking(signals, weights, allowed, settings.assignment, settings.csls_k,
                          settings.taken_penalty)[2]
    return {**gate_on_validation(final, split.validation, precision), "split_seed": seed}
