"""``kgagents align`` on two KGs of our own (tests/fixtures/alignment_kgs: 41 entities, German and English names,
three places with opaque names that only their country tells apart), with 0, few and many seed links.

What the expectations rest on: 38 pairs have names that agree across the languages (17 spelled alike, 21
translations a multilingual encoder knows), so with no seed link at all the run finds pseudo-seeds among them; the
opaque places (Ort 17 / Place A, …) can only be told apart by structure, which needs aligned neighbours — so a run
that ranks them right without any seed link has taken its structure from its own pseudo-seeds, and the same run
with the structure weight at 0 gets them wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.agent.alignment.aligned import stored_pairs
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.retrieval import AlignTask
from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.alignment import align_kgs, align_task, multilingual_embedder
from kgagents.loaders.alignment import stored_alignment
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.pairs import read_pairs, resolve_ids
from kgagents.loaders.triples import load_triples
from tests.scripted_chat import ScriptedChatModel

OPAQUE = {"Ort 17": "Place A", "Ort 23": "Place B", "Ort 31": "Place C"}


@pytest.fixture
def kgs(graph: Graph, fixtures: Path) -> Graph:
    folder = fixtures / "alignment_kgs"
    load_triples(graph, folder / "de.tsv", kg="de")
    load_triples(graph, folder / "en.tsv", kg="en")
    return graph


@pytest.fixture
def reference(fixtures: Path) -> list[tuple[str, str]]:
    return [(p.source, p.target) for p in read_pairs(fixtures / "alignment_kgs" / "reference.tsv")]


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value(),
            "KGAGENTS_LLM_BASE_URL": "http://127.0.0.1:9"}  # no model: never the shared local server


def test_zero_seeds_aligns_every_entity_structure_from_its_own_pseudo_seeds(
        kgs: Graph, reference: list[tuple[str, str]]) -> None:
    result = align_kgs(kgs, kg1="de", kg2="en", reference=reference,
                       settings=RetrievalSettings(min_pseudo_seeds=10))
    decided = {p.source: p.target for p in result.pairs}
    assert result.task.seeds == {} and len(result.pairs) == 41
    assert result.tuning.path == "pseudo_seeds"
    record = result.tuning.record(reference)
    assert record["pseudo_seeds"] >= 15 and record["pseudo_seed_precision"] == 1.0
    assert not set(result.tuning.pseudo_seeds) & set(OPAQUE)  # opaque names are no pseudo-seeds …
    assert {s: decided[s] for s in OPAQUE} == OPAQUE  # … structure from the pseudo-seeds aligns them
    assert result.tuning.settings.w_structure > 0  # not the degenerate corner of the grid
    assert result.scores()["pairs_hits_at_1"] == 1.0
    names_only = align_kgs(kgs, kg1="de", kg2="en", reference=reference,
                           settings=RetrievalSettings(w_structure=0.0, tuning="off"))
    assert {s: p.target for p in names_only.pairs for s in [p.source] if s in OPAQUE} != OPAQUE


def test_the_alignment_is_stored_as_an_alignment_node_with_links(kgs: Graph) -> None:
    result = align_kgs(kgs, kg1="de", kg2="en", name="de-en")
    stored = stored_alignment(kgs, "de-en")
    assert (stored.onto1, stored.onto2, len(stored.cells)) == ("de", "en", 41)
    assert {(c.entity1, c.entity2) for c in stored.cells} == {(p.source, p.target) for p in result.pairs}
    links = kgs.run_text("MATCH (:Entity {kg: 'de'})-[l:ALIGNED {alignment: 'de-en'}]->(:Entity {kg: 'en'}) "
                         "RETURN count(l) AS n")[0]["n"]
    assert links == 41
    align_kgs(kgs, kg1="de", kg2="en", name="de-en")  # again under the same name: replaced, not doubled
    assert kgs.run_text("MATCH ()-[l:ALIGNED {alignment: 'de-en'}]->() RETURN count(l) AS n")[0]["n"] == 41


def test_few_seeds_are_respected_and_their_entities_are_not_aligned_again(
        kgs: Graph, reference: list[tuple[str, str]]) -> None:
    seeds = dict(reference[:5])
    result = align_kgs(kgs, kg1="de", kg2="en", seeds=seeds, reference=reference[5:])
    assert len(result.task.seeds) == 5 and result.tuning.path in ("pseudo_seeds", "defaults")
    assert not {p.source for p in result.pairs} & set(seeds)
    assert not {p.target for p in result.pairs} & set(seeds.values())  # a seed's target is taken
    assert result.scores()["pairs_hits_at_1"] == 1.0


def test_many_seeds_tune_on_held_out_seed_links(kgs: Graph, reference: list[tuple[str, str]]) -> None:
    result = align_kgs(kgs, kg1="de", kg2="en", seeds=dict(reference[:24]), reference=reference[24:],
                       settings=RetrievalSettings(min_seed_links=12))
    assert result.tuning.path == "seeds" and len(result.tuning.validation) == 8  # a third of 24
    assert result.scores()["pairs_hits_at_1"] == 1.0
    # the bootstrap share, rounds and taken penalty are chosen on the held-out seed links too, as the benchmark does
    assert result.tuning.scores["bootstrap_trials"] and result.tuning.scores["taken_penalty_trials"]


def test_pseudo_seeds_do_not_choose_the_bootstrap_rounds_or_the_taken_penalty(kgs: Graph) -> None:
    result = align_kgs(kgs, kg1="de", kg2="en", seeds={}, settings=RetrievalSettings(min_pseudo_seeds=5))
    assert result.tuning.path == "pseudo_seeds" and "bootstrap_trials" not in result.tuning.scores
    # nor calibrate a confidence: held-out pseudo-seeds are pairs the names already agree on
    assert result.tuning.calibration is None and {p.confidence for p in result.pairs} == {None}


def test_with_seed_links_each_pair_has_a_calibrated_confidence_in_the_graph_and_the_files(
        kgs: Graph, reference: list[tuple[str, str]], tmp_path: Path) -> None:
    from kgagents.graph.runs import RunStore
    from kgagents.loaders.sssom import read_sssom

    result = align_kgs(kgs, kg1="de", kg2="en", seeds=dict(reference[:24]), reference=reference[24:],
                       settings=RetrievalSettings(min_seed_links=12), name="calibrated")
    calibration = result.tuning.calibration
    assert calibration is not None and calibration.links == 8  # the held-out seed links
    confidences = [p.confidence for p in result.pairs]
    assert all(c is not None and 0 < c < 1 for c in confidences)
    assert set(confidences) <= {round(v, 4) for v in calibration.values}
    run = RunStore(kgs).get(result.retrieval.run_id)
    assert run is not None and run.get("confidence_links") == 8
    assert list(run.get("confidence_values")) == list(calibration.values)
    stored = stored_pairs(kgs, "calibrated")
    assert stored is not None and stored[2] == sorted(result.pairs, key=lambda p: p.source)
    assert kgs.run_text("MATCH ()-[l:ALIGNED {alignment: 'calibrated'}]->() WHERE l.confidence IS NULL "
                        "RETURN count(l) AS n")[0]["n"] == 0
    out = tmp_path / "calibrated.sssom.tsv"
    result.write_sssom(kgs, out)
    assert sorted(m.confidence for m in read_sssom(out).mappings) == sorted(confidences)
    assert result.scores()["confidence_reliability"]["pairs"] == len(reference) - 24


def test_a_split_made_at_load_time_is_the_seed_set(graph: Graph, fixtures: Path) -> None:
    load_jape_pair(graph, fixtures / "kg" / "jape_tiny_de_en", train_ratio=0.5, split_seed=1)
    train = graph.run_text("MATCH ()-[g:GOLD_LINK {dataset: 'jape_tiny_de_en', split: 'train'}]->() "
                           "RETURN count(g) AS n")[0]["n"]
    result = align_kgs(graph, dataset="jape_tiny_de_en")
    assert len(result.task.seeds) == train > 0
    none = align_kgs(graph, dataset="jape_tiny_de_en", seeds={})
    assert none.task.seeds == {} and none.task.reference == result.task.reference


def test_cli_zero_seeds_writes_tsv_and_json_and_prints_json(kgs: Graph, neo4j_settings: Neo4jSettings,
                                                            fixtures: Path, tmp_path: Path) -> None:
    ref = fixtures / "alignment_kgs" / "reference.tsv"
    out = tmp_path / "pairs.tsv"
    run = CliRunner().invoke(app, ["align", "de", "en", "--reference", str(ref), "--out", str(out), "--no-llm"],
                             env=_env(neo4j_settings))
    assert run.exit_code == 0, run.output
    assert "0 seed links" in run.output and "Hits@1 1.0000" in run.output
    rows = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == ["source", "target", "score", "assigned", "decided_by", "confidence"] and len(rows) == 42
    assert {r[5] for r in rows[1:]} == {""}  # no seed links: nothing to calibrate a confidence on
    assert "no confidence: 0 seed links, fewer than min_seed_links" in " ".join(run.output.split())
    assert [(p.source, p.target) for p in read_pairs(out)] == sorted((r[0], r[1]) for r in rows[1:])
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("".join(ref.read_text(encoding="utf-8").splitlines(keepends=True)[:10]), encoding="utf-8")
    printed = CliRunner().invoke(app, ["align", "de", "en", "--json", "--no-llm", "--seeds", str(seeds),
                                       "--set", "top_k=3"], env=_env(neo4j_settings))
    assert printed.exit_code == 0, printed.output
    summary = json.loads(printed.stdout)
    assert summary["seed_links"] == 10 and len(summary["pairs"]) == 31 and summary["settings"]["top_k"] == 3
    everything = CliRunner().invoke(app, ["align", "de", "en", "--no-llm", "--seeds", str(ref)],
                                    env=_env(neo4j_settings))
    assert everything.exit_code == 1 and "nothing is left to align" in everything.output
    share = CliRunner().invoke(app, ["align", "de", "en", "--json", "--no-llm", "--reference", str(ref),
                                     "--seed-share", "0.5", "--out", str(tmp_path / "p.json")],
                               env=_env(neo4j_settings))
    assert share.exit_code == 0, share.output
    written = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert written["seed_links"] == 20 and written["reference_links"] == 21 and len(written["pairs"]) == 21


def test_cli_sssom_out_is_valid_sssom_that_reads_back_as_the_reference(
        kgs: Graph, neo4j_settings: Neo4jSettings, fixtures: Path, tmp_path: Path) -> None:
    from sssom import parsers as sssom_parsers  # a dev dependency: the reference implementation
    from sssom import validators as sssom_validators
    from sssom.constants import SchemaValidationType

    from kgagents.loaders.sssom import read_sssom

    ref = fixtures / "alignment_kgs" / "reference.tsv"
    out, tsv = tmp_path / "pairs.sssom.tsv", tmp_path / "pairs.tsv"
    for path in (out, tsv):
        run = CliRunner().invoke(app, ["align", "de", "en", "--reference", str(ref), "--out", str(path), "--no-llm",
                                       "--name", "mine"], env=_env(neo4j_settings))
        assert run.exit_code == 0, run.output
    for path in (tmp_path / "later.sssom.tsv", tmp_path / "later.tsv"):  # the stored alignment, exported later
        later = CliRunner().invoke(app, ["ea", "export", "mine", "--pairs", str(path)], env=_env(neo4j_settings))
        assert later.exit_code == 0 and "41 pairs written" in later.output, later.output
    assert (tmp_path / "later.tsv").read_text(encoding="utf-8") == tsv.read_text(encoding="utf-8")
    assert (tmp_path / "later.sssom.tsv").read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    mapping_set = read_sssom(out)
    assert mapping_set.curie_map["de"] == "https://w3id.org/kgagents/kg/de/"
    rows = {(m.subject_id, m.object_id): m for m in mapping_set.mappings}
    munich = rows["https://w3id.org/kgagents/kg/de/M%C3%BCnchen", "https://w3id.org/kgagents/kg/en/Munich"]
    assert (munich.subject_label, munich.object_label) == ("München", "Munich")
    assert munich.predicate_id == "http://www.w3.org/2002/07/owl#sameAs" and munich.confidence is None
    assert munich.mapping_justification.endswith("CompositeMatching") and "fused score" in (munich.comment or "")
    msdf = sssom_parsers.parse_sssom_table(str(out))
    assert len(msdf.df) == len(rows) == 41  # every row well-formed: the parser drops the others
    reports = sssom_validators.validate(msdf, [SchemaValidationType.JsonSchema,
                                               SchemaValidationType.PrefixMapCompleteness,
                                               SchemaValidationType.StrictCurieFormat], fail_on_error=False)
    assert all(not report.results for report in reports.values()), reports
    # read back, the file's IRIs name the loaded entities: as the reference it scores the same run the same
    again = CliRunner().invoke(app, ["align", "de", "en", "--reference", str(out), "--no-llm", "--json"],
                               env=_env(neo4j_settings))
    assert again.exit_code == 0, again.output
    scores = json.loads(again.stdout)["scores"]
    assert scores["n"] == 41 and scores["hits_at_1"] == 1.0
    decided = {(p.source, p.target) for p in read_pairs(tsv)}
    sources, targets = {s for s, _ in decided}, {t for _, t in decided}
    assert {(p.source, p.target) for p in resolve_ids(read_pairs(out), sources, targets)} == decided


@pytest.mark.parametrize(("line", "expected"), [
    ("Wien\tVienna\nNowhere\tVienna\n", "seeds.tsv:2: 'Nowhere' is not an entity of KG 'de'"),
    ("Wien\tVienna\nWien\tSalzburg\n", "seeds.tsv:2: 'Wien' is paired twice (also on line 1)"),
    ("Wien Vienna\n", "seeds.tsv:1: expected two tab-separated entity ids"),
])
def test_a_bad_seed_file_is_one_error_naming_the_line_and_nothing_is_written(
        kgs: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path, line: str, expected: str) -> None:
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text(line, encoding="utf-8")
    run = CliRunner().invoke(app, ["align", "de", "en", "--seeds", str(seeds), "--no-llm"], env=_env(neo4j_settings))
    assert run.exit_code == 1 and expected in run.output, run.output
    assert "Traceback" not in run.output
    assert kgs.run_text("MATCH (n) WHERE n:Alignment OR n:Run RETURN count(n) AS n")[0]["n"] == 0


def test_an_unknown_setting_is_refused_before_anything_runs(kgs: Graph, neo4j_settings: Neo4jSettings) -> None:
    run = CliRunner().invoke(app, ["align", "de", "en", "--set", "w_nonsense=1"], env=_env(neo4j_settings))
    assert run.exit_code == 1 and "no setting 'w_nonsense'" in run.output


def test_with_a_model_the_agent_decides_the_pairs_scripted(kgs: Graph, reference: list[tuple[str, str]]) -> None:
    chat = ScriptedChatModel(["1"] * 100)  # the aligner always picks the candidate shown first
    result = align_kgs(kgs, chat, kg1="de", kg2="en", reference=reference,
                       agent_settings=EASettings(mode="llm_only"))
    assert result.agent is not None and result.agent.sources == 41
    assert len(chat.calls) == 41 and {p.decided_by for p in result.pairs} == {"aligner"}
    assert result.summary()["agent_run_id"] == result.agent.run_id
    assert result.scores()["pairs_hits_at_1"] == 1.0  # retrieval's rank 1 is right for all 41 (see above)
    assert {p.reviewer for p in result.pairs} == {chat.model_name}  # the model chose each pair: it reviewed them
    stored = stored_pairs(kgs, result.name)
    # the graph keeps what decided each pair, and which model
    assert stored is not None and stored[2] == sorted(result.pairs, key=lambda p: p.source)


def test_the_agent_keeps_retrievals_confidence_where_it_chose_retrievals_rank_1(
        kgs: Graph, reference: list[tuple[str, str]], neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    from kgagents.loaders.sssom import read_sssom

    chat = ScriptedChatModel(["1", "2"] * 50)  # the aligner picks the first candidate shown, then the second, …
    result = align_kgs(kgs, chat, kg1="de", kg2="en", seeds=dict(reference[:24]), reference=reference[24:],
                       settings=RetrievalSettings(min_seed_links=12), agent_settings=EASettings(mode="llm_only"))
    first = {s: cands[0].target for s, cands in result.retrieval.candidates.items()}  # retrieval's rank 1
    assert result.agent is not None and result.tuning.calibration is not None
    moved = [p for p in result.pairs if p.target != first[p.source]]
    kept = [p for p in result.pairs if p.target == first[p.source]]
    assert moved and all(p.confidence is None for p in moved)  # no confidence in a choice retrieval did not make
    assert kept and all(p.confidence is not None for p in kept)
    out = tmp_path / "agent.sssom.tsv"  # the EA-Agent run exported later: the same confidences
    run = CliRunner().invoke(app, ["ea", "export", result.agent.run_id, "--pairs", str(out)], env=_env(neo4j_settings))
    assert run.exit_code == 0, run.output
    exported = {m.subject_label: m.confidence for m in read_sssom(out).mappings}
    assert exported == {p.source: p.confidence for p in result.pairs}
    tsv = tmp_path / "agent.tsv"  # and its TSV: the same confidence in the last column, empty where there is none
    run = CliRunner().invoke(app, ["ea", "export", result.agent.run_id, "--pairs", str(tsv)], env=_env(neo4j_settings))
    assert run.exit_code == 0, run.output
    header, *lines = [ln.split("\t") for ln in tsv.read_text(encoding="utf-8").splitlines()]
    assert header[-1] == "confidence"
    assert {cells[0]: float(cells[-1]) if cells[-1] else None for cells in lines} == {
        p.source: p.confidence for p in result.pairs}


def test_entities_outside_the_task_anchor_its_structure(kgs: Graph, reference: list[tuple[str, str]]) -> None:
    """A task over the three opaque places only (a benchmark ranks its test links only): their names tell them
    nothing, their countries lie outside the task — paired there by the pseudo-seed rule, they align the places."""
    settings = RetrievalSettings()
    embed_names(kgs, get_embedder(), ("de", "en"), settings, multilingual=multilingual_embedder())
    task = AlignTask("de", "en", sorted(OPAQUE), frozenset(OPAQUE.values()), {}, sorted(OPAQUE.items()))
    tuning, run = align_task(kgs, task, settings)
    gold = dict(reference)
    assert tuning.anchors and not set(tuning.anchors) & set(OPAQUE)  # anchors come from outside the task only
    assert {"Schweiz", "Polen", "Spanien"} <= set(tuning.anchors)
    assert all(gold[s] == t for s, t in tuning.anchors.items())
    assert {s: c[0].target for s, c in run.candidates.items()} == OPAQUE
    assert run.anchors and len(run.anchors) == settings.bootstrap_rounds  # looked for again in every round
    _, alone = align_task(kgs, task, settings.model_copy(update={"outside_anchors": False}))
    assert all(p.structure == 0.0 for targets in alone.signals.values() for p in targets.values())
