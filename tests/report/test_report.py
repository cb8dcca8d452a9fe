"""``kgagents report`` on runs stored in the real Neo4j: every number is recomputed here from the graph or the
reference file, never typed in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.agent.alignment.agent import EAAgent
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.retrieval import retrieve, split_links
from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
from kgagents.agent.matching.settings import MatchSettings
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import ensure_loaded, match_pair
from kgagents.loaders.alignment import load_alignment, read_alignment
from kgagents.loaders.jape import load_jape_pair
from kgagents.metrics.oaei import equivalence_pairs, score_pairs
from kgagents.progress import MATCHING_STAGES
from kgagents.report import build_report
from kgagents.report.jobs import RunNotFoundError
from kgagents.report.model import stage_seconds
from kgagents.report.plot import write_png
from kgagents.report.terminal import histogram
from tests.scripted_chat import ScriptedChatModel

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def clean(graph: Graph) -> Graph:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    return graph


def _cmt_confof(graph: Graph, shared_data: Path, **settings: object):
    onto = shared_data / "om" / "conference" / "ontologies"
    names = [ensure_loaded(graph, onto / f) for f in ("cmt.owl", "confof.owl")]
    reference = shared_data / "om" / "conference" / "reference" / "cmt-confof.rdf"
    return names, reference, MatchSettings(mode="no_llm", **settings)


def test_matching_report_curve_ends_at_the_runs_own_scores(clean: Graph, shared_data: Path, tmp_path: Path) -> None:
    names, reference, settings = _cmt_confof(clean, shared_data)
    run = match_pair(clean, names[0], names[1], settings, reference=reference)
    report = build_report(clean, run.run_id)
    assert report.job == "matching" and report.reference is not None
    assert {(p.source, p.target) for p in report.predictions} == run.pairs
    assert report.reference.pairs == frozenset(equivalence_pairs(read_alignment(reference)))
    # accepting every prediction is the run itself: the curve's last point is its P/R
    last = report.curve()[-1]
    assert run.scores is not None
    assert (last.accepted, last.true_positives) == (len(run.pairs), run.scores.tp)
    assert (last.precision, last.recall) == pytest.approx((run.scores.precision, run.scores.recall))
    assert all(a.threshold > b.threshold and a.accepted < b.accepted for a, b in zip(report.curve(), report.curve()[1:]))
    assert {"lexical pre-match"} <= set(report.origins())
    # the score is each pair's calibrated confidence, the one the run wrote to its output and the graph
    assert report.score_label.startswith("calibrated confidence")
    assert run.result is not None
    confidence = {(m["source"], m["target"]): m["confidence"] for m in run.result.output}
    assert {(p.source, p.target): p.score for p in report.predictions} == confidence
    assert all(0.0 <= c <= 1.0 for c in confidence.values())
    # the stage table holds the timings the run stored
    stored = clean.run_text("MATCH (r:Run {id: $id}) RETURN properties(r) AS p", id=run.run_id)[0]["p"]
    assert {s.stage: s.seconds for s in report.stages} == stage_seconds(stored) != {}
    assert set(stage_seconds(stored)) >= {"prematch", "texts", "embed", "retrieve"}
    # in the order the stages run, though a node's properties come back in no particular order
    assert [s.stage for s in report.stages] == [s for s in MATCHING_STAGES if s in stage_seconds(stored)]
    png = write_png(report, tmp_path / "r.png")
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 20_000


def test_a_loaded_reference_is_found_and_its_defects_are_reported(clean: Graph, shared_data: Path,
                                                                  tmp_path: Path) -> None:
    names, reference, settings = _cmt_confof(clean, shared_data)
    run = match_pair(clean, names[0], names[1], settings)  # not scored: no reference on the run
    assert build_report(clean, run.run_id).reference is None
    # a copy of the reference with one entity of neither ontology and one subsumption cell
    text = reference.read_text(encoding="utf-8")
    cell = re.search(r"<map>.*?</map>", text, re.S)
    assert cell is not None
    extra = (cell.group(0).replace('entity1 rdf:resource="', 'entity1 rdf:resource="http://nowhere.example/x#')
             + cell.group(0).replace("<relation>=</relation>", "<relation>&lt;</relation>"))
    edited = tmp_path / "cmt-confof-edited.rdf"
    edited.write_text(text.replace(cell.group(0), cell.group(0) + extra, 1), encoding="utf-8")
    load_alignment(clean, edited, name="edited")
    report = build_report(clean, run.run_id)
    assert report.reference is not None and "edited" in report.reference.name
    expected = score_pairs(run.pairs, equivalence_pairs(read_alignment(edited)))
    assert report.curve()[-1].recall == pytest.approx(expected.recall)
    notes = " ".join(report.notes)
    assert "1 entities of the reference are in neither ontology (http://nowhere.example/x#" in notes
    assert "1 of " in notes and "not '='" in notes


def test_scripted_llm_run_has_llm_calls_per_stage(clean: Graph, shared_data: Path) -> None:
    names, reference, _ = _cmt_confof(clean, shared_data)
    chat = ScriptedChatModel([lambda messages: "no, they differ" if "Do A and B" in messages[-1]["content"]
                              else "A conference term."] * 5000)
    settings = MatchSettings(channels=("syntactic", "lexical"), structural=False)
    run = match_pair(clean, names[0], names[1], settings, chat=chat, reference=reference)
    report = build_report(clean, run.run_id)
    by_stage = {s.stage: s for s in report.stages}
    purposes = [c["purpose"] for c in chat.calls]
    assert by_stage["texts"].calls == purposes.count("describe")
    assert by_stage["validate"].calls == sum(p.startswith("validate") for p in purposes) > 0
    assert sum(s.calls for s in report.stages) == len(purposes) == run.llm_calls
    assert by_stage["texts"].seconds is not None and by_stage["texts"].tokens > 0
    outputs = {o.purpose: o for o in report.outputs}  # every validate reply parsed, none decoded under the schema
    validate = outputs["validate"]
    assert validate.calls == validate.schema_asked == validate.parsed == purposes.count("validate")
    assert (validate.parse_failures, validate.constrained, validate.fallback_rate) == (0, 0, 1.0)
    assert outputs["describe"].schema_asked == 0


def test_ea_retrieval_report_scores_rank1_candidates_against_test_links(graph: Graph, fixtures: Path) -> None:
    dataset = "jape_tiny_de_en"
    load_jape_pair(graph, fixtures / "kg" / dataset)
    embed_names(graph, get_embedder(), (f"{dataset}:de", f"{dataset}:en"), RetrievalSettings())
    run = retrieve(graph, dataset=dataset, run_id="ea-report-test")
    report = build_report(graph, "ea-report")  # a unique prefix is enough
    top1 = {(s, c[0].target) for s, c in run.candidates.items()}
    assert {(p.source, p.target) for p in report.predictions} == top1
    assert report.reference is not None and report.reference.pairs == frozenset(split_links(graph, dataset))
    last = report.curve()[-1]
    assert last.true_positives == len(top1 & set(split_links(graph, dataset)))
    # every stage of the run, each once (the run's own seconds hold the total)
    assert sorted(s.stage for s in report.stages) == sorted(["read", "names", "structure", "score_pairs", "bootstrap",
                                                             "assignment", "store"])
    # the EA-Agent (offline: retrieval top-1) over the same run: its SAME_AS links, by tool path
    result = EAAgent(graph, None, EASettings(mode="no_llm", use_gold=True)).run({"dataset": dataset, "retrieval_run_id": run.run_id, "run_id": "ea-agent-report"})
    agent = build_report(graph, "ea-agent-report")
    assert agent.job == "ea-agent" and {(p.source, p.target) for p in agent.predictions} == top1
    assert agent.origins() == ["path retrieval_top1"]
    assert agent.curve()[-1].precision == pytest.approx(result.output.hits_at_1)


def test_unknown_and_ambiguous_run_ids_are_clear_errors(graph: Graph) -> None:
    graph.run_text("CREATE (:Run {id: 'custom-1', job: 'custom', retrieval_seconds: 1.5, metric: 'acc', score: 0.25}), "
                   "(:Run {id: 'custom-2', job: 'custom'})")
    with pytest.raises(RunNotFoundError, match="no run with id 'nope'"):
        build_report(graph, "nope")
    with pytest.raises(RunNotFoundError, match="several run ids"):
        build_report(graph, "custom-")
    generic = build_report(graph, "custom-1")  # a job without a reader: its stored score and stages
    assert generic.job == "custom" and generic.scores == {"acc": 0.25} and [(s.stage, s.seconds) for s in generic.stages] == [("retrieval", 1.5)]


def test_histogram_bins_cover_every_score() -> None:
    scores = [0.0, 0.25, 0.5, 0.5, 1.0, 2.0]
    bins = histogram(scores, bins=4)
    assert [n for *_, n in bins] == [2, 2, 1, 1]  # width 0.5: [0, .5) [.5, 1) [1, 1.5) [1.5, 2]
    assert sum(n for *_, n in bins) == len(scores)
    assert histogram([0.7, 0.7]) == [(0.7, 0.7, 2)]


def test_cli_report_prints_tables_and_writes_the_png(clean: Graph, neo4j_settings: Neo4jSettings,
                                                     shared_data: Path, tmp_path: Path) -> None:
    names, reference, settings = _cmt_confof(clean, shared_data)
    run = match_pair(clean, names[0], names[1], settings, reference=reference)
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(), "COLUMNS": "200"}
    out = tmp_path / "plots" / "cmt.png"
    result = CliRunner().invoke(app, ["report", run.run_id, "--out", str(out)], env=env)
    assert result.exit_code == 0, result.output
    assert "precision / recall against threshold" in result.output and "time and cost per stage" in result.output
    assert run.scores is not None and f"{run.scores.f1:.4f}" in result.output
    assert out.read_bytes()[:8] == PNG_MAGIC
    missing = CliRunner().invoke(app, ["report", "no-such-run"], env=env)
    assert missing.exit_code == 1 and "no run with id" in missing.output and "Traceback" not in missing.output
