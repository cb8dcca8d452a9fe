"""``kgagents bench text2kgbench``: compile each DBpedia-WebNLG ontology, write through the tools, score.

Two modes, each writing ``benchmarks/results/text2kgbench_<mode>.json`` and ``.md``:

* ``no-llm`` (no chat model): what the tools themselves enforce. Per test sentence the ground-truth
  triples are fed through the compiled tools (:mod:`kgagents.tools.feed`) into their own A-Box; what
  the graph then holds is scored with the benchmark's definitions (an upper bound for any agent that
  can only write through the tools), rejections are counted by reason, and three synthetic
  corruptions of each ground-truth triple — a relation from another of the 19 ontologies, subject and
  object swapped, a relation of the same ontology with a different signature — are fed about the same
  entities to count what the tools catch. The published Vicuna-13B / Alpaca-LoRA-13B figures are
  LLM outputs and are shown for reference only; no-LLM rows are not extraction results.
* ``llm`` (a chat model): the extraction agent reads each sampled test sentence and writes only
  through the tools; the A-Box it leaves is scored against the ground truth.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from statistics import fmean
from typing import Any

from kgagents.metrics.text2kgbench import (
    ABOX_PREFIX,
    METRICS,
    OntologyData,
    Sentence,
    Triple,
    global_means,
    load_ontology_data,
    ontology_ids,
    published_baselines,
    score_ontology,
)
from kgagents.graph.connection import Graph
from kgagents.graph.properties import as_properties
from kgagents.graph.runs import new_run_id
from kgagents.paths import REPO_ROOT, data_dir
from kgagents.tools.compiler import ToolCatalogue, compile_ontology
from kgagents.tools.export import label_triples
from kgagents.tools.feed import FeedOutcome, assert_triples, create_entities
from kgagents.tools.runtime import ToolRuntime, delete_aboxes, ensure_tool_schema

CORRUPTIONS = ("relation_outside_ontology", "swapped_subject_object", "relation_with_other_signature")


def sample_sentences(data: OntologyData, sample: int | None, seed: int) -> list[str]:
    """All test sentence ids, or a seeded random sample of ``sample`` of them (in file order)."""
    ids = [s.id for s in data.sentences]
    if not sample or sample >= len(ids):
        return ids
    chosen = set(random.Random(f"{seed}:{data.id}").sample(ids, sample))
    return [i for i in ids if i in chosen]


# -- corruptions --------------------------------------------------------------------------------------------
def corrupt(triple: Triple, kind: str, catalogue: ToolCatalogue, foreign_relations: list[str],
            rng: random.Random) -> Triple | None:
    """One synthetic error of ``kind`` about the same entities, or None when the kind does not apply."""
    sub, rel, obj = triple
    if kind == "relation_outside_ontology":
        return (sub, rng.choice(foreign_relations), obj) if foreign_relations else None
    if kind == "swapped_subject_object":
        return (obj, rel, sub)
    props = catalogue.tbox.properties.values()
    own = next((p for p in props if p.name == rel), None)
    if own is None:
        return None
    others = sorted(p.name for p in props if (p.domain, p.range, p.kind) != (own.domain, own.range, own.kind))
    return (sub, rng.choice(others), obj) if others else None


def _by_type(outcomes: list[FeedOutcome]) -> dict[str, int]:
    return dict(Counter(o.result.error_type or "" for o in outcomes if not o.result.ok).most_common())


# -- no-LLM: the conformance the tools enforce -----------------------------------------------------------------
def _feed_sentence(graph: Graph, catalogue: ToolCatalogue, sentence: Sentence, foreign: list[str],
                   seed: int) -> tuple[list[FeedOutcome], list[Triple], dict[str, list[FeedOutcome]]]:
    """Ground truth, then its corruptions, into the sentence's own A-Box; the graph's triples in between."""
    runtime = ToolRuntime(graph, catalogue, abox=f"{ABOX_PREFIX}no-llm:{sentence.id}", ensure_schema=False)
    iris, _ = create_entities(runtime, sentence.triples)
    outcomes = assert_triples(runtime, iris, sentence.triples)
    held = label_triples(graph, runtime.abox)  # what the graph holds, before corruptions
    rng = random.Random(f"{seed}:{sentence.id}")
    corrupted: dict[str, list[FeedOutcome]] = {}
    for kind in CORRUPTIONS:
        fed = [c for t in sentence.triples
               if (c := corrupt(t, kind, catalogue, foreign, rng)) is not None and c not in sentence.triples]
        corrupted[kind] = assert_triples(runtime, iris, fed)
    return outcomes, held, corrupted


def conformance_ontology(graph: Graph, data: OntologyData, sentence_ids: list[str], foreign: list[str],
                         seed: int, workers: int = 4) -> dict[str, Any]:
    """Feed ground truth and its corruptions for one ontology; score what the graph holds.

    Sentences run in a few threads (each call is its own transaction on its own A-Box, so they do not
    interact); results are gathered in sentence order.
    """
    catalogue = compile_ontology(data.ontology_path)
    wanted = set(sentence_ids)
    sentences = [s for s in data.sentences if s.id in wanted]
    system: dict[str, list[Triple]] = {}
    gt_outcomes: list[FeedOutcome] = []
    corrupted: dict[str, list[FeedOutcome]] = {k: [] for k in CORRUPTIONS}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        fed = pool.map(lambda s: _feed_sentence(graph, catalogue, s, foreign, seed), sentences)
        for sentence, (outcomes, held, corruptions) in zip(sentences, fed):
            gt_outcomes += outcomes
            system[sentence.id] = held
            for kind, items in corruptions.items():
                corrupted[kind] += items
    rejected = [o for o in gt_outcomes if not o.result.ok]
    examples: dict[str, list[dict[str, Any]]] = {}
    for o in rejected:
        bucket = examples.setdefault(o.result.error_type or "", [])
        if len(bucket) < 3:
            bucket.append({"triple": list(o.triple), "message": o.result.message})
    return {
        "sentences": len(sentence_ids), "tools": len(catalogue),
        "ground_truth_triples": len(gt_outcomes), "accepted": len(gt_outcomes) - len(rejected),
        "rejected": len(rejected), "rejected_by_type": _by_type(gt_outcomes), "rejection_examples": examples,
        "scores_through_tools": score_ontology(data, system, sentence_ids),
        "scores_ground_truth_itself": score_ontology(data, {s.id: list(s.triples) for s in data.sentences},
                                                     sentence_ids),
        "corruptions": {k: {"fed": len(v), "rejected": sum(not o.result.ok for o in v),
                            "rejected_by_type": _by_type(v)} for k, v in corrupted.items()},
    }


def run(graph: Graph, *, mode: str, chat: Any = None, sample: int | None = None, seed: int = 7,
        ontologies: list[str] | None = None, root: Path | None = None,
        feedback: bool = True, max_steps: int = 24, tools_per_step: int = 60,
        on_ontology: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark in ``mode`` (``no-llm`` or ``llm``) on ``root`` (default: the shared DBpedia-WebNLG
    part) and record it as a ``(:Run {job: 'extraction'})`` node (the benchmark writes the results files)."""
    start, started_at = time.perf_counter(), datetime.now(timezone.utc).isoformat()
    root = root or data_dir("extraction", "text2kgbench", "dbpedia_webnlg")
    ensure_tool_schema(graph)
    delete_aboxes(graph, f"{ABOX_PREFIX}{mode}:")
    ids = ontologies or ontology_ids(root)
    all_data = {oid: load_ontology_data(root, oid) for oid in ontology_ids(root)}
    every_relation = {r for d in all_data.values() for r in d.relations}
    per: dict[str, Any] = {}
    for oid in ids:
        data = all_data[oid]
        sentence_ids = sample_sentences(data, sample, seed)
        if mode == "no-llm":
            per[oid] = conformance_ontology(graph, data, sentence_ids, sorted(every_relation - data.relations), seed)
        else:
            from kgagents.jobs.text2kgbench_agent import agent_ontology

            per[oid] = agent_ontology(graph, data, sentence_ids, chat, feedback=feedback, max_steps=max_steps,
                                      tools_per_step=tools_per_step)
        if on_ontology is not None:
            on_ontology(oid)
    agent = None if mode == "no-llm" else {"feedback": feedback, "max_steps": max_steps, "tools_per_step": tools_per_step}
    result = _summary(mode, chat, per, sample, seed, ontologies, root, time.perf_counter() - start, agent)
    result["run_id"] = _write_run(graph, result, started_at)
    return result


def _write_run(graph: Graph, result: dict[str, Any], started_at: str) -> str:
    """The run's (:Run) node: global scores (``f1``, ``precision``, …), sample and agent settings as typed
    properties, so Cypher users find extraction runs next to matching, alignment and KGQA runs."""
    run_id = new_run_id("extraction")
    props = as_properties({**result["global"], "sample_per_ontology": result["sample_per_ontology"],
                           "seed": result["seed"], "ontologies": sorted(result["per_ontology"]),
                           "agent": result["agent_settings"]})
    graph.run("extraction/write_run", run_id=run_id, props=props, benchmark=result["benchmark"],
              mode=result["mode"], model=result["model"], label=result["label"],
              abox_prefix=f"{ABOX_PREFIX}{result['mode']}:", started_at=started_at)
    return run_id


def _summary(mode: str, chat: Any, per: dict[str, Any], sample: int | None, seed: int,
             ontologies: list[str] | None, root: Path, seconds: float, agent: dict[str, Any] | None) -> dict[str, Any]:
    key = "scores_through_tools" if mode == "no-llm" else "scores"
    model = chat.model_name if chat is not None else "none (no-LLM: ground-truth triples fed through the tools)"
    feedback = agent is None or agent["feedback"]
    label = "no-llm" if mode == "no-llm" else f"llm ({model}){'' if feedback else ', constraint feedback off'}"
    summary: dict[str, Any] = {
        "benchmark": "Text2KGBench DBpedia-WebNLG", "mode": mode, "label": label, "model": model,
        "constraint_feedback": feedback if mode != "no-llm" else None, "agent_settings": agent,
        "data": os.path.relpath(root, REPO_ROOT), "sample_per_ontology": sample, "seed": seed,
        "wall_seconds": round(seconds, 1), "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "per_ontology": per,
        "global": {k: round(v, 4) for k, v in global_means({o: r[key] for o, r in per.items()}).items()},
        "baselines": published_baselines(root),
    }
    if mode == "no-llm":
        summary["global_ground_truth_itself"] = {
            k: round(v, 4) for k, v in global_means({o: r["scores_ground_truth_itself"] for o, r in per.items()}).items()}
        total = sum(r["ground_truth_triples"] for r in per.values())
        summary["ground_truth_acceptance"] = round(sum(r["accepted"] for r in per.values()) / total, 4) if total else 0
        summary["corruption_rejection"] = {
            k: round(sum(r["corruptions"][k]["rejected"] for r in per.values())
                     / max(1, sum(r["corruptions"][k]["fed"] for r in per.values())), 4) for k in CORRUPTIONS}
        summary["mean_tools_per_ontology"] = round(fmean(r["tools"] for r in per.values()), 1)
    summary["metrics"] = list(METRICS)
    return summary
