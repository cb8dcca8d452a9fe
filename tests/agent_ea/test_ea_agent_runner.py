"""The EA-Agent benchmark runner and the export of stored runs, on a hand-made French-English pair.

Fixture ``agent_ea/bench_fr_en`` (read off the files): test links Paris→Paris, Allemagne→Germany, Londres→London,
Berlin→Berlin (Seine→Seine is the one train link). Names (from the URIs) differ for Allemagne and Londres only,
so those two are the links without an exact-name pair. Triples: (Allemagne, capitale, Berlin), (Berlin, pays,
Allemagne) and the English mirror. The retrieval candidates are written by hand below, so every expected
number is derived from this docstring and the script, not from the code under test:

retrieval ranks of the gold target: Allemagne 2, Berlin 1, Londres absent, Paris 1
  → Hits@1 2/4, Hits@10 3/4, MRR (0.5 + 1 + 0 + 1) / 4; without exact names (Allemagne, Londres): 0, 1/2, 0.25.
agent (script below): Allemagne → Germany (reflector fixes Berlin), Berlin → Germany (reflector breaks it),
Londres → Paris (aligner names nothing twice: top-1 fallback), Paris → London (aligner picks option 2)
  → rankings [Germany, Berlin, London], [Germany, Berlin], [Paris, Berlin], [London, Paris]
  → gold ranks 1, 2, absent, 2: Hits@1 1/4, Hits@10 3/4, MRR (1 + 0.5 + 0 + 0.5) / 4;
    without exact names: ranks 1, absent → 1/2, 1/2, 1/2.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks import ea_agent as ea_agent_runner
from benchmarks.render import markdown
from kgagents.agent.alignment.candidate_store import Candidate, store_candidates
from kgagents.agent.alignment.settings import EASettings
from kgagents.agent.alignment.signals import PairSignals
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.llm.client import approx_tokens
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.sssom import read_sssom
from tests.scripted_chat import ScriptedChatModel

DATASET = "bench_fr_en"
KG1, KG2 = f"{DATASET}:fr", f"{DATASET}:en"
FR, EN = "http://fr.dbpedia.org/resource/", "http://dbpedia.org/resource/"
RETRIEVAL = "ret-bench"
CANDIDATES = {  # source -> [(target, score)] in retrieval order
    "Paris": [("Paris", 0.9), ("London", 0.5)],
    "Allemagne": [("Berlin", 0.6), ("Germany", 0.55), ("London", 0.1)],
    "Londres": [("Paris", 0.7), ("Berlin", 0.65)],
    "Berlin": [("Berlin", 0.95), ("Germany", 0.9)],
}
# sources run in id order: Allemagne, Berlin, Londres, Paris; all planner calls of the batch come first
SCRIPT = [
    "1. relation_selector\n2. aligner\n3. reflector",  # plan Allemagne
    "1. aligner\n2. reflector",                         # plan Berlin
    "no idea",                                          # plan Londres: rejected -> rule plan [aligner, reflector]
    "1. relation_selector\n2. aligner",                 # plan Paris
    "1", "2",                                           # Allemagne: aligner Berlin, reflector -> Germany
    "1", "2",                                           # Berlin: aligner Berlin, reflector -> Germany
    "Tokyo", "none of them", "1",                       # Londres: aligner fails twice (top-1 Paris), reflector keeps
    "2",                                                # Paris: aligner -> London
]


@pytest.fixture
def pair(graph: Graph, fixtures: Path) -> Graph:
    load_jape_pair(graph, fixtures / "agent_ea" / DATASET)
    candidates = {FR + s: [Candidate(EN + t, rank, score, PairSignals(name=score))
                           for rank, (t, score) in enumerate(cands, 1)] for s, cands in CANDIDATES.items()}
    store_candidates(graph, run_id=RETRIEVAL, kg1=KG1, kg2=KG2, candidates=candidates)
    return graph


def test_bench_scores_the_stored_run_scripted(pair: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    typed = ["kgagents", "bench", "ea-agent", DATASET, "--retrieval-run", RETRIEVAL, "--mode", "full"]
    monkeypatch.setattr(sys, "argv", typed)  # the results file records the command exactly as typed
    chat = ScriptedChatModel(SCRIPT)
    result = ea_agent_runner.bench(pair, chat, dataset=DATASET, retrieval_run_id=RETRIEVAL, mode="full",
                                   settings=EASettings(prompt_candidates=2), out=tmp_path, run_id="ea-bench")
    assert chat.remaining == 0
    assert result["evaluated_links"] == 4 and result["non_exact_links"] == 2 and result["decided"] == 4
    assert result["retrieval"]["all_links"] == {"hits_at_1": 0.5, "hits_at_10": 0.75, "mrr": 0.625, "n": 4}
    assert result["retrieval"]["non_exact"] == {"hits_at_1": 0.0, "hits_at_10": 0.5, "mrr": 0.25, "n": 2}
    assert result["agent"]["all_links"] == {"hits_at_1": 0.25, "hits_at_10": 0.75, "mrr": 0.5, "n": 4}
    assert result["agent"]["non_exact"] == {"hits_at_1": 0.5, "hits_at_10": 0.5, "mrr": 0.5, "n": 2}
    # paths: [relation_selector, aligner, reflector], [aligner, reflector] twice, [relation_selector, aligner]
    assert result["reflector_call_rate"] == 0.75 and result["mean_path_length"] == 2.25
    assert result["plan_fallback_rate"] == 0.25 and result["aligner_fallback_rate"] == 0.25
    assert result["changed_vs_retrieval"] == {"changed": 3, "right": 1, "wrong": 2, "broke_right_top1": 2}
    # every call's tokens (planner included) are charged to some entity
    prompt = sum(approx_tokens(m["content"]) for c in chat.calls for m in c["messages"])
    assert result["prompt_tokens_per_entity"] == pytest.approx(prompt / 4)
    assert result["tokens_per_entity"] == pytest.approx((prompt + sum(approx_tokens(r) for r in SCRIPT)) / 4)
    assert result["llm_calls_by_purpose"]["ea-agent:plan"]["calls"] == 4
    # at most prompt_candidates=2 candidates reach the aligner: Allemagne's third (London) is not shown
    allemagne = next(c["messages"][0]["content"] for c in chat.calls if c["purpose"] == "ea-agent:align")
    assert "Allemagne" in allemagne and "Germany" in allemagne and "London" not in allemagne

    assert result["label"] == "LLM agent (scripted)" and result["mode"] == "full"
    assert result["command"] == " ".join(typed)
    saved = json.loads((tmp_path / "ea" / DATASET / "agent_full_scripted.json").read_text())
    assert saved["run_id"] == "ea-bench"
    assert "| retrieval only, same sources | 0.5000 | 0.7500 | 0.6250 | 4 |" in (markdown(saved) or "")
    run = pair.run("alignment_ea/run", run_id="ea-bench")[0]["run"]
    assert run["bench_agent_all_links_hits_at_1"] == 0.25 and run["bench_reflector_call_rate"] == 0.75


def test_no_llm_bench_on_a_sample_is_labelled(pair: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["kgagents", "bench", "ea-agent", DATASET, "--retrieval-run", RETRIEVAL,
                                      "--mode", "no_llm", "--sample", "2", "--seed", "3"])
    result = ea_agent_runner.bench(pair, None, dataset=DATASET, retrieval_run_id=RETRIEVAL, mode="full",
                                   sample=2, seed=3, out=tmp_path)
    assert result["mode"] == "no_llm" and result["label"] == "no-LLM ablation: retrieval top-1"
    assert result["sample_size"] == 2 and result["evaluated_links"] == 2 and result["tokens_per_entity"] == 0
    assert result["agent"] == result["retrieval"] and result["changed_vs_retrieval"]["changed"] == 0
    assert result["command"].endswith("--mode no_llm --sample 2 --seed 3")
    saved = json.loads((tmp_path / "ea" / DATASET / "agent_no_llm_sample2_no-llm.json").read_text())
    assert (markdown(saved) or "").count("no-LLM ablation") == 1


def test_export_a_stored_run_round_trip_scripted(pair: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    ea_agent_runner.bench(pair, ScriptedChatModel(SCRIPT), dataset=DATASET, retrieval_run_id=RETRIEVAL,
                          mode="full", out=None, run_id="ea-export")
    pairs, traj = tmp_path / "pairs.tsv", tmp_path / "traj.jsonl"
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    out = CliRunner().invoke(app, ["ea", "export", "ea-export", "--pairs", str(pairs), "--trajectories", str(traj)],
                             env=env)
    assert out.exit_code == 0, out.output
    assert pairs.read_text(encoding="utf-8").splitlines() == [
        "source\ttarget\tscore\tpath\tconfidence",  # its retrieval run has no calibration: no confidence
        f"{FR}Allemagne\t{EN}Germany\t0.55\trelation_selector>aligner>reflector\t",
        f"{FR}Berlin\t{EN}Germany\t0.9\taligner>reflector\t",
        f"{FR}Londres\t{EN}Paris\t0.7\taligner>reflector\t",
        f"{FR}Paris\t{EN}London\t0.5\trelation_selector>aligner\t",
    ]
    lines = [json.loads(x) for x in traj.read_text(encoding="utf-8").splitlines()]
    assert [x["query"]["source"] for x in lines] == [FR + s for s in ("Allemagne", "Berlin", "Londres", "Paris")]
    assert lines[0]["query"]["top_scores"] == [0.6, 0.55, 0.1]
    # γ = γ_μ + c·0.5 + e^(−0.2·l): fixed by the reflector / broken by it / wrong, no change / wrong, no reflector
    assert [x["reward"] for x in lines] == pytest.approx(
        [1.5 + math.exp(-0.6), -0.5 + math.exp(-0.4), math.exp(-0.4), math.exp(-0.4)])
    # Paris has no triples: its relation selector selected nothing and is dropped; changed / close reflectors stay
    assert [x["rewritten_path"] for x in lines] == [["relation_selector", "aligner", "reflector"],
                                                    ["aligner", "reflector"], ["aligner", "reflector"], ["aligner"]]
    sssom = tmp_path / "pairs.sssom.tsv"
    out = CliRunner().invoke(app, ["ea", "export", "ea-export", "--pairs", str(sssom)], env=env)
    assert out.exit_code == 0, out.output
    mappings = read_sssom(sssom).mappings
    assert [(m.subject_id, m.object_id) for m in mappings] == [(f"{FR}Allemagne", f"{EN}Germany"),
                                                             (f"{FR}Berlin", f"{EN}Germany"),
                                                             (f"{FR}Londres", f"{EN}Paris"), (f"{FR}Paris", f"{EN}London")]
    # the model chose: a reviewed mapping, the model its reviewer; Londres fell back to retrieval's top-1
    assert [(m.mapping_justification.rsplit("/", 1)[1], m.reviewer_label) for m in mappings] == [
        ("MappingReview", "scripted"), ("MappingReview", "scripted"), ("CompositeMatching", None),
        ("MappingReview", "scripted")]
    assert "tool path aligner>reflector" in (mappings[1].comment or "")
    missing = CliRunner().invoke(app, ["ea", "export", "no-such-run", "--pairs", str(pairs)], env=env)
    assert missing.exit_code == 1 and "No EA-Agent decisions stored" in missing.output


def test_align_no_llm_writes_the_pairs_tsv(pair: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.tsv"
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    out = CliRunner().invoke(app, ["align", DATASET, "--retrieval-run", RETRIEVAL, "--mode", "no_llm",
                                   "--pairs", str(pairs)], env=env)
    assert out.exit_code == 0, out.output
    assert "4 pairs written" in out.output
    assert pairs.read_text(encoding="utf-8").splitlines()[1:] == [  # retrieval top-1 of each source
        f"{FR}Allemagne\t{EN}Berlin\t0.6\tretrieval_top1\t", f"{FR}Berlin\t{EN}Berlin\t0.95\tretrieval_top1\t",
        f"{FR}Londres\t{EN}Paris\t0.7\tretrieval_top1\t", f"{FR}Paris\t{EN}Paris\t0.9\tretrieval_top1\t"]
    sssom = tmp_path / "pairs.txt"  # --format sssom whatever the name
    out = CliRunner().invoke(app, ["align", DATASET, "--retrieval-run", RETRIEVAL, "--mode", "no_llm",
                                   "--pairs", str(sssom), "--format", "sssom"], env=env)
    assert out.exit_code == 0, out.output
    rows = read_sssom(sssom).mappings
    assert [(m.subject_id, m.object_id) for m in rows][:2] == [(f"{FR}Allemagne", f"{EN}Berlin"),
                                                                (f"{FR}Berlin", f"{EN}Berlin")]
    assert {m.mapping_justification.rsplit("/", 1)[1] for m in rows} == {"CompositeMatching"}  # no model: no review


def test_llm_rewrite_of_stored_trajectories_scripted(pair: Graph, tmp_path: Path) -> None:
    from kgagents.agent.alignment.export import write_stored_trajectories
    from kgagents.agent.alignment.rewriter import LLMPathRewriter

    ea_agent_runner.bench(pair, ScriptedChatModel(SCRIPT), dataset=DATASET, retrieval_run_id=RETRIEVAL,
                          mode="full", out=None, run_id="ea-rewrite")
    # one reply per stored trajectory (sources in id order): valid, invalid (reflector first), valid, chatter
    chat = ScriptedChatModel(["1. attribute_selector\n2. aligner", "1. reflector\n2. aligner",
                              "1. relation_selector\n2. aligner",
                              "I would keep it."])
    traj = tmp_path / "traj.jsonl"
    assert write_stored_trajectories(pair, "ea-rewrite", traj, LLMPathRewriter(chat)) == 4
    lines = [json.loads(x) for x in traj.read_text(encoding="utf-8").splitlines()]
    assert [x["rewrite_source"] for x in lines] == ["llm", "rule", "llm", "rule"]
    # a rejected answer keeps the rule rewrite stored with the run (Berlin, Paris: see the round-trip test)
    assert [x["rewritten_path"] for x in lines] == [["attribute_selector", "aligner"], ["aligner", "reflector"],
                                                    ["relation_selector", "aligner"], ["aligner"]]
    assert "Path used: aligner > reflector" in chat.calls[1]["messages"][0]["content"]
    assert chat.remaining == 0


def test_gated_bench_asks_the_model_only_below_the_margin(pair: Graph, tmp_path: Path) -> None:
    # margins: Paris 0.4, Allemagne 0.05, Londres 0.05, Berlin 0.05; gate 0.1 -> three sources reach the model
    chat = ScriptedChatModel([
        '{"choice": 2, "sure": true}', '{"same_as": "B"}',   # Allemagne: sure of Germany; A=Berlin, B=Germany
        '{"choice": 2, "sure": true}', '{"same_as": "A"}',   # Berlin: sure of Germany, not confirmed -> Berlin
        '{"choice": 2, "sure": false}',                      # Londres: unsure -> Paris kept
    ])
    result = ea_agent_runner.bench(pair, chat, dataset=DATASET, retrieval_run_id=RETRIEVAL, mode="gated",
                                   settings=EASettings(gate_margin=0.1), out=tmp_path, run_id="ea-gated")
    assert chat.remaining == 0
    assert result["sources_sent_to_llm"] == 3 and result["llm_calls_per_entity"] == 5 / 4
    assert result["changed_vs_retrieval"] == {"changed": 1, "right": 1, "wrong": 0, "broke_right_top1": 0}
