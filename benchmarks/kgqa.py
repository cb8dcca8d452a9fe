"""KGQA benchmarks: one command per dataset loads the KG (once), embeds its triple readings (once, incremental),
runs :func:`kgagents.jobs.kgqa.run_questions` over the dev questions and writes
``<out>/kgqa_<dataset>_<label>.json`` / ``.md`` (``kgagents bench kgqa`` passes ``benchmarks/results``).

Datasets (shared data, never copied): ``metaqa`` (``kb_partial.txt``, the 1/2/3-hop dev sets, only the questions
whose gold answers are exactly reachable in this partial KB — ``kb_consistent`` — with how many that is),
``pq-2h`` / ``pq-3h`` (PathQuestion, each with its own tab-separated KB) and ``qald-onehop`` (the 72 one-hop
QALD-10 questions on the graph of their gold triples, :mod:`kgagents.loaders.qald_graph`).

Every file records the command that wrote it, the mode and model (``no-llm`` for the offline baseline), the
sample (``--sample N`` draws N questions per question file with ``random.Random(seed)``), Hits@1 by hop count,
LLM calls and tokens per question, iterations, cap-hit rate, the observation's p50/p95 time per question, the
throughput, the one-time cost of embedding the KG's triple readings, and the load average before and after,
because timings on a shared machine are noisy.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import write_results
from kgagents.agent.kgqa.readings import embed_triples, readings_record
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.agent.kgqa.results import QuestionResult
from kgagents.jobs.kgqa import run_questions, seeded_sample
from kgagents.loaders.kg_common import kg_stats
from kgagents.loaders.qa import Question, read_questions
from kgagents.loaders.qald_graph import load_qald_onehop
from kgagents.loaders.triples import load_triples
from kgagents.paths import data_dir

ANCHORS: dict[str, dict[str, float]] = {
    "metaqa": {"EmbedKGQA 1-hop": 97.5, "EmbedKGQA 2-hop": 98.8, "EmbedKGQA 3-hop": 94.8},
    "qald-onehop": {"ODA (GPT-4) QALD-10, all questions": 66.67, "ToG QALD-10, all questions": 53.8},
}


@dataclass(frozen=True)
class Dataset:
    """A benchmark: the KG to load (kind ``triples`` or ``qald_onehop``) and its question files."""

    name: str
    kg: str
    kb: tuple[str, ...]
    questions: tuple[tuple[str, ...], ...]
    kind: str = "triples"
    only_kb_consistent: bool = False


DATASETS = {d.name: d for d in (
    Dataset("metaqa", "metaqa", ("kgqa", "metaqa", "kb_partial.txt"),
            tuple(("kgqa", "metaqa", f"metaqa_{h}hop_dev.jsonl") for h in (1, 2, 3)), only_kb_consistent=True),
    Dataset("pq-2h", "pq-2h", ("kgqa", "pathquestion", "2H-kb.txt"), (("kgqa", "pathquestion", "PQ-2H.jsonl"),)),
    Dataset("pq-3h", "pq-3h", ("kgqa", "pathquestion", "3H-kb.txt"), (("kgqa", "pathquestion", "PQ-3H.jsonl"),)),
    Dataset("qald-onehop", "qald-onehop", ("kgqa", "wikidata_questions", "qald_10-en_onehop_gold_triples.json"),
            (("kgqa", "wikidata_questions", "qald_10-en_onehop_gold_triples.json"),), kind="qald_onehop"),
)}


def dataset(name: str) -> Dataset:
    if name not in DATASETS:
        raise KgAgentsError(f"unknown KGQA dataset '{name}': use one of {', '.join(DATASETS)}")
    return DATASETS[name]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def result_stem(name: str, mode: str, model: str, sample: int | None) -> str:
    """``kgqa_<dataset>_no-llm`` or ``kgqa_<dataset>_<mode>[_sample<N>]_<model-slug>``."""
    if mode == "no_llm":
        return "_".join(["kgqa", name, *([f"sample{sample}"] if sample else []), "no-llm"])
    return "_".join(["kgqa", name, mode, *([f"sample{sample}"] if sample else []), slug(model)])


def ensure_kg(graph: Graph, ds: Dataset) -> dict[str, Any]:
    """Load the dataset's KG unless it is there (loads are idempotent, but a re-load of MetaQA takes minutes)."""
    stats = kg_stats(graph, ds.kg)
    if stats["kg_exists"] and stats["triples"]:
        return {"loaded_now": False, **stats}
    kb = data_dir(*ds.kb)
    if ds.kind == "qald_onehop":
        result = load_qald_onehop(graph, kb, kg=ds.kg,
                                  nt_path=Path.home() / ".cache" / "kgagents" / "derived" / f"{ds.kg}.nt")
    else:
        result = load_triples(graph, kb, kg=ds.kg)
    return {"loaded_now": True, **result.model_dump()}


def benchmark_questions(ds: Dataset, sample: int | None, seed: int) -> tuple[list[Question], list[dict[str, Any]]]:
    """The questions evaluated (per file: kb-consistent filter, then the seeded sample) and per-file counts."""
    chosen: list[Question] = []
    files = []
    for parts in ds.questions:
        path = data_dir(*parts)
        questions = read_questions(path)
        usable = [q for q in questions if q.extra.get("kb_consistent", True)] if ds.only_kb_consistent else questions
        picked = seeded_sample(usable, sample, seed)
        files.append({"file": str(path), "questions": len(questions), "kb_consistent": len(usable)
                      if ds.only_kb_consistent else None, "evaluated": len(picked)})
        chosen.extend(picked)
    return chosen, files


def _loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def bench(graph: Graph, name: str, *, chat: Any = None, settings: KGQASettings | None = None,
          sample: int | None = None, seed: int = 7, workers: int = 1, out: Path | None = None,
          embedder: Embedder | None = None,
          on_question: Callable[[QuestionResult], None] | None = None) -> dict[str, Any]:
    """Run one dataset's benchmark (mode ``no_llm`` when ``chat`` is None); write the files when ``out`` is given."""
    ds = dataset(name)
    settings = settings or KGQASettings()
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    load_before = _loadavg()
    started = time.perf_counter()
    kg = ensure_kg(graph, ds)
    embedder = embedder or get_embedder()
    readings = embed_triples(graph, embedder, ds.kg)
    questions, files = benchmark_questions(ds, sample, seed)
    run = run_questions(graph, ds.kg, questions, settings, chat, workers=workers, embedder=embedder,
                        dataset=ds.name, on_question=on_question)
    summary = run.summary()
    result: dict[str, Any] = {
        "benchmark": f"KGQA {ds.name}: {len(questions)} questions"
                     + (f" (seeded sample of {sample} per question file, seed {seed})" if sample else ""),
        "label": "no-llm (offline baseline: observation ranking only, answer = best-scoring tail)"
                 if settings.mode == "no_llm" else f"ODA mode {settings.mode} with {run.model}",
        "dataset": ds.name, "kg": ds.kg, "mode": settings.mode, "model": run.model, "run_id": run.run_id,
        "sample_per_file": sample, "seed": seed if sample else None, "question_files": files,
        "settings": settings.model_dump(), **summary,
        "kg_load": kg,
        "triple_readings": {"this_run": {"texts_embedded": readings.texts, "readings_written": readings.readings_written,
                                         "unchanged": readings.unchanged, "seconds": round(readings.seconds, 2)},
                            "one_time_cost": readings_record(graph, ds.kg)},
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_average_before": load_before, "load_average_after": _loadavg(),
        "anchors": ANCHORS.get(ds.name, {}),
        "timing_note": "measured on a machine shared with other jobs; see load averages",
    }
    if out is not None:
        write_results(out, result_stem(ds.name, settings.mode, run.model, sample), result, markdown)
    return result


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def markdown(result: dict[str, Any]) -> str:
    """The results file's human-readable half."""
    cov = result["coverage"]
    lines = [f"# {result['benchmark']}", "", f"**{result['label']}** — run `{result['run_id']}`.", "",
             f"Command: `{result['command']}`", "",
             "| hops | questions | Hits@1 (%) |", "|---|---|---|"]
    lines += [f"| {h} | {result['questions_by_hops'][h]} | {_pct(v)} |" for h, v in result["hits_at_1_by_hops"].items()]
    lines += [f"| all | {result['questions']} | **{_pct(result['hits_at_1'])}** |", ""]
    lines += ["- question files: " + "; ".join(
        f"{Path(f['file']).name}: {f['evaluated']} evaluated of {f['questions']}"
        + (f" ({f['kb_consistent']} kb-consistent)" if f["kb_consistent"] is not None else "")
        for f in result["question_files"]),
        f"- coverage: topic entity in the KG for {cov['topic_in_kg']}, a gold answer in the KG for "
        f"{cov['gold_in_kg']}, both for {cov['topic_and_gold_in_kg']} (Hits@1 on those: {_pct(cov['hits_at_1_covered'])} %)",
        f"- the observation held a gold answer for {_pct(result['observation_answer_recall'])} % of the questions "
        f"(its best {result['settings']['observation_shown']} triples, what the LLM is shown: "
        f"{_pct(result['shown_observation_answer_recall'])} %)",
        f"- LLM calls per question {result['llm_calls_per_question']}, tokens per question "
        f"{result['tokens_per_question']}, mean iterations {result['mean_iterations']}, cap-hit rate "
        f"{result['cap_hit_rate']}",
        f"- observation time per question: p50 {result['observe_ms_p50']} ms, p95 {result['observe_ms_p95']} ms "
        f"(depth {result['settings']['depth']}, N {result['settings']['top_n']}, P {result['settings']['top_percent']})",
        f"- throughput: {result['questions_per_second']} questions/s over the loop with {result['workers']} worker(s) "
        f"({result['questions_per_second_with_embedding']} including embedding the questions); wall "
        f"{result['wall_seconds']} s",
        f"- triple readings: {json.dumps(result['triple_readings'])}",
        f"- load average before {result['load_average_before']}, after {result['load_average_after']} "
        f"({result['machine']['cores']} cores): timings on a shared machine are noisy"]
    if result["anchors"]:
        lines.append("- anchors (published, other systems/models): "
                     + "; ".join(f"{k} {v}" for k, v in result["anchors"].items()))
    return "\n".join(lines) + "\n"
