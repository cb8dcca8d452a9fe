"""The EA-Agent benchmark: run the alignment job (:func:`kgagents.jobs.alignment.align`) over the test sources of a
stored retrieval run (all, or a seeded random sample), score what the run STORED, and write
``<out>/ea/<dataset>/agent_<mode>[_sample<N>]_<model>[_<tag>].json`` (``kgagents bench ea-agent --record``
writes into the results store).

Scoring protocol. Every evaluated source has one test gold target. The agent's ranking of a source is its final
choice first, then the remaining retrieval candidates in retrieval order (so Hits@10 / MRR stay comparable with
retrieval alone); a source without a decision has an empty ranking (a miss). Scores use
:func:`kgagents.metrics.ea.rank_scores`, on all evaluated links and on those without an exact-name pair
(:func:`kgagents.metrics.ea.non_trivial_links`). The retrieval-only scores of the same sources are reported next to
them. Every per-entity number (tokens, seconds, path, fallbacks) is read back from the run's ``AlignTrace`` nodes
and its ``LLMCall`` ledger in Neo4j, never recomputed from memory; the summary lands on the run's ``(:Run)`` node
(``bench_*`` properties).

Command::

    kgagents bench ea-agent dbp15k_zh_en --retrieval-run RUN --mode full --sample 100 --seed 7
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.provenance import file_slug, provenance, write_results
from kgagents.agent.alignment.diagnostics import entity_names
from kgagents.agent.alignment.export import stored_decisions
from kgagents.agent.alignment.retrieval import pair_kgs, split_links
from kgagents.agent.alignment.settings import EASettings
from kgagents.agent.alignment.tools import REFLECTOR
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.alignment import align, bench_sources
from kgagents.metrics.ea import non_trivial_links, rank_scores

NO_LLM_LABEL = "no-LLM ablation: retrieval top-1"
ANCHORS = {"EA-Agent Hits@1 (paper, DBP15K ZH-EN)": 0.9667, "EA-Agent Hits@1 (paper, SRPRS EN-FR)": 0.990,
           "EA-Agent tokens/entity (paper)": 672, "TEA retriever Hits@1 / Hits@10 (DBP15K ZH-EN)": [0.845, 0.982]}


def result_stem(dataset: str, mode: str, sample: int | None, model: str, tag: str | None = None) -> str:
    """``ea/<dataset>/agent_<mode>[_sample<N>]_<model-slug>[_<tag>]`` in the results store."""
    model_slug = "no-llm" if mode == "no_llm" else file_slug(model)
    parts = [f"ea/{dataset}/agent", mode, *([f"sample{sample}"] if sample else []), model_slug,
             *([file_slug(tag)] if tag else [])]
    return "_".join(parts)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_run(graph: Graph, *, dataset: str, retrieval_run_id: str, run_id: str,
              sources: Sequence[str]) -> dict[str, Any]:
    """Every benchmark number of a stored agent run over ``sources``, from its AlignTrace / SAME_AS / LLMCall
    records and the retrieval run's CANDIDATE links."""
    kg1, kg2 = pair_kgs(graph, dataset)
    wanted = set(sources)
    links = [(s, t) for s, t in split_links(graph, dataset) if s in wanted]
    gold = dict(links)
    traces = {r["source"]: r for r in stored_decisions(graph, run_id) if r["source"] in wanted}
    candidates = {r["source"]: [c["target"] for c in r["candidates"]]
                  for r in graph.run("alignment_ea/agent_candidates", kg1=kg1, run_id=retrieval_run_id,
                                     sources=sorted(wanted))}
    agent_rankings: dict[str, list[str]] = {}
    for source in wanted:
        final = traces[source]["target"] if source in traces else None
        agent_rankings[source] = ([final, *(t for t in candidates.get(source, []) if t != final)]
                                  if final is not None else [])
    hard = non_trivial_links(links, entity_names(graph, kg1), entity_names(graph, kg2))

    rows = list(traces.values())
    n = len(links)
    changed = [s for s in wanted
               if agent_rankings[s] and candidates.get(s) and agent_rankings[s][0] != candidates[s][0]]
    purposes: dict[str, dict[str, float]] = defaultdict(
        lambda: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
    for call in graph.run("llm/run_calls", run_id=run_id):
        p = purposes[call["purpose"]]
        p["calls"] += 1
        p["prompt_tokens"] += call["prompt_tokens"]
        p["completion_tokens"] += call["completion_tokens"]
    return {
        "evaluated_links": n, "decided": sum(1 for s in wanted if agent_rankings[s]), "traced": len(rows),
        "non_exact_links": len(hard),
        "agent": {"all_links": rank_scores(agent_rankings, links).model_dump(),
                  "non_exact": rank_scores(agent_rankings, hard).model_dump()},
        "retrieval": {"all_links": rank_scores(candidates, links).model_dump(),
                      "non_exact": rank_scores(candidates, hard).model_dump()},
        "tokens_per_entity": _mean([r["tokens"] or 0 for r in rows]),
        "prompt_tokens_per_entity": _mean([r["prompt_tokens"] for r in rows]),
        "completion_tokens_per_entity": _mean([r["completion_tokens"] for r in rows]),
        "seconds_per_entity": _mean([r["seconds"] or 0.0 for r in rows]),
        "reflector_call_rate": _mean([float(REFLECTOR in (r["trace_path"] or [])) for r in rows]),
        "mean_path_length": _mean([len(r["trace_path"] or []) for r in rows]),
        "plan_fallback_rate": _mean([float(r["plan_source"] == "fallback") for r in rows]),
        "aligner_fallback_rate": _mean([float(r["fallback"]) for r in rows]),
        "changed_vs_retrieval": {"changed": len(changed),
                                 "right": sum(1 for s in changed if agent_rankings[s][0] == gold[s]),
                                 "wrong": sum(1 for s in changed if agent_rankings[s][0] != gold[s]),
                                 "broke_right_top1": sum(1 for s in changed if candidates[s][0] == gold[s])},
        "llm_calls_per_entity": sum(p["calls"] for p in purposes.values()) / max(len(rows), 1),
        "sources_sent_to_llm": sum(1 for r in rows if (r["trace_path"] or []) != ["retrieval_top1"]),
        "llm_calls_by_purpose": {k: {**v, "prompt_tokens_per_entity": v["prompt_tokens"] / max(len(rows), 1)}
                                 for k, v in sorted(purposes.items())},
    }


def bench(graph: Graph, chat: Any, *, dataset: str, retrieval_run_id: str, mode: str = "full",
          sample: int | None = None, seed: int = 7, settings: EASettings | None = None, tag: str | None = None,
          out: Path | None = None, run_id: str | None = None) -> dict[str, Any]:
    """Run the agent (``no_llm`` when ``chat`` is None) over the test sources, score the stored run, put the
    summary on its (:Run) node and (when ``out`` is given) write the JSON and markdown files; returns the JSON."""
    if chat is None:
        mode = "no_llm"
    settings = (settings or EASettings()).model_copy(update={"mode": mode, "use_gold": True})  # the benchmark protocol
    sources = bench_sources(graph, dataset, retrieval_run_id, sample, seed)
    started = time.perf_counter()
    job = align(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run_id, settings=settings, sources=sources,
                run_id=run_id)
    run = job.result
    wall = time.perf_counter() - started
    scores = score_run(graph, dataset=dataset, retrieval_run_id=retrieval_run_id, run_id=run.run_id, sources=sources)
    model = job.model
    result: dict[str, Any] = {
        "benchmark": f"EA-Agent on {dataset}, mode {mode}, "
                     + (f"random sample of {len(sources)} test sources (seed {seed})" if sample
                        else f"all {len(sources)} test sources"),
        "label": NO_LLM_LABEL if mode == "no_llm" else f"LLM agent ({model})",
        **provenance(),
        "dataset": dataset, "mode": mode, "model": model, "run_id": run.run_id,
        "retrieval_run_id": retrieval_run_id, "sample_size": len(sources) if sample else None,
        "seed": seed if sample else None, "settings": settings.model_dump(),
        **scores, "wall_seconds": wall, "wall_seconds_per_entity": wall / max(len(sources), 1),
        "anchors": ANCHORS,
    }
    summary = {
        "bench_evaluated_links": scores["evaluated_links"], "bench_sample_size": len(sources) if sample else 0,
        "bench_seed": seed, "bench_command": result["command"], "bench_label": result["label"],
        **{f"bench_{who}_{subset}_{k}": v for who in ("agent", "retrieval")
           for subset in ("all_links", "non_exact") for k, v in scores[who][subset].items() if k != "n"},
        **{f"bench_{k}": scores[k] for k in ("tokens_per_entity", "prompt_tokens_per_entity",
                                             "completion_tokens_per_entity", "seconds_per_entity",
                                             "reflector_call_rate", "mean_path_length", "plan_fallback_rate",
                                             "aligner_fallback_rate")},
        **{f"bench_changed_{k}": v for k, v in scores["changed_vs_retrieval"].items()},
    }
    RunStore(graph).update(run.run_id, summary)
    if out is not None:
        write_results(out, result_stem(dataset, mode, sample, model, tag), result, markdown)
    return result


def markdown(result: dict[str, Any]) -> str:
    def row(label: str, s: dict[str, Any]) -> str:
        return f"| {label} | {s['hits_at_1']:.4f} | {s['hits_at_10']:.4f} | {s['mrr']:.4f} | {s['n']} |"

    c = result["changed_vs_retrieval"]
    lines = [f"# {result['benchmark']}", "", f"**{result['label']}** — model `{result['model']}`, mode "
             f"`{result['mode']}`, agent run `{result['run_id']}` over retrieval run `{result['retrieval_run_id']}`.",
             "", f"Command: `{result['command']}`", "",
             "| ranking | Hits@1 | Hits@10 | MRR | links |", "|---|---|---|---|---|",
             row("agent (final choice, then retrieval order)", result["agent"]["all_links"]),
             row("retrieval only, same sources", result["retrieval"]["all_links"]),
             row("agent, without exact-name pairs", result["agent"]["non_exact"]),
             row("retrieval only, without exact-name pairs", result["retrieval"]["non_exact"]), "",
             f"- tokens per entity: {result['tokens_per_entity']:.1f} (prompt "
             f"{result['prompt_tokens_per_entity']:.1f}, completion {result['completion_tokens_per_entity']:.1f}); "
             f"paper: {ANCHORS['EA-Agent tokens/entity (paper)']}",
             f"- seconds per entity: {result['seconds_per_entity']:.2f} (wall {result['wall_seconds']:.1f} s in all)",
             f"- reflector call rate {result['reflector_call_rate']:.3f}; mean path length "
             f"{result['mean_path_length']:.2f}; plan fallback rate {result['plan_fallback_rate']:.3f}; aligner "
             f"fallback rate {result['aligner_fallback_rate']:.3f}",
             f"- final ≠ retrieval top-1 for {c['changed']} sources: {c['right']} right, {c['wrong']} wrong "
             f"({c['broke_right_top1']} of them replaced a correct top-1)",
             f"- decided {result['decided']} of {result['evaluated_links']} sources "
             f"({result['non_exact_links']} without an exact-name pair)"]
    if result["llm_calls_by_purpose"]:
        lines += ["", "| LLM calls by purpose | calls | prompt tokens / entity | completion tokens |",
                  "|---|---|---|---|"]
        lines += [f"| {k} | {v['calls']} | {v['prompt_tokens_per_entity']:.1f} | {v['completion_tokens']} |"
                  for k, v in result["llm_calls_by_purpose"].items()]
    lines += ["", "Anchors: " + "; ".join(f"{k} {v}" for k, v in ANCHORS.items()) + ".", ""]
    return "\n".join(lines)
