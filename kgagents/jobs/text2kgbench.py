"""Text2KGBench (``kgagents bench text2kgbench``): compile each DBpedia-WebNLG ontology, write through the tools,
score. The benchmark writes the results files (``benchmarks/text2kgbench_report.py``); this job runs and records.

Two modes:

* ``no_llm`` (no chat model): what the tools themselves enforce. Per test sentence the extraction agent feeds
  the ground-truth triples through the compiled tools into their own A-Box; what the graph then holds is scored
  with the benchmark's definitions (an upper bound for any agent that can only write through the tools),
  rejections are counted by reason, and three synthetic corruptions of each ground-truth triple — a relation
  from another of the 19 ontologies, subject and object swapped, a relation of the same ontology with a
  different signature — are fed about the same entities to count what the tools catch. The published
  Vicuna-13B / Alpaca-LoRA-13B figures are LLM outputs, shown for reference only when the data directory has
  them (``baseline_metrics/``); no-LLM rows are not extraction results.
* ``full`` (a chat model): the extraction agent reads each sampled test sentence and writes only through the
  tools; the A-Box it leaves is scored against the ground truth (``feedback`` off: the seed's ablation).

Each ontology is one agent run (``<benchmark run>:<ontology>``); the benchmark itself is one more run with the
global scores, both in the run store.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from statistics import fmean
from typing import Any

from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore, new_run_id
from kgagents.jobs.text2kgbench_agent import CORRUPTIONS, agent_ontology, conformance_ontology
from kgagents.llm.parallel import map_on_slots
from kgagents.metrics.text2kgbench import (
    ABOX_PREFIX,
    METRICS,
    Sentence,
    global_means,
    load_ontology_data,
    ontology_ids,
    published_baselines,
    quoted_relations,
    sample_sentences,
)
from kgagents.paths import REPO_ROOT, data_dir
from kgagents.tools.runtime import delete_aboxes, ensure_tool_schema

BENCHMARK = "Text2KGBench DBpedia-WebNLG"
NO_LLM_MODEL = "none (no_llm: ground-truth triples fed through the tools)"


def run(graph: Graph, *, chat: Any = None, settings: Mapping[str, Any] | None = None, sample: int | None = None,
        seed: int = 7, ontologies: list[str] | None = None, root: Path | None = None, split: str = "test",
        examples: int = 1, workers: int | None = None,
        on_ontology: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark on ``root`` (default: the shared DBpedia-WebNLG part) with the agent ``settings``
    (``mode`` ``full`` needs ``chat``; ``no_llm`` feeds the ground truth) and record the run; returns the
    results the benchmark writes out. Ontologies run on ``workers`` threads at once (default: the chat model's
    server slots, :func:`~kgagents.llm.parallel.map_on_slots`), each an agent run of its own."""
    settings = dict(settings or {})
    mode = settings.setdefault("mode", "full" if chat is not None else "no_llm")
    start = time.perf_counter()
    root = root or data_dir("extraction", "text2kgbench", "dbpedia_webnlg")
    ids = ontologies or ontology_ids(root)
    all_data = {oid: load_ontology_data(root, oid, split) for oid in ontology_ids(root)}
    unknown = sorted(set(ids) - set(all_data))
    if unknown:
        raise ValueError(f"unknown Text2KGBench ontology id(s) {', '.join(unknown)}; known: {', '.join(all_data)}")
    every_relation = {r for d in all_data.values() for r in d.relations}
    baselines = published_baselines(root)
    ensure_tool_schema(graph)
    store = RunStore(graph)
    store.reap()  # a killed run is no longer running: its A-Boxes go below
    earlier = f"{ABOX_PREFIX}{mode}:" if split == "test" else f"{ABOX_PREFIX}{split}:{mode}:"
    delete_aboxes(graph, earlier)  # earlier runs' A-Boxes, not those of a run still going on
    run_id = new_run_id("extraction")
    prefix = f"{earlier}{run_id}:"
    model = chat_name(chat) if mode != "no_llm" else NO_LLM_MODEL
    slots = workers or (chat_slots(chat) if mode != "no_llm" else 1)
    properties = {"benchmark": BENCHMARK, "split": split, "examples": examples, "sample_per_ontology": sample,
                  "seed": seed, "workers": slots,
                  "ontologies": ids, "abox_prefix": prefix,
                  **{k: v for k, v in settings.items() if k != "mode"}}
    with store.running("extraction", run_id=run_id, model=model, mode=mode, properties=properties):
        def one(oid: str) -> dict[str, Any]:
            data = all_data[oid]
            sentence_ids = sample_sentences(data, sample, seed)
            pool = data.sentences if split == "train" else train_sentences(root, oid)
            quoted = quoted_relations(pool)  # the benchmark's quoting, learned from train triples
            if mode == "no_llm":
                foreign = sorted(every_relation - data.relations)
                part = conformance_ontology(graph, data, sentence_ids, foreign=foreign, seed=seed,
                                            run_id=f"{run_id}:{oid}", abox_prefix=prefix, quoted=quoted)
            else:
                part = agent_ontology(graph, data, sentence_ids, chat=chat, settings=settings,
                                      run_id=f"{run_id}:{oid}", abox_prefix=prefix, examples=pool, k=examples,
                                      quoted=quoted)
            if on_ontology is not None:
                on_ontology(oid)
            return part

        # ontologies are independent agent runs: one per server slot at once (one at a time without a model)
        per = dict(zip(ids, map_on_slots(None, one, ids, workers=slots), strict=True))
        result = _summary(mode, model, settings, per, sample, seed, root, time.perf_counter() - start,
                          baselines if split == "test" else {}, split)
        result["examples_per_sentence"] = examples if mode != "no_llm" else 0
        result["workers"] = slots
        result["run_id"] = run_id
        store.finish(run_id, scores=result["global"], metric="f1",
                     properties={"parts": [r["run_id"] for r in per.values()]})
    return result


def train_sentences(root: Path, oid: str) -> tuple[Sentence, ...]:
    """The ontology's train sentences (the pool solved examples come from); none when the data has no train part."""
    if not (root / "train" / f"ont_{oid}_train.jsonl").is_file():
        return ()
    return load_ontology_data(root, oid, "train").sentences


def chat_name(chat: Any) -> str:
    """The model's name for labels (a LangChain model or a kgagents ChatModel)."""
    from kgagents.llm.langchain import as_chat_model

    return as_chat_model(chat).model_name


def chat_slots(chat: Any) -> int:
    """How many calls the model's endpoint serves at once (``KGAGENTS_LLM_PARALLEL``; 1 for a LangChain model)."""
    from kgagents.llm.langchain import as_chat_model

    return as_chat_model(chat).slots


def _summary(mode: str, model: str, settings: Mapping[str, Any], per: dict[str, Any], sample: int | None,
             seed: int, root: Path, seconds: float, baselines: dict[str, Any], split: str) -> dict[str, Any]:
    key = "scores_through_tools" if mode == "no_llm" else "scores"
    feedback = bool(settings.get("feedback", True))
    label = "no_llm" if mode == "no_llm" else f"LLM ({model}){'' if feedback else ', constraint feedback off'}"
    summary: dict[str, Any] = {
        "benchmark": BENCHMARK, "mode": mode, "label": label, "model": model,
        "constraint_feedback": feedback if mode != "no_llm" else None,
        "agent_settings": dict(settings), "data": os.path.relpath(root, REPO_ROOT), "sample_per_ontology": sample,
        "seed": seed,
        "split": split, "split_note": ("sentences sampled from the test split's ground truth; prompts and design "
                                       "chosen on train sentences" if split == "test" else
                                       "train sentences: for choosing prompts and design, not for reporting"),
        "wall_seconds": round(seconds, 1), "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "per_ontology": per,
        "global": {k: round(v, 4) for k, v in global_means({o: r[key] for o, r in per.items()}).items()},
        "baselines": baselines,
    }
    if mode != "no_llm":
        summary["global_no_llm"] = {
            k: round(v, 4) for k, v in global_means({o: r["no_llm_scores"] for o, r in per.items()}).items()}
    if mode == "no_llm":
        itself = global_means({o: r["scores_ground_truth_itself"] for o, r in per.items()})
        summary["global_ground_truth_itself"] = {k: round(v, 4) for k, v in itself.items()}
        total = sum(r["ground_truth_triples"] for r in per.values())
        summary["ground_truth_acceptance"] = round(sum(r["accepted"] for r in per.values()) / total, 4) if total else 0
        summary["corruption_rejection"] = {
            k: round(sum(r["corruptions"][k]["rejected"] for r in per.values())
                     / max(1, sum(r["corruptions"][k]["fed"] for r in per.values())), 4) for k in CORRUPTIONS}
        summary["mean_tools_per_ontology"] = round(fmean(r["tools"] for r in per.values()), 1)
    summary["metrics"] = list(METRICS)
    return summary
