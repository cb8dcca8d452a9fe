"""Candidate retrieval of the EA agent, no LLM: signals → fusion → bootstrapping → one-to-one assignment → store.

The stages live in modules named for what they do: :mod:`~kgagents.agent.alignment.embedding` (name vectors and
keys, once per load), :mod:`~kgagents.agent.alignment.signals` (the five signals over one read of the pair),
:mod:`~kgagents.agent.alignment.fusion` (weighted sum and ranking), :mod:`~kgagents.agent.alignment.bootstrap`
(pseudo-seeds), :mod:`~kgagents.agent.alignment.assignment` (global one-to-one) and
:mod:`~kgagents.agent.alignment.candidate_store` (CANDIDATE relationships). :func:`retrieve` runs them in that order
and records the run through the run store (``(:Run {job: 'ea-retrieval'})``: running → finished with its scores,
or failed).

Test gold links are read to pick the sources, for ``candidate_space="test"`` the target set, and for the run's
scores (Hits@1/10, MRR of the stored ranking) — never for a decision.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kgagents.agent.alignment.assignment import assigned_first, csls, stable_assignment
from kgagents.agent.alignment.bootstrap import bootstrap
from kgagents.agent.alignment.candidate_store import JOB, Candidate, store_candidates
from kgagents.agent.alignment.fusion import Ranking, Weights, rank
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairView, Progress, SignalCollector, Signals
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore, new_run_id
from kgagents.loaders.jape import gold_links
from kgagents.metrics.ea import rank_scores


@dataclass
class RetrievalRun:
    """One run: its id, the KGs, the candidates stored per source (top-k), the signals of every proposed pair,
    the ranking by fused score, the one-to-one assignment and the time per stage."""

    run_id: str
    dataset: str
    kg1: str
    kg2: str
    sources: list[str]
    candidates: dict[str, list[Candidate]]
    signals: Signals
    timings: dict[str, float]
    pseudo_seeds: list[int] = field(default_factory=list)
    ranking: Ranking = field(default_factory=dict)
    assignment: dict[str, str] = field(default_factory=dict)


def pair_kgs(graph: Graph, dataset: str) -> tuple[str, str]:
    """(source KG, target KG) of a loaded EA pair, or an error saying how to load it."""
    rows = graph.run("alignment_ea/pair_kgs", dataset=dataset)
    if not rows:
        raise KgAgentsError(f"No gold links for dataset '{dataset}': load the pair first (load_jape_pair).")
    return rows[0]["kg1"], rows[0]["kg2"]


def split_links(graph: Graph, dataset: str, split: str = "test") -> list[tuple[str, str]]:
    """(source id, target id) of the gold links of one split."""
    return [(s, t) for s, t, sp in gold_links(graph, dataset) if sp == split]


def collect_signals(view: PairView, *, sources: Sequence[str], seeds: Mapping[str, str], settings: RetrievalSettings,
                    timings: dict[str, float] | None = None,
                    progress: Progress | None = None) -> tuple[Signals, SignalCollector]:
    """First pass: propose with names, exact keys and structure (targets of ``seeds`` excluded) and give every
    proposed pair every signal value."""
    timings = timings if timings is not None else {}
    collector = SignalCollector(view, settings, taken=seeds.values())
    signals: Signals = {}
    for stage, step in (("names", lambda: collector.names(signals, sources, progress)),
                        ("structure", lambda: collector.structure(signals, sources, seeds, progress)),
                        ("score_pairs", lambda: collector.complete(signals))):
        started = time.perf_counter()
        step()
        timings[stage] = time.perf_counter() - started
    return signals, collector


def final_ranking(signals: Signals, weights: Weights, allowed: set[str] | None, assignment: bool,
                  csls_k: int = 0, taken_penalty: float = 0.0) -> tuple[Ranking, dict[str, str], Ranking]:
    """(ranking by fused score — CSLS-rescaled when ``csls_k`` and ``assignment`` —, one-to-one assignment or {},
    ranking with the assigned target first and targets assigned elsewhere demoted by ``taken_penalty``)."""
    ranked = rank(signals, weights, allowed)
    if assignment and csls_k:
        ranked = csls(ranked, csls_k)
    assigned = stable_assignment(ranked) if assignment else {}
    return ranked, assigned, assigned_first(ranked, assigned, taken_penalty)


def retrieve(graph: Graph, *, dataset: str, settings: RetrievalSettings | None = None,
             sources: Sequence[str] | None = None, run_id: str | None = None,
             progress: Progress | None = None) -> RetrievalRun:
    """Retrieve, bootstrap, fuse, assign and store the top-k candidates of every source; names must be embedded
    (:func:`~kgagents.agent.alignment.embedding.embed_names`).

    ``sources`` defaults to the sources of the test gold links; seeds are the train gold links. The stored
    ranking covers the targets of ``settings.candidate_space``. Re-running with the same ``run_id`` replaces
    that run's candidates.
    """
    settings = settings or RetrievalSettings()
    kg1, kg2 = pair_kgs(graph, dataset)
    links = split_links(graph, dataset)
    seeds = dict(split_links(graph, dataset, "train"))
    sources = list(sources) if sources is not None else sorted({s for s, _ in links})
    allowed = {t for _, t in links} if settings.candidate_space == "test" else None
    store = RunStore(graph)
    with store.running(JOB, run_id=run_id or new_run_id(JOB), mode="no_llm",
                       properties={"dataset": dataset, "kg1": kg1, "kg2": kg2, "sources": len(sources),
                                   **settings.model_dump()}) as run_id:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        view = PairView(graph, kg1=kg1, kg2=kg2, settings=settings)
        timings["read"] = time.perf_counter() - started
        signals, collector = collect_signals(view, sources=sources, seeds=seeds, settings=settings, timings=timings,
                                             progress=progress)
        weights = Weights.of(settings)
        boot_started = time.perf_counter()
        pseudo = bootstrap(collector, signals, sources=sources, seeds=seeds, weights=weights, allowed=allowed,
                           rounds=settings.bootstrap_rounds, share=settings.bootstrap_share, progress=progress)
        timings["bootstrap"] = time.perf_counter() - boot_started
        assign_started = time.perf_counter()
        ranked, assignment, final = final_ranking(signals, weights, allowed, settings.assignment,
                                                   settings.csls_k, settings.taken_penalty)
        timings["assignment"] = time.perf_counter() - assign_started
        candidates = {s: [Candidate(t, i, score, signals[s][t], assignment.get(s) == t)
                          for i, (t, score) in enumerate(final[s][: settings.top_k], 1)] for s in final}
        timings["retrieval"] = time.perf_counter() - started
        stored = time.perf_counter()
        store_candidates(graph, run_id=run_id, kg1=kg1, kg2=kg2, candidates=candidates)
        timings["store"] = time.perf_counter() - stored
        wanted = set(sources)
        scores = rank_scores({s: [c.target for c in cands] for s, cands in candidates.items()},
                             [(s, t) for s, t in links if s in wanted])
        store.finish(run_id, scores=scores.model_dump(exclude={"n"}), metric="hits_at_1",
                     properties={"pseudo_seeds": pseudo, "assigned": len(assignment), "scored_links": scores.n,
                                 **{f"{k}_seconds": round(v, 3) for k, v in timings.items() if k != "retrieval"}})
    return RetrievalRun(run_id, dataset, kg1, kg2, sources, candidates, signals, timings, pseudo, ranked, assignment)
