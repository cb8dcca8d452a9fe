"""Long runs report their stages: the stage names in order and the items each stage says it has done."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import ea_retrieval as ea_runner
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from kgagents.loaders.ontology import load_ontology
from kgagents.progress import MATCHING_STAGES, matching_updates


class Recorder:
    """A :class:`kgagents.progress.Stages` that remembers what it heard."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, int | None]] = []
        self.done: dict[str, int] = {}

    def stage(self, name: str, total: int | None = None) -> None:
        self.stages.append((name, total))
        self.done[name] = 0

    def advance(self, n: int = 1) -> None:
        self.done[self.stages[-1][0]] += n

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.stages]


def test_a_matching_run_reports_each_stage_once_in_order(graph: Graph, fixtures: Path) -> None:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    for name in ("conf_a", "conf_b"):
        load_ontology(graph, fixtures / "matching" / f"{name}.ttl", name=name)
    rec = Recorder()
    rec.stage(MATCHING_STAGES[0])
    match_pair(graph, "conf_a", "conf_b", MatchSettings(mode="no_llm", batch_size=1), on_update=matching_updates(rec))
    assert rec.names == list(MATCHING_STAGES)
    total = dict(rec.stages)["validate"]
    assert total is not None and total >= 2  # one checkpointed validate step per entity
    assert rec.done["validate"] == total


def test_the_ea_retrieval_benchmark_reports_its_stages(graph: Graph, fixtures: Path, tmp_path: Path) -> None:
    rec = Recorder()
    result = ea_runner.benchmark(graph, fixtures / "kg" / "jape_tiny_de_en", out=tmp_path, stages=rec)
    assert rec.names == ["load the pair", "embed entity names", "align: read, tune, retrieve (source passes)",
                         "ablations: no bootstrap, no pseudo-seeds, no tuning (source passes)",
                         "score signals, measure embedding, write results"]
    # 4 + 4 entity names, once more for the name-variant vectors when the multilingual embedder is installed
    channels = 2 if result["embedders"]["multilingual"] else 1
    assert rec.done["load the pair"] > 0 and rec.done["embed entity names"] == 8 * channels
    # every pass over the 3 test sources reports them: names + structure (+ one structure pass per round); one seed
    # link and a handful of pseudo-seeds are too few to tune on, so no "not tuned" ablation run
    rounds = result["settings"]["bootstrap_rounds"]
    assert result["tuning"]["path"] == "defaults"
    assert rec.done["align: read, tune, retrieve (source passes)"] == 3 * (2 + rounds)
    assert rec.done["ablations: no bootstrap, no pseudo-seeds, no tuning (source passes)"] == 3 * 2 + 3 * (2 + rounds)
    assert (tmp_path / "ea" / "jape_tiny_de_en" / "retrieval_seeds-train.json").is_file()


@pytest.mark.parametrize("queue", [[], [["forward", "a"]]])
def test_validation_with_an_empty_or_short_queue_still_ends_in_merge(queue: list[list[str]]) -> None:
    rec = Recorder()
    on_update = matching_updates(rec)
    on_update("retrieve", {"queue": queue})
    if queue:
        on_update("validate", {"queue": []})
    assert rec.names == ["validate", "merge"] and rec.done["validate"] == len(queue)


def test_a_progress_bar_written_to_a_pipe_prints_a_line_per_tenth(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under nohup a live bar shows nothing until the end: plain lines at each tenth instead."""
    from io import StringIO

    from rich.console import Console

    from kgagents.cli import common

    out = StringIO()
    monkeypatch.setattr(common, "console", Console(file=out, force_terminal=False, width=200))
    with common.progress_bar("answering", 20) as advance:
        for _ in range(20):
            advance(1)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10 and lines[0].startswith("answering: 2/20 (") and lines[-1].startswith("answering: 20/20")
