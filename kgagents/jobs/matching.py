"""Ontology matching as a job: load the ontologies (idempotent), run the matching graph, score against a
reference when one is given (and store the scores on the run)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgagents.agent.matching.graph import MatchingAgent, new_run_id
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings.base import Embedder
from kgagents.metrics.oaei import Scores, equivalence_pairs, score_pairs
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology import load_ontology

Progress = Callable[[str, dict[str, Any]], None]


@dataclass
class PairRun:
    """One source × target run: its id, pairs, scores (if a reference was given) and costs."""

    run_id: str
    source: str
    target: str
    pairs: set[tuple[str, str]]
    entities: int
    seconds: float
    llm_calls: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    scores: Scores | None = None
    timings: dict[str, float] = field(default_factory=dict)


def match_pair(
    graph: GraphLike,
    source: str,
    target: str,
    settings: MatchSettings,
    *,
    embedder: Embedder | None = None,
    chat: Any = None,
    reference: Path | None = None,
    checkpointer: Any = None,
    thread_id: str | None = None,
    on_update: Progress | None = None,
) -> PairRun:
    """Run the matching graph on two loaded ontologies; score against ``reference`` if given.

    ``chat`` is any chat model :func:`kgagents.llm.as_chat_model` accepts (ignored when ``settings.no_llm``)."""
    graph = connect(graph)
    agent = MatchingAgent(graph, None if settings.no_llm else chat, settings, embedder=embedder)
    app = agent.compile(checkpointer=checkpointer)
    config: dict[str, Any] = {"recursion_limit": 100_000}
    if checkpointer is not None:
        config["configurable"] = {"thread_id": thread_id or f"{source}-{target}-{settings.mode}"}
    state = app.get_state(config) if checkpointer is not None else None
    resume = state is not None and bool(state.next)
    started = time.perf_counter()
    inputs = None if resume else {"run_id": new_run_id(), "source": source, "target": target}
    final: dict[str, Any] = {}
    for mode, chunk in app.stream(inputs, config, stream_mode=["updates", "values"]):
        if mode == "values":
            final = chunk
        elif on_update is not None:
            for node, values in chunk.items():
                on_update(node, values or {})
    seconds = time.perf_counter() - started
    pairs = {(m["source"], m["target"]) for m in final.get("matches", [])}
    entities = len(agent.entities(source)) + len(agent.entities(target))
    run = PairRun(final["run_id"], source, target, pairs, entities, seconds, 0, timings=final.get("timings", {}))
    if agent.llm is not None:  # the ledger in the graph: every request, those of resumed processes too
        totals = agent.llm.ledger.flush(graph, final["run_id"])
        run.llm_calls, run.prompt_tokens, run.completion_tokens = (totals.calls, totals.prompt_tokens,
                                                                   totals.completion_tokens)
    if reference is not None:
        run.scores = score_pairs(pairs, equivalence_pairs(read_alignment(reference)))
        graph.run("matching/set_run_scores", run_id=run.run_id, reference=str(reference),
                  scores={"precision": run.scores.precision, "recall": run.scores.recall, "f1": run.scores.f1})
    return run


def ensure_loaded(graph: Graph, path: Path, name: str | None = None) -> str:
    """Load the ontology file (idempotent; an edited file replaces its earlier load) and return its name:
    ``name`` if given, else the file's default name, refused if another file's ontology has it."""
    return load_ontology(graph, path, name=name).name
