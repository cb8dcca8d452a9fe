"""Text2KGBench scoring (the benchmark's definitions) on hand-computed cases, and the no-LLM bench on a tiny sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.render import markdown
from benchmarks.text2kgbench_report import write_report
from kgagents.errors import InputFileError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.metrics.text2kgbench import (
    Sentence,
    in_benchmark_format,
    load_ontology_data,
    normalise_triple,
    ontology_conformance,
    ontology_ids,
    precision_recall_f1,
    published_baselines,
    quoted_relations,
    score_ontology,
    score_sentence,
    subject_object_hallucination,
)

SENT = Sentence("s1", "The AWH Engineering College is located in Kerala and has 250 academic staff.",
                (("AWH_Engineering_College", "state", "Kerala"), ("AWH_Engineering_College", "academicStaffSize", "250")))
RELATIONS = {"state", "academicStaffSize", "country"}


@pytest.fixture(scope="module")
def root(shared_data: Path) -> Path:
    return shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg"


def test_triple_normalisation_and_prf() -> None:
    assert normalise_triple(("AWH_Engineering College", "state", " Kerala")) == "awhengineeringcollegestatekerala"
    assert normalise_triple(("a", "b", '"250"'), ignore_quotes=True) == "ab250"
    assert precision_recall_f1({"x"}, set()) == (0.0, 0.0, 0.0)
    p, r, f1 = precision_recall_f1({"a", "b"}, {"a", "c", "d"})
    assert (p, r) == pytest.approx((1 / 3, 1 / 2)) and f1 == pytest.approx(0.4)


def test_conformance_and_hallucination() -> None:
    assert ontology_conformance(RELATIONS, []) == (1.0, 0.0)
    assert ontology_conformance(RELATIONS, [("a", "state", "b"), ("a", "colour", "b")]) == (0.5, 0.5)
    ok = [("AWH Engineering College", "state", "Kerala")]
    assert subject_object_hallucination(["University"], SENT.text, ok) == (0.0, 0.0)
    made_up = [("Harvard", "state", "Kerala"), ("AWH Engineering College", "country", "India")]
    assert subject_object_hallucination(["University"], SENT.text, made_up) == (0.5, 0.5)
    # the benchmark stems an underscored name as one word: "colleges" → "colleg" only when spaced
    assert subject_object_hallucination([], "Two colleges.", [("colleges", "r", "Two")]) == (0.0, 0.0)
    assert subject_object_hallucination([], "Two engineering colleges.", [("engineering_colleges", "r", "Two")])[0] == 1.0
    # concept labels count as context
    assert subject_object_hallucination(["University"], SENT.text, [("x", "r", "University")]) == (1.0, 0.0)


def test_sentence_scores_filter_system_triples_by_ground_truth_relations() -> None:
    system = [("AWH Engineering College", "state", "Kerala"), ("AWH Engineering College", "country", "India"),
              ("AWH Engineering College", "colour", "blue")]
    s = score_sentence(SENT, system, RELATIONS, ["University"])
    assert s["precision"] == 1.0 and s["recall"] == 0.5  # country and colour dropped before P/R (not in GT)
    assert s["onto_conf"] == pytest.approx(2 / 3) and s["rel_halluc"] == pytest.approx(1 / 3)
    assert s["obj_halluc"] == pytest.approx(2 / 3)


def test_quoting_is_learned_per_relation_from_train_triples() -> None:
    train = [Sentence("t1", "", (("A", "alternativeName", '"Al"'), ("A", "birthDate", "1990-01-02"))),
             Sentence("t2", "", (("B", "alternativeName", '"Bee"'), ("B", "birthDate", '"1991-03-04"'))),
             Sentence("t3", "", (("C", "alternativeName", "Cee"), ("C", "birth Date", "1992-05-06")))]
    quoted = quoted_relations(train)
    assert quoted == {"alternativeName"}  # 2 of 3 quoted; birthDate 1 of 3
    stored = [("D", "alternativeName", "Dee"), ("D", "alternativeName", '"Dee"'), ("D", "birthDate", "1993")]
    assert in_benchmark_format(stored, quoted) == [("D", "alternativeName", '"Dee"'),
                                                   ("D", "alternativeName", '"Dee"'), ("D", "birthDate", "1993")]
    gold = Sentence("s", "D, also called Dee.", (("D", "alternativeName", '"Dee"'),))
    as_stored = score_sentence(gold, [("D", "alternativeName", "Dee")], {"alternativeName"}, [])
    formatted = score_sentence(gold, [("D", "alternativeName", "Dee")], {"alternativeName"}, [], quoted)
    assert as_stored["f1"] == as_stored["f1_as_stored"] == 0.0 and as_stored["f1_ignoring_quotes"] == 1.0
    assert formatted["f1"] == 1.0 and formatted["f1_as_stored"] == 0.0


def test_ontology_average_counts_missing_sentences_as_zero(root: Path) -> None:
    data = load_ontology_data(root, "1_university")
    first, second = data.sentences[0], data.sentences[1]
    scores = score_ontology(data, {first.id: list(first.triples)}, [first.id, second.id])
    assert scores["f1"] == 0.5 and scores["onto_conf"] == 0.5
    assert score_ontology(data, {s.id: list(s.triples) for s in data.sentences})["f1"] == 1.0


def test_real_files_and_published_baselines(root: Path) -> None:
    ids = ontology_ids(root)
    assert len(ids) == 19 and ids[0] == "1_university" and ids[-1] == "19_film"
    base = published_baselines(root)
    assert base["Vicuna-13B"]["global"]["f1"] == 0.30 and base["Vicuna-13B"]["1_university"]["f1"] == 0.23
    assert base["Alpaca-LoRA-13B"]["7_company"]["onto_conf"] == 0.95


@pytest.mark.integration
def test_no_llm_bench_on_a_sample(graph: Graph, root: Path, tmp_path: Path) -> None:
    from kgagents.jobs.text2kgbench import run

    result = run(graph, settings={"mode": "no_llm"}, sample=3, seed=1, ontologies=["8_celestialbody"])
    write_report(result, tmp_path)
    r = result["per_ontology"]["8_celestialbody"]
    assert result["label"] == "no_llm" and r["sentences"] == 3
    assert r["accepted"] + r["rejected"] == r["ground_truth_triples"] > 0
    assert set(r["rejected_by_type"]) <= {"datatype_violation"}
    outside = r["corruptions"]["relation_outside_ontology"]
    assert outside["rejected"] == outside["fed"] > 0 and outside["rejected_by_type"] == {"unknown_tool": outside["fed"]}
    assert result["global"]["onto_conf"] == 1.0
    saved = json.loads((tmp_path / "extraction" / "text2kgbench" / "no-llm.json").read_text())
    assert saved["git_commit"] and saved["machine"]["cores"] and saved["baselines"]["Vicuna-13B"]
    assert "Vicuna-13B F1 / conf." in (markdown(saved) or "")  # what `kgagents report FILE` shows
    # the benchmark run and the ontology's agent run, both in the run store
    bench, part = RunStore(graph).get(result["run_id"]), RunStore(graph).get(r["run_id"])
    assert bench.status.value == part.status.value == "finished" and bench.mode == part.mode == "no_llm"
    assert bench.score == result["global"]["f1"] and bench.get("parts") == [r["run_id"]]
    # the agent's own run scores its A-Box as stored; the benchmark's figure adds WebNLG's quotes learned from train
    assert part.score == pytest.approx(r["scores_through_tools"]["f1_as_stored"])
    assert r["quoted_relations"] and r["scores_through_tools"]["f1"] >= r["scores_through_tools"]["f1_as_stored"]


def _copy_without_baselines(root: Path, target: Path, onto_id: str) -> Path:
    for sub, name in (("ontologies", f"{onto_id}_ontology.json"),
                      ("ground_truth", f"ont_{onto_id}_ground_truth.jsonl")):
        (target / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy(root / sub / name, target / sub / name)
    return target


def test_published_baselines_are_optional(root: Path, tmp_path: Path) -> None:
    assert published_baselines(_copy_without_baselines(root, tmp_path, "7_company")) == {}


@pytest.mark.integration
def test_bench_runs_without_the_baseline_files(graph: Graph, root: Path, tmp_path: Path) -> None:
    from kgagents.jobs.text2kgbench import run

    data = _copy_without_baselines(root, tmp_path / "data", "7_company")
    result = run(graph, settings={"mode": "no_llm"}, sample=1, seed=1, root=data)
    write_report(result, tmp_path / "out")
    assert result["baselines"] == {} and result["per_ontology"]["7_company"]["sentences"] == 1
    md = markdown(json.loads((tmp_path / "out" / "extraction" / "text2kgbench" / "no-llm.json").read_text())) or ""
    assert "No published baselines" in md and "Vicuna" not in md


@pytest.mark.integration
def test_full_mode_bench_with_a_scripted_model(graph: Graph, root: Path, tmp_path: Path) -> None:
    from kgagents.jobs.text2kgbench import run
    from kgagents.metrics.text2kgbench import sample_sentences
    from tests.scripted_chat import ScriptedChatModel

    data = load_ontology_data(root, "7_company")
    [sentence_id] = sample_sentences(data, 1, 3)
    sentence = next(s for s in data.sentences if s.id == sentence_id)
    chat = ScriptedChatModel([json.dumps({"entities": [{"name": sentence.triples[0][0], "class": "Company"}]}),
                              "no idea"])
    result = run(graph, chat=chat, settings={"feedback": False}, sample=1, seed=3, ontologies=["7_company"])
    write_report(result, tmp_path)
    r = result["per_ontology"]["7_company"]
    assert result["label"] == "LLM (scripted), constraint feedback off" and r["sentences"] == 1
    assert (r["llm_calls"], r["tool_calls"], r["unparsed_replies"], r["triples_written"]) == (2, 1, 1, 0)
    assert r["llm_calls_by_step"] == {"entities": 1, "facts": 1} and r["unparsed_by_step"] == {"facts": 1}
    assert r["scores"]["f1"] == 0.0 and r["examples"][0]["id"] == sentence_id
    assert (tmp_path / "extraction" / "text2kgbench" / "llm_scripted_no-feedback.json").is_file()
    assert RunStore(graph).get(r["run_id"]).get("llm_calls") == 2


def test_train_split_and_similar_examples_never_show_the_answer(root: Path) -> None:
    from kgagents.jobs.text2kgbench_agent import similar_examples

    train = load_ontology_data(root, "1_university", "train")
    test = load_ontology_data(root, "1_university")
    assert train.sentences[0].id.startswith("ont_1_university_train_") and test.sentences[0].id.endswith("test_1")
    with pytest.raises(InputFileError, match="unknown Text2KGBench split"):
        load_ontology_data(root, "1_university", "dev")
    sentence = train.sentences[0]
    [example] = similar_examples(sentence, train.sentences, 1)
    assert not set(map(tuple, example["triples"])) & set(sentence.triples)  # other verbalisations are left out
    [for_test] = similar_examples(test.sentences[0], train.sentences, 1)
    assert "academic staff" in for_test["text"]  # the test sentence: "… Kerala and it has 250 academic staff"
    assert similar_examples(sentence, train.sentences, 0) == []


@pytest.mark.integration
def test_a_run_keeps_the_aboxes_of_a_run_still_going_on(graph: Graph, root: Path) -> None:
    """Two benchmarks on one database: each writes under its own run's A-Box prefix and removes only the A-Boxes of
    runs that are over."""
    from kgagents.jobs.text2kgbench import run

    def written(run_id: str) -> int:
        prefix = RunStore(graph).get(run_id).get("abox_prefix")
        assert run_id in prefix
        return graph.run_text("MATCH (n:Instance) WHERE n.abox STARTS WITH $p RETURN count(n) AS n", p=prefix)[0]["n"]

    def set_status(run_id: str, status: str) -> None:
        graph.run_text("MATCH (r:Run {id: $id}) SET r.status = $status", id=run_id, status=status)

    first = run(graph, settings={"mode": "no_llm"}, sample=1, seed=1, ontologies=["7_company"])["run_id"]
    assert written(first) > 0
    set_status(first, "running")  # as if it were still going on in this (live) process
    second = run(graph, settings={"mode": "no_llm"}, sample=1, seed=2, ontologies=["7_company"])["run_id"]
    assert written(first) > 0 and written(second) > 0
    set_status(first, "finished")
    run(graph, settings={"mode": "no_llm"}, sample=1, seed=3, ontologies=["7_company"])
    assert written(first) == written(second) == 0
