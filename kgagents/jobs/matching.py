"""Ontology matching as a job: one :class:`~kgagents.agent.matching.graph.MatchingAgent` run on two loaded
ontologies, scored against a reference when one is given (the run store records the scores)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import curies

from kgagents.agent.base import RunResult
from kgagents.agent.matching.graph import MatchingAgent, Progress
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings.base import Embedder
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.loaders.background import BackgroundLoad, load_background
from kgagents.loaders.ontology import load_ontology
from kgagents.metrics.oaei import Scores


@dataclass
class PairRun:
    """One source × target run as the CLI, the demo and the benchmarks read it (the agent's :class:`RunResult`
    is in ``result``)."""

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
    result: RunResult | None = None
    background: BackgroundLoad | None = None

    @classmethod
    def of(cls, result: RunResult, source: str, target: str) -> PairRun:
        props = result.properties
        return cls(
            run_id=result.run_id, source=source, target=target,
            pairs={(m["source"], m["target"]) for m in result.output}, entities=int(props.get("entities", 0)),
            seconds=result.seconds, llm_calls=result.llm.calls, prompt_tokens=result.llm.prompt_tokens,
            completion_tokens=result.llm.completion_tokens,
            scores=Scores.model_validate(result.scores) if result.scores else None,
            timings={k.removesuffix("_seconds"): v for k, v in props.items() if k.endswith("_seconds")},
            result=result)


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
    background: Sequence[Path] = (),
    prefixes: Sequence[curies.Record] = (),
) -> PairRun:
    """Run the matching agent on two loaded ontologies; score against ``reference`` if given.

    ``chat`` is any chat model :func:`kgagents.llm.as_chat_model` accepts (ignored in mode ``no_llm``). With a
    ``checkpointer`` the thread is ``thread_id`` (default ``<source>-<target>-<mode>``), so running the same
    command again resumes an interrupted run. ``background``: files of background knowledge (bridge ontologies,
    SSSOM, Alignment API; see :mod:`kgagents.loaders.background`), loaded first with ``prefixes`` (curies records,
    e.g. from :func:`~kgagents.loaders.prefixes.read_prefix_map`); the run's ``background`` says what each tied."""
    agent = MatchingAgent(graph, None if not settings.uses_llm else chat, settings, embedder=embedder,
                          on_update=on_update)
    if checkpointer is not None:
        thread_id = thread_id or f"{source}-{target}-{settings.mode}"
    loaded = load_background(connect(graph), background, prefixes) if background else None
    result = agent.run({"source": source, "target": target, "reference": reference,
                        "background": loaded.names if loaded else []},
                       checkpointer=checkpointer, thread_id=thread_id)
    run = PairRun.of(result, source, target)
    run.background = loaded
    return run


def ensure_loaded(graph: Graph, path: Path, name: str | None = None) -> str:
    """Load the ontology file (idempotent; an edited file replaces its earlier load) and return its name:
    ``name`` if given, else the file's default name, refused if another file's ontology has it."""
    return load_ontology(graph, path, name=name).name
