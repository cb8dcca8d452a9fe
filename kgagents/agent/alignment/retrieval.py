"""Candidate retrieval of the EA agent, no LLM: signals → fusion → bootstrapping → one-to-one assignment → store.

The stages live in modules named for what they do: :mod:`~kgagents.agent.alignment.embedding` (name vectors and
keys, once per load), :mod:`~kgagents.agent.alignment.signals` (the five signals over one read of the pair),
:mod:`~kgagents.agent.alignment.fusion` (weighted sum and ranking), :mod:`~kgagents.agent.alignment.bootstrap`
(pseudo-seeds), :mod:`~kgagents.agent.alignment.assignment` (global one-to-one) and
:mod:`~kgagents.agent.alignment.candidate_store` (CANDIDATE relationships). :func:`retrieve` runs them in that order
and records the run through the run store (``(:Run {job: 'ea-retrieval'})``: running → finished with its scores,
or failed).

What a run aligns is an :class:`AlignTask`: which KGs, which sources, which targets, the seed links it may use and
the reference links it is scored against (none: no scores). :func:`pair_task` is the benchmark protocol of a loaded
JAPE pair (test sources, train links as seeds, test links as the reference); :func:`kgs_task` is any two loaded KGs
(every entity of the first, seed links as given). The reference is read only for the run's scores (Hits@1/10, MRR
of the stored ranking) — never for a decision; ``candidate_space="test"`` (a benchmark protocol) restricts the
targets to the test links' targets.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

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
from kgagents.metrics.ea import RankScores, rank_scores

if TYPE_CHECKING:
    from kgagents.agent.alignment.pseudo_seeds import OutsideAnchors


@dataclass(frozen=True)
class AlignTask:
    """What one alignment run aligns: every source of ``kg1`` in ``sources`` to targets of ``kg2`` (``targets``;
    None: all of them), with ``seeds`` (source → target links the user gives; their targets are no candidates)
    and ``reference`` links to score against (empty: the run is not scored). ``dataset`` names the loaded pair
    the task came from, if any."""

    kg1: str
    kg2: str
    sources: list[str]
    targets: frozenset[str] | None = None
    seeds: Mapping[str, str] = field(default_factory=dict)
    reference: list[tuple[str, str]] = field(default_factory=list)
    dataset: str | None = None

    def describe(self) -> dict[str, Any]:
        """What a run node and a results file record about the task."""
        return {"dataset": self.dataset, "kg1": self.kg1, "kg2": self.kg2, "sources": len(self.sources),
                "targets": len(self.targets) if self.targets is not None else None, "seed_links": len(self.seeds),
                "reference_links": len(self.reference)}


@dataclass
class RetrievalRun:
    """One run: its id, the task, the candidates stored per source (top-k), the signals of every proposed pair,
    the ranking by fused score, the one-to-one assignment and the time per stage."""

    run_id: str
    task: AlignTask
    candidates: dict[str, list[Candidate]]
    signals: Signals
    timings: dict[str, float]
    pseudo_seeds: list[int] = field(default_factory=list)
    ranking: Ranking = field(default_factory=dict)
    assignment: dict[str, str] = field(default_factory=dict)
    scores: RankScores | None = None
    #: anchors outside the task per bootstrap round (empty: none looked for)
    anchors: list[int] = field(default_factory=list)

    @property
    def dataset(self) -> str | None:
        return self.task.dataset

    @property
    def kg1(self) -> str:
        return self.task.kg1

    @property
    def kg2(self) -> str:
        return self.task.kg2

    @property
    def sources(self) -> list[str]:
        return self.task.sources


def pair_kgs(graph: Graph, dataset: str) -> tuple[str, str]:
    """(source KG, target KG) of a loaded EA pair, or an error saying how to load it."""
    rows = graph.run("alignment_ea/pair_kgs", dataset=dataset)
    if not rows:
        raise KgAgentsError(f"No gold links for dataset '{dataset}': load the pair first (load_jape_pair).")
    return rows[0]["kg1"], rows[0]["kg2"]


def split_links(graph: Graph, dataset: str, split: str = "test") -> list[tuple[str, str]]:
    """(source id, target id) of the gold links of one split."""
    return [(s, t) for s, t, sp in gold_links(graph, dataset) if sp == split]


def pair_task(graph: Graph, dataset: str, settings: RetrievalSettings | None = None, *,
              seeds: bool = True) -> AlignTask:
    """The benchmark protocol of a loaded pair: the test links' sources, the train links as seeds (``seeds``
    False: none — the 0-seed protocol), the test links as the reference; with ``candidate_space="test"`` only the
    test links' targets are ranked."""
    settings = settings or RetrievalSettings()
    kg1, kg2 = pair_kgs(graph, dataset)
    links = split_links(graph, dataset)
    targets = frozenset(t for _, t in links) if settings.candidate_space == "test" else None
    return AlignTask(kg1, kg2, sorted({s for s, _ in links}), targets,
                     dict(split_links(graph, dataset, "train")) if seeds else {}, links, dataset)


def kg_entities(graph: Graph, kg: str) -> list[str]:
    """Ids of every entity of ``kg``, sorted; an error naming the fix when there are none."""
    ids = sorted(row["id"] for row in graph.run("alignment_ea/entity_names", kg=kg))
    if not ids:
        raise KgAgentsError(f"KG '{kg}' has no entities: load it first (`kgagents load kg`), or check the name with "
                            "`kgagents stats`.")
    return ids


def kgs_task(graph: Graph, kg1: str, kg2: str, *, seeds: Mapping[str, str] | None = None,
             reference: Sequence[tuple[str, str]] = (), dataset: str | None = None) -> AlignTask:
    """Align every entity of ``kg1`` that no seed link covers to the entities of ``kg2``; ``seeds`` and
    ``reference`` must name entities of the two KGs (an error names the first that does not)."""
    sources = kg_entities(graph, kg1)
    targets = kg_entities(graph, kg2)
    seeds = dict(seeds or {})
    known1, known2 = set(sources), set(targets)
    for what, links in (("seed", seeds.items()), ("reference", reference)):
        for s, t in links:
            if s not in known1 or t not in known2:
                side, entity, kg = (1, s, kg1) if s not in known1 else (2, t, kg2)
                raise KgAgentsError(f"{what} link ({s}, {t}): {entity} is not an entity of KG '{kg}' (side {side}); "
                                    "seed and reference files hold entity ids of the first KG, then the second")
    left = [s for s in sources if s not in seeds]
    if not left:
        raise KgAgentsError(f"every entity of KG '{kg1}' is in a seed link: nothing is left to align")
    return AlignTask(kg1, kg2, left, None, seeds, list(reference), dataset)


def collect_signals(view: PairView, *, sources: Sequence[str], seeds: Mapping[str, str], settings: RetrievalSettings,
                    timings: dict[str, float] | None = None, progress: Progress | None = None,
                    taken: Iterable[str] | None = None) -> tuple[Signals, SignalCollector]:
    """First pass: propose with names, exact keys and structure from ``seeds`` and give every proposed pair every
    signal value. ``taken`` targets are no candidates (default: the targets of ``seeds``)."""
    timings = timings if timings is not None else {}
    collector = SignalCollector(view, settings, taken=seeds.values() if taken is None else taken)
    signals: Signals = {}
    started = time.perf_counter()
    collector.names(signals, sources, progress)
    timings["names"] = time.perf_counter() - started
    continue_pass(collector, signals, sources, seeds, timings, progress)
    return signals, collector


def continue_pass(collector: SignalCollector, signals: Signals, sources: Sequence[str], seeds: Mapping[str, str],
                  timings: dict[str, float], progress: Progress | None = None) -> None:
    """After the names: propose by structure from ``seeds`` (replacing earlier structure values) and give every
    proposed pair every signal value."""
    for stage, step in (("structure", lambda: collector.structure(signals, sources, seeds, progress)),
                        ("score_pairs", lambda: collector.complete(signals))):
        started = time.perf_counter()
        step()
        timings[stage] = time.perf_counter() - started


def final_ranking(signals: Signals, weights: Weights, allowed: Collection[str] | None, assignment: bool,
                  csls_k: int = 0, taken_penalty: float = 0.0) -> tuple[Ranking, dict[str, str], Ranking]:
    """(ranking by fused score — CSLS-rescaled when ``csls_k`` and ``assignment`` —, one-to-one assignment or {},
    ranking with the assigned target first and targets assigned elsewhere demoted by ``taken_penalty``)."""
    ranked = rank(signals, weights, allowed)
    if assignment and csls_k:
        ranked = csls(ranked, csls_k)
    assigned = stable_assignment(ranked) if assignment else {}
    return ranked, assigned, assigned_first(ranked, assigned, taken_penalty)


def retrieve(graph: Graph, *, dataset: str | None = None, task: AlignTask | None = None,
             settings: RetrievalSettings | None = None, sources: Sequence[str] | None = None,
             run_id: str | None = None, progress: Progress | None = None, view: PairView | None = None,
             pseudo_seeds: Mapping[str, str] | None = None, properties: Mapping[str, Any] | None = None,
             first_pass: tuple[Signals, SignalCollector] | None = None,
             outside: OutsideAnchors | None = None) -> RetrievalRun:
    """Retrieve, bootstrap, fuse, assign and store the top-k candidates of every source of ``task`` (or of
    :func:`pair_task` of ``dataset``); names must be embedded (:func:`~kgagents.agent.alignment.embedding.embed_names`).

    ``sources`` narrows the task's sources; ``view``: the pair already read (one read serves tuning and retrieval);
    ``pseudo_seeds`` (source → target, from :mod:`~kgagents.agent.alignment.pseudo_seeds`) feed the first
    structure pass beside the seed links, but unlike them take no target; ``properties`` go on the run node;
    ``first_pass``: the names pass already made over the task's sources with the seed links' targets taken (the
    tuning's, :attr:`~kgagents.agent.alignment.tuning.Tuning.first_pass`), continued instead of made again;
    ``outside``: anchors outside the task (the tuning's), looked for again in every bootstrap round.
    Re-running with the same ``run_id`` replaces that run's candidates.
    """
    settings = settings or RetrievalSettings()
    if task is None:
        if dataset is None:
            raise KgAgentsError("retrieve needs a dataset (a loaded pair) or an AlignTask")
        task = pair_task(graph, dataset, settings)
    if sources is not None:
        task = replace(task, sources=list(sources))
    structural = {**(pseudo_seeds or {}), **task.seeds}
    store = RunStore(graph)
    with store.running(JOB, run_id=run_id or new_run_id(JOB), mode="no_llm",
                       properties={**task.describe(), **settings.stored(), **(properties or {})}) as run_id:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if view is None:
            view = PairView(graph, kg1=task.kg1, kg2=task.kg2, settings=settings)
        timings["read"] = time.perf_counter() - started
        if first_pass is None:
            signals, collector = collect_signals(view, sources=task.sources, seeds=structural, settings=settings,
                                                 timings=timings, progress=progress, taken=task.seeds.values())
        else:
            signals, collector = first_pass
            continue_pass(collector, signals, task.sources, structural, timings, progress)
        weights = Weights.of(settings)
        boot_started = time.perf_counter()
        anchor_counts: list[int] = []
        pseudo = bootstrap(collector, signals, sources=task.sources, seeds=structural, weights=weights,
                           allowed=task.targets, rounds=settings.bootstrap_rounds, share=settings.bootstrap_share,
                           progress=progress, outside=outside, anchor_counts=anchor_counts)
        timings["bootstrap"] = time.perf_counter() - boot_started
        assign_started = time.perf_counter()
        ranked, assignment, final = final_ranking(signals, weights, task.targets, settings.assignment,
                                                   settings.csls_k, settings.taken_penalty)
        timings["assignment"] = time.perf_counter() - assign_started
        candidates = {s: [Candidate(t, i, score, signals[s][t], assignment.get(s) == t)
                          for i, (t, score) in enumerate(final[s][: settings.top_k], 1)] for s in final}
        timings["retrieval"] = time.perf_counter() - started
        stored = time.perf_counter()
        store_candidates(graph, run_id=run_id, kg1=task.kg1, kg2=task.kg2, candidates=candidates)
        timings["store"] = time.perf_counter() - stored
        wanted = set(task.sources)
        scored = [(s, t) for s, t in task.reference if s in wanted]
        scores = rank_scores({s: [c.target for c in cands] for s, cands in candidates.items()},
                             scored) if scored else None
        store.finish(run_id, scores=scores.model_dump(exclude={"n"}) if scores else {}, metric="hits_at_1",
                     properties={"pseudo_seeds": pseudo, "anchors": anchor_counts, "assigned": len(assignment),
                                 "scored_links": scores.n if scores else 0,
                                 **{f"{k}_seconds": round(v, 3) for k, v in timings.items() if k != "retrieval"}})
    return RetrievalRun(run_id, task, candidates, signals, timings, pseudo, ranked, assignment, scores, anchor_counts)
