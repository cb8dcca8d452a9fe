"""Candidate retrieval of the EA agent: four cheap signals computed in Neo4j, fused by a weighted sum, then
one or more bootstrap rounds in which confident alignments become extra structural seeds.

For every source entity (by default: the sources of the TEST gold links) the retriever proposes target
entities from the other KG and scores each with:

(a) ``name`` — cosine of the English-name embeddings (source: translated ``name_en``; target: ``name``),
    top ``name_top_n`` from the candidate engine (:class:`kgagents.candidates.CandidateEngine`: the target KG's
    own vector index, or GDS KNN, whichever ``auto`` measured faster for the workload);
(b) ``exact`` — 1 when any name the dataset gives the source (URI name, translation, labels in either
    language) equals any name of the target after :func:`kgagents.names.name_key`: the keys are
    written to the graph at embedding time (:func:`write_name_keys`) and joined there (:mod:`kgagents.candidates.keys`);
(c) ``structure`` — seed propagation over the relationships (``alignment_ea/structure``): for each
    neighbour n of s that a seed aligns to m, every neighbour t of m gains 1/ln(e + deg m) (hubs count
    less; counterparts with degree > ``structure_max_degree`` are skipped). A plain Cypher expansion was
    chosen over GDS node similarity: it needs no projection of 40k nodes / 165k relationships per run and
    touches only the neighbourhoods of the sources asked for. The score enters the sum saturated,
    w / (1 + w), so one hub-weighted seed does not swamp the name signal;
(d) ``attributes`` — Jaccard of the attribute-name lists, computed in Cypher with the name cosine of each new
    pair (``alignment_ea/pair_scores``). On DBP15K ZH-EN the names ARE comparable, more
    than one would expect across languages: the Chinese DBpedia also uses many English ``dbpedia.org/property``
    names, so 4,376 of its 8,111 attribute names also occur on the English side and 94% of the Chinese
    entities with attributes have at least one shared name (:func:`attribute_overlap`). Alone it ranks poorly
    but it breaks ties among name-similar candidates.

Seeds are the TRAIN gold links. Their targets are *taken*: under the one-to-one assumption of the benchmark a
target already aligned by a seed is no candidate for another source, so neither the name search nor the
structure signal spends slots on it. **Bootstrapping** (as in BootEA-style semi-supervised EA): after the first
ranking, every mutual best pair (s's top candidate is t and no other source ranks t first with a higher score)
scoring at least ``bootstrap_threshold`` becomes a pseudo-seed, and the structure signal is recomputed with the
train seeds plus these predictions. No gold link of the test split is read to do so; the pseudo-seeds are the
retriever's own output, so their errors propagate (their number per round is recorded on the run).

Test gold links are never read here except to pick the sources and, for ``candidate_space="test"``, the
target set. Every pair proposed by any signal is scored with all four (``alignment_ea/pair_scores`` in the
database), so signals can be ablated by re-fusing in Python without another query. Python only fuses and
ranks the short per-source candidate lists.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgagents.names import name_key
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.candidates import CandidateEngine, Ids
from kgagents.candidates.requests import run_parallel
from kgagents.candidates.keys import shared_keys, write_keys
from kgagents.cypher import cypher
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import EmbedStats, Scope, embed_nodes
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph, batched
from kgagents.loaders.jape import gold_links

Progress = Callable[[int], None]
NAME_KEY = "ea_name"  # MatchKey kind of the exact-name signal


@dataclass
class PairSignals:
    """The four signal values of one (source, target) pair and which retrievers proposed it."""

    name: float = 0.0
    exact: float = 0.0
    structure: float = 0.0
    attributes: float = 0.0
    found_by: set[str] = field(default_factory=set)
    scored: bool = False  # all four values filled in (by :meth:`SignalCollector.complete`)


@dataclass(frozen=True)
class Weights:
    name: float
    exact: float
    structure: float
    attributes: float

    @classmethod
    def of(cls, settings: RetrievalSettings) -> Weights:
        return cls(settings.w_name, settings.w_exact, settings.w_structure, settings.w_attributes)

    def score(self, p: PairSignals) -> float:
        return (self.name * p.name + self.exact * p.exact
                + self.structure * p.structure / (1.0 + p.structure) + self.attributes * p.attributes)


@dataclass(frozen=True)
class Candidate:
    target: str
    rank: int
    score: float
    signals: PairSignals


Signals = dict[str, dict[str, PairSignals]]  # source id -> target id -> signals


@dataclass
class RetrievalRun:
    """One run: its id, the KGs, the candidates stored per source (top-k) and the time per stage."""

    run_id: str
    dataset: str
    kg1: str
    kg2: str
    sources: list[str]
    candidates: dict[str, list[Candidate]]
    signals: Signals
    timings: dict[str, float]
    pseudo_seeds: list[int] = field(default_factory=list)


def pair_kgs(graph: Graph, dataset: str) -> tuple[str, str]:
    """(source KG, target KG) of a loaded EA pair, or an error saying how to load it."""
    rows = graph.run("alignment_ea/pair_kgs", dataset=dataset)
    if not rows:
        raise KgAgentsError(f"No gold links for dataset '{dataset}': load the pair first (load_jape_pair).")
    return rows[0]["kg1"], rows[0]["kg2"]


def embed_names(graph: Graph, embedder: Embedder, kgs: Iterable[str], settings: RetrievalSettings,
                progress: Progress | None = None, engine: CandidateEngine | None = None) -> EmbedStats:
    """Embed the English name of every entity of ``kgs`` (name_en, else name), store their exact-name keys, and
    prepare each KG's own vector index (the candidate engine's per-scope index)."""
    engine = engine or CandidateEngine(graph)
    total = EmbedStats()
    for kg in kgs:
        stats = embed_nodes(graph, embedder, scope=Scope.kg(kg), text_properties=[("name_en", "name")],
                            vector_property=settings.vector_property, progress=progress)
        total.embedded += stats.embedded
        total.unchanged += stats.unchanged
        total.empty += stats.empty
        total.seconds += stats.seconds
        write_name_keys(graph, kg)
        engine.prepare(Scope.kg(kg), settings.vector_property, embedder.dimensions)
    return total


def write_name_keys(graph: Graph, kg: str) -> int:
    """Store every normalised name of every entity of ``kg`` (signal b) as shared key nodes in the graph."""
    keyed = {row["id"]: [(NAME_KEY, name_key(name), False) for name in row["names"]]
             for row in graph.run("alignment_ea/entity_name_variants", kg=kg)}
    return write_keys(graph, Scope.kg(kg), keyed, [NAME_KEY])


class SignalCollector:
    """Proposes and scores (source, target) pairs of one KG pair; holds what every pass reuses.

    ``taken``: target ids that are no candidates (targets of seed links). Each method adds to a
    :data:`Signals` table in place, so the passes (names, structure with a growing seed set) compose.
    """

    def __init__(self, graph: Graph, *, kg1: str, kg2: str, settings: RetrievalSettings,
                 taken: Iterable[str] = (), engine: CandidateEngine | None = None) -> None:
        self.graph, self.kg1, self.kg2, self.settings = graph, kg1, kg2, settings
        self.taken = {t: True for t in taken}
        self.engine = engine or CandidateEngine(graph)

    def names(self, signals: Signals, sources: Sequence[str], progress: Progress | None = None) -> None:
        """Signals (a) and (b): name-vector neighbours and exact-name matches of ``sources``."""
        s = self.settings
        found = self.engine.search(Ids(list(sources), by="key", scope=Scope.kg(self.kg1)), Scope.kg(self.kg2),
                                   k=s.name_top_n, vector_property=s.vector_property, exclude=self.taken,
                                   backend=s.name_backend)
        for source, hits in found.items():
            for hit in hits:
                if hit.key is not None:
                    _pair(signals, source, hit.key, "name").name = hit.cosine
        if progress is not None:
            progress(len(sources))
        for row in shared_keys(self.graph, Scope.kg(self.kg1), Scope.kg(self.kg2), kinds=[NAME_KEY],
                               sources=sources, exclude=self.taken):
            _pair(signals, row["source"], row["target"], "exact").exact = 1.0

    def structure(self, signals: Signals, sources: Sequence[str], seeds: Mapping[str, str],
                  progress: Progress | None = None) -> None:
        """Signal (c) for ``sources`` from ``seeds`` (source-KG id → target-KG id), replacing earlier values."""
        if not self.settings.structure_top_n:
            return
        for src in sources:
            for p in signals.get(src, {}).values():
                p.structure = 0.0
        rows_in = [{"s": src, "known": list(signals.get(src, ()))} for src in sources]
        seeds = dict(seeds)

        def run(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return self.graph.run("alignment_ea/structure", rows=chunk, kg1=self.kg1, kg2=self.kg2, seeds=seeds,
                                  taken=self.taken, k=self.settings.structure_top_n,
                                  max_degree=self.settings.structure_max_degree)

        chunks = list(batched(rows_in, self.settings.source_batch))
        for row in run_parallel(run, chunks, self.settings.parallel_queries):
            for hit in row["hits"]:
                _pair(signals, row["source"], hit["target"], "structure").structure = hit["weight"]
        if progress is not None:
            progress(len(sources))

    def complete(self, signals: Signals) -> None:
        """Give every pair not yet scored the name cosine and the attribute-name Jaccard, both computed in the
        database (``alignment_ea/pair_scores``); each pair is scored once, however many passes propose it."""
        fresh: dict[str, list[str]] = defaultdict(list)
        for s, targets in signals.items():
            fresh[s].extend(t for t, p in targets.items() if not p.scored)
        rows_in = [{"s": s, "ts": ts} for s, ts in fresh.items() if ts]

        def run(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return self.graph.run("alignment_ea/pair_scores", rows=chunk, kg1=self.kg1, kg2=self.kg2,
                                  vector_property=self.settings.vector_property)

        chunks = list(_chunks_by_pairs(rows_in, self.settings.score_batch))
        for row in run_parallel(run, chunks, self.settings.parallel_queries):
            p = signals[row["source"]][row["target"]]
            if "name" not in p.found_by:
                p.name = row["cosine"]
            p.attributes = row["jaccard"]
            p.scored = True


def _chunks_by_pairs(rows: list[dict[str, Any]], pairs: int) -> Iterable[list[dict[str, Any]]]:
    """Consecutive groups of ``{s, ts}`` rows holding about ``pairs`` (source, target) pairs each."""
    chunk: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        chunk.append(row)
        size += len(row["ts"])
        if size >= pairs:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _pair(signals: Signals, s: str, t: str, by: str) -> PairSignals:
    p = signals.setdefault(s, {}).get(t)
    if p is None:
        p = signals[s][t] = PairSignals()
    p.found_by.add(by)
    return p


def collect_signals(graph: Graph, *, kg1: str, kg2: str, sources: Sequence[str], seeds: Mapping[str, str],
                    settings: RetrievalSettings, timings: dict[str, float] | None = None,
                    progress: Progress | None = None,
                    engine: CandidateEngine | None = None) -> tuple[Signals, SignalCollector]:
    """First pass: propose with signals a-c (targets of ``seeds`` excluded) and score every pair with all four."""
    timings = timings if timings is not None else {}
    collector = SignalCollector(graph, kg1=kg1, kg2=kg2, settings=settings, taken=seeds.values(), engine=engine)
    signals: Signals = {}
    started = time.perf_counter()
    collector.names(signals, sources, progress)
    timings["names"] = time.perf_counter() - started
    started = time.perf_counter()
    collector.structure(signals, sources, seeds, progress)
    timings["structure"] = time.perf_counter() - started
    started = time.perf_counter()
    collector.complete(signals)
    timings["score_pairs"] = time.perf_counter() - started
    return signals, collector


def mutual_best(ranked: Mapping[str, Sequence[tuple[str, float]]], threshold: float) -> dict[str, str]:
    """Pairs (s, t) where t is s's top candidate, s is the best-scoring source whose top candidate is t, and
    the score is at least ``threshold`` (ties between sources: none of them is taken)."""
    best: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for s, ranking in ranked.items():
        if ranking:
            best[ranking[0][0]].append((ranking[0][1], s))
    out = {}
    for t, claims in best.items():
        claims.sort(reverse=True)
        score, s = claims[0]
        if score >= threshold and (len(claims) == 1 or claims[1][0] < score):
            out[s] = t
    return out


def bootstrap(collector: SignalCollector, signals: Signals, *, sources: Sequence[str], seeds: Mapping[str, str],
              weights: Weights, allowed: set[str] | None, rounds: int, threshold: float,
              progress: Progress | None = None) -> list[int]:
    """``rounds`` times: mutual best pairs of the current ranking → pseudo-seeds → structure recomputed with
    seeds + pseudo-seeds. Returns the number of pseudo-seeds per round. A source's own pseudo-seed never
    feeds its own structure (only neighbours' seeds count)."""
    counts = []
    for _ in range(rounds):
        pseudo = mutual_best(rank(signals, weights, allowed), threshold)
        counts.append(len(pseudo))
        collector.structure(signals, sources, {**pseudo, **seeds}, progress)
        collector.complete(signals)
    return counts


def rank(signals: Signals, weights: Weights, allowed: set[str] | None = None) -> dict[str, list[tuple[str, float]]]:
    """Every source's candidates (only ``allowed`` targets when given) by fused score, best first (ties by id)."""
    out: dict[str, list[tuple[str, float]]] = {}
    for s, targets in signals.items():
        scored = [(t, weights.score(p)) for t, p in targets.items() if allowed is None or t in allowed]
        scored.sort(key=lambda x: (-x[1], x[0]))
        out[s] = scored
    return out


def attribute_overlap(graph: Graph, kg1: str, kg2: str) -> dict[str, float]:
    """How comparable the two KGs' attribute names are: vocabulary sizes, shared names, and the share of
    entities of ``kg1`` with attributes that have at least one name used anywhere in ``kg2``."""
    a = {row["id"]: set(row["attributes"]) for row in graph.run("alignment_ea/entity_attributes", kg=kg1)}
    b = {row["id"]: set(row["attributes"]) for row in graph.run("alignment_ea/entity_attributes", kg=kg2)}
    vocab_a = set().union(*a.values()) if a else set()
    vocab_b = set().union(*b.values()) if b else set()
    shared = vocab_a & vocab_b
    return {"vocabulary_1": len(vocab_a), "vocabulary_2": len(vocab_b), "shared": len(shared),
            "entities_1_with_shared": (sum(1 for v in a.values() if v & shared) / len(a)) if a else 0.0}


def entity_names(graph: Graph, kg: str) -> dict[str, str | None]:
    """Id → English name (translated ``name_en``, else ``name``) of every entity of ``kg``: what the name-bias
    subset (:func:`kgagents.metrics.ea.non_trivial_links`) compares."""
    return {row["id"]: row["name"] for row in graph.run("alignment_ea/entity_names", kg=kg)}


def split_links(graph: Graph, dataset: str, split: str = "test") -> list[tuple[str, str]]:
    """(source id, target id) of the gold links of one split."""
    return [(s, t) for s, t, sp in gold_links(graph, dataset) if sp == split]


def new_run_id() -> str:
    return f"ea-retrieval-{uuid.uuid4().hex[:12]}"


def retrieve(graph: Graph, *, dataset: str, settings: RetrievalSettings | None = None,
             sources: Sequence[str] | None = None, run_id: str | None = None,
             progress: Progress | None = None) -> RetrievalRun:
    """Retrieve, bootstrap, fuse and store the top-k candidates of every source; names must be embedded
    (:func:`embed_names`).

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
    run_id = run_id or new_run_id()
    timings: dict[str, float] = {}
    started, started_at = time.perf_counter(), datetime.now(timezone.utc).isoformat()
    signals, collector = collect_signals(graph, kg1=kg1, kg2=kg2, sources=sources, seeds=seeds, settings=settings,
                                         timings=timings, progress=progress)
    weights = Weights.of(settings)
    boot_started = time.perf_counter()
    pseudo = bootstrap(collector, signals, sources=sources, seeds=seeds, weights=weights, allowed=allowed,
                       rounds=settings.bootstrap_rounds, threshold=settings.bootstrap_threshold, progress=progress)
    timings["bootstrap"] = time.perf_counter() - boot_started
    ranked = rank(signals, weights, allowed)
    candidates = {s: [Candidate(t, i, score, signals[s][t]) for i, (t, score) in enumerate(ranked[s][: settings.top_k], 1)]
                  for s in ranked}
    timings["retrieval"] = time.perf_counter() - started
    started = time.perf_counter()
    store_candidates(graph, run_id=run_id, kg1=kg1, kg2=kg2, candidates=candidates,
                     props={"dataset": dataset, "kg1": kg1, "kg2": kg2, "sources": len(sources),
                            **settings.model_dump(), "pseudo_seeds": pseudo, "retrieval_seconds": timings["retrieval"]},
                     started_at=started_at)
    timings["store"] = time.perf_counter() - started
    return RetrievalRun(run_id, dataset, kg1, kg2, sources, candidates, signals, timings, pseudo)


def store_candidates(graph: Graph, *, run_id: str, kg1: str, kg2: str, candidates: Mapping[str, Sequence[Candidate]],
                     props: Mapping[str, Any], started_at: str | None = None) -> None:
    """Write the (:Run) node and its CANDIDATE relationships in one transaction, replacing a run of that id."""
    rows = [{"s": s, "t": c.target, "rank": c.rank, "score": c.score, "signals": sorted(c.signals.found_by),
             "name": c.signals.name, "exact": c.signals.exact, "structure": c.signals.structure,
             "attributes": c.signals.attributes}
            for s, cands in candidates.items() for c in cands]
    with graph.transaction() as tx:
        tx.run(cypher("alignment_ea/delete_candidates"), kg1=kg1, run_id=run_id).consume()
        graph.write_rows(tx, "alignment_ea/write_candidates", rows, kg1=kg1, kg2=kg2, run_id=run_id)
        tx.run(cypher("alignment_ea/write_run"), run_id=run_id, props=dict(props),
               started_at=started_at).consume()


def set_run_scores(graph: Graph, run_id: str, scores: Mapping[str, float | int]) -> None:
    """Add evaluation numbers to a run's (:Run) node."""
    graph.run("alignment_ea/write_run", run_id=run_id, props=dict(scores), started_at=None)


def stored_candidates(graph: Graph, *, run_id: str, kg1: str, source: str) -> list[dict[str, Any]]:
    """The stored candidates of one source of a run (target, rank, score, signals), best first."""
    return graph.run("alignment_ea/candidates_of", run_id=run_id, kg1=kg1, source=source)
