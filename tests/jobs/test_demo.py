"""The demo's job functions on reduced slices, so `make demo` cannot silently rot: each job runs on the real
shared data, writes its run, and the summary row is read back from that run's (:Run) node."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import InputFileError
from kgagents.graph.connection import Graph
from kgagents.jobs.demo import JOBS, DemoSettings, run_demo
from kgagents.loaders.jape_slice import slice_jape

pytestmark = pytest.mark.integration

SMALL = DemoSettings(ea_links=120, kgqa_questions=15, kgqa_learn=300, extraction_sentences=4, seed=3)


def test_every_demo_job_runs_offline_and_reads_its_summary_back_from_neo4j(
        graph: Graph, shared_data: Path, tmp_path: Path) -> None:
    summaries = run_demo(graph, None, shared_data, tmp_path, SMALL)
    assert [s.job for s in summaries] == ["ontology matching", "entity alignment", "KG question answering",
                                          "ontology-to-tools check"]  # no model: gold fed, nothing extracted
    assert summaries[3].short == "tools check" and summaries[3].metric == "gold F1"
    for s in summaries:
        stored = graph.run("demo/run_summary", run_id=s.run_id, score_property="job")[0]
        assert stored["model"] == s.model
        assert s.score is not None and 0.0 <= s.score <= 1.0, s
        assert s.seconds is not None and s.seconds > 0, s
        assert "no-llm" in (s.model or "").lower() or "none" in (s.model or "").lower(), s
        rows = graph.run(s.show_query, run=s.run_id)
        assert rows, f"the Cypher shown for {s.job} finds nothing for run {s.run_id}"
    assert set(JOBS) == {"matching", "alignment", "kgqa", "extraction"}
    kgqa = summaries[2]
    assert kgqa.example is not None and "asked in plain words" in kgqa.example and " via " in kgqa.example


def test_jape_slice_keeps_sampled_links_their_entities_and_the_triples_between_them(
        shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / "ea" / "srprs_en_fr"
    out = slice_jape(source, tmp_path / "slice_en_fr", links=50, seed=1)
    links = [line.split("\t") for line in (out / "ref_ent_ids").read_text().splitlines()]
    assert len(links) == 50
    keep = {i for pair in links for i in pair}
    ents = {line.split("\t")[0] for n in ("ent_ids_1", "ent_ids_2") for line in (out / n).read_text().splitlines()}
    assert ents == keep
    for n in ("triples_1", "triples_2"):
        for line in (out / n).read_text().splitlines():
            h, _, t = line.split("\t")
            assert h in keep and t in keep
    train = {tuple(line.split("\t")) for line in (out / "sup_ent_ids").read_text().splitlines()}
    assert train <= {tuple(p) for p in links}
    again = slice_jape(source, tmp_path / "again_en_fr", links=50, seed=1)
    assert (again / "ref_ent_ids").read_text() == (out / "ref_ent_ids").read_text()


def test_jape_slice_refuses_a_layout_it_does_not_understand(shared_data: Path, tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="cannot slice"):
        slice_jape(shared_data / "ea" / "dbp15k_zh_en", tmp_path / "x_zh_en", links=10)
