"""The retrieval benchmark of the EA agent on a JAPE pair (DBP15K ZH-EN, SRPRS EN-FR): load, embed, tune on
TRAIN links only, retrieve for the TEST links, score (both candidate spaces, with and without exact-name pairs,
one row per signal and per component: bootstrapping, one-to-one assignment), and write
``<out>/ea/<dataset>/retrieval.json`` (``kgagents bench ea-retrieval --record`` writes into the results store).

Command::

    kgagents bench ea-retrieval [JAPE directory]     (or: python -m benchmarks.ea_retrieval [directory])
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import RESULTS_DIR
from benchmarks.provenance import write_results
from kgagents.agent.alignment.bootstrap import bootstrap
from kgagents.agent.alignment.diagnostics import attribute_overlap, entity_names
from kgagents.agent.alignment.fusion import SIGNALS, Weights
from kgagents.agent.alignment.gate import gate_on_validation, held_out
from kgagents.agent.alignment.retrieval import collect_signals, final_ranking, retrieve, split_links
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairView, Signals, copy_signals
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.alignment import load_pair
from kgagents.metrics.ea import RankScores, non_trivial_links, rank_scores
from kgagents.paths import data_dir
from kgagents.progress import SILENT, Stages

#: weights searched on the validation links (name weight fixed at 1); multilingual only when embedded
GRID = {"multilingual": (0.0, 0.5, 1.0, 2.0, 4.0), "exact": (0.0, 0.15, 0.3, 0.5),
        "structure": (0.0, 0.3, 0.6, 1.0, 1.5), "attributes": (0.0, 0.1, 0.2, 0.4)}
SHARES = (0.5, 0.7, 0.85, 1.0)
#: taken penalties tried on the validation links after the bootstrap is chosen
PENALTIES = (0.0, 0.25, 0.5, 1.0, 2.0)
ROUNDS = (1, 2)
ANCHORS = {
    "dbp15k_zh_en": {"UDCEA (no LLM, unsupervised; DBP15K ZH-EN)": {"hits_at_1": 0.966},
                     "EA-Agent TEA retriever (DBP15K ZH-EN)": {"hits_at_1": 0.845, "hits_at_10": 0.982},
                     "EA-Agent (with LLM)": {"hits_at_1": 0.9667}, "LLM-Align (with LLM)": {"hits_at_1": 0.983}},
    "srprs_en_fr": {"EA-Agent (with LLM)": {"hits_at_1": 0.990}},
}


def evaluate(signals: Signals, weights: Weights, links: list[tuple[str, str]], allowed: set[str] | None,
             assignment: bool, csls_k: int = 0, taken_penalty: float = 0.0) -> RankScores:
    """Hits@1/10 and MRR of the fused ranking (with the one-to-one assignment's target first when asked)."""
    final = final_ranking(signals, weights, allowed, assignment, csls_k, taken_penalty)[2]
    return rank_scores({s: [t for t, _ in r] for s, r in final.items()}, links)


class FeatureTable:
    """The validation pairs as arrays (source index, gold flag, one column per signal), so a weight grid is scored
    with one matrix product per point instead of re-ranking dictionaries."""

    def __init__(self, signals: Signals, links: list[tuple[str, str]], allowed: set[str] | None) -> None:
        gold = dict(links)
        self.n = len(links)
        src, is_gold, rows = [], [], []
        for i, s in enumerate(sorted(gold)):
            for t, p in signals.get(s, {}).items():
                if allowed is None or t in allowed:
                    src.append(i)
                    is_gold.append(t == gold[s])
                    rows.append([p.name, p.multilingual, p.exact, p.structure / (1.0 + p.structure), p.attributes])
        self.src = np.array(src, dtype=np.int64)
        self.gold = np.array(is_gold, dtype=bool)
        self.x = np.array(rows, dtype=np.float64).reshape(-1, len(SIGNALS))

    def hits_at_1(self, weights: Weights) -> float:
        score = self.x @ np.array([getattr(weights, s) for s in SIGNALS])
        order = np.lexsort((-score, self.src))
        first = order[np.r_[True, self.src[order][1:] != self.src[order][:-1]]] if len(order) else order
        return float(self.gold[first].sum()) / self.n if self.n else 0.0


def tune(view: PairView, graph: Graph, dataset: str, settings: RetrievalSettings, seed: int = 0) -> dict[str, Any]:
    """Choose the fusion weights and the bootstrap threshold/rounds on the TRAIN links only.

    Validation protocol mimicking the test condition: a seeded third of the train links is held out
    (validation), the other two thirds are the seeds; the sources aligned are the validation sources plus
    the test sources (their gold targets are never read), ranked against the validation and test targets.
    Stage 1: grid :data:`GRID` (name weight fixed at 1) without bootstrapping, best validation Hits@1.
    Stage 2: with those weights, every (share, rounds) of :data:`SHARES` × :data:`ROUNDS`, best
    validation Hits@1 after the one-to-one assignment (then MRR).
    Stage 3: with that bootstrap, the taken penalty of :data:`PENALTIES` with the best validation Hits@10 (then MRR;
    it does not move rank 1).
    """
    split = held_out(graph, dataset, seed)
    validation, seeds, sources, allowed = split.validation, split.seeds, split.sources, split.targets
    signals, collector = collect_signals(view, sources=sources, seeds=seeds, settings=settings)
    table = FeatureTable(signals, validation, allowed)
    grid = {k: (v if k != "multilingual" or view.has_multilingual else (0.0,)) for k, v in GRID.items()}
    best: tuple[float, Weights] | None = None
    for values in itertools.product(*grid.values()):
        weights = Weights(name=1.0, **dict(zip(grid, values, strict=True)))
        hits = table.hits_at_1(weights)
        if best is None or hits > best[0]:
            best = (hits, weights)
    assert best is not None
    weights = best[1]
    trials: list[dict[str, Any]] = []
    for share in SHARES:
        boot = copy_signals(signals)
        for rounds in range(1, max(ROUNDS) + 1):
            pseudo = bootstrap(collector, boot, sources=sources, seeds=seeds, weights=weights, allowed=allowed,
                               rounds=1, share=share)
            if rounds in ROUNDS:
                trials.append({"share": share, "rounds": rounds, "pseudo_seeds": pseudo[0],
                               "scores": evaluate(boot, weights, validation, allowed, True, settings.csls_k,
                                                  settings.taken_penalty).model_dump()})
    chosen = max(trials, key=lambda t: (t["scores"]["hits_at_1"], t["scores"]["mrr"]))
    boot = copy_signals(signals)
    bootstrap(collector, boot, sources=sources, seeds=seeds, weights=weights, allowed=allowed,
              rounds=chosen["rounds"], share=chosen["share"])
    penalties: list[dict[str, Any]] = [
        {"taken_penalty": lam,
         "scores": evaluate(boot, weights, validation, allowed, True, settings.csls_k, lam).model_dump()}
        for lam in PENALTIES]
    penalty: float = max(penalties, key=lambda t: (t["scores"]["hits_at_10"], t["scores"]["mrr"]))["taken_penalty"]
    gate = gate_on_validation(final_ranking(boot, weights, allowed, True, settings.csls_k, penalty)[2], validation)
    return {"weights": weights.__dict__, "share": chosen["share"], "rounds": chosen["rounds"],
            "taken_penalty": penalty, "taken_penalty_trials": penalties,
            "validation_links": len(validation), "seed_links": len(seeds),
            "validation_hits_at_1_without_bootstrap": best[0],
            "scores_without_bootstrap_with_assignment": evaluate(signals, weights, validation, allowed,
                                                                 True).model_dump(),
            "bootstrap_trials": trials, "grid": grid, "split_seed": seed, "gate": gate}


def default_directory() -> Path:
    """The pair the benchmark runs on when none is named: the shared DBP15K ZH-EN."""
    return data_dir("ea", "dbp15k_zh_en")


def benchmark(graph: Graph, directory: Path | None = None, out: Path | None = None,
              stages: Stages = SILENT, multilingual: bool = True) -> dict[str, Any]:
    """Run the whole benchmark on one JAPE pair (default :func:`default_directory`) and, when ``out`` is given,
    write the result files there; returns the JSON. ``stages`` hears when each stage starts and how many items
    (rows, texts, sources) it has done. ``multilingual`` False leaves the name-variant vectors out (English names
    only; the results file is then ``ea_retrieval_<dataset>_english-names``)."""
    directory = directory or default_directory()
    dataset = directory.name
    started = time.perf_counter()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    settings = RetrievalSettings()
    loaded = load_pair(graph, directory, settings, stages=stages, multilingual=multilingual)
    if not multilingual:  # vectors an earlier run stored must not enter this one
        settings = settings.model_copy(update={"multilingual_vector_property": "name_ml_unused"})
    load, embed, kg1, kg2 = loaded.load, loaded.embed, loaded.kg1, loaded.kg2
    stages.stage("tune weights and bootstrap on the train links")
    tuning_started = time.perf_counter()
    tuned = tune(PairView(graph, kg1=kg1, kg2=kg2, settings=settings), graph, dataset, settings)
    tuning_seconds = time.perf_counter() - tuning_started
    w = tuned["weights"]
    settings = settings.model_copy(update={
        **{f"w_{k}": v for k, v in w.items()}, "bootstrap_share": tuned["share"],
        "bootstrap_rounds": tuned["rounds"], "taken_penalty": tuned["taken_penalty"]})
    stages.stage("retrieve without bootstrapping (source passes)")
    plain = retrieve(graph, dataset=dataset, settings=settings.model_copy(update={"bootstrap_rounds": 0}),
                     progress=stages.advance)
    stages.stage("retrieve with bootstrapping and assignment (source passes)")
    run = retrieve(graph, dataset=dataset, settings=settings, progress=stages.advance)
    RunStore(graph).update(run.run_id, {"gate_margin": tuned["gate"]["margin"]})
    stages.stage("score signals and write results")
    links = split_links(graph, dataset)
    names = {kg: entity_names(graph, kg) for kg in (kg1, kg2)}
    hard = non_trivial_links(links, names[kg1], names[kg2])
    test_targets = {t for _, t in links}
    spaces: dict[str, set[str] | None] = {"test": test_targets, "all": None}
    fused = Weights.of(settings)
    k, lam = settings.csls_k, settings.taken_penalty
    ablation: dict[str, tuple[Weights, Signals, bool, int, float]] = {
        **{s: (Weights.only(s), run.signals, False, 0, 0.0) for s in SIGNALS},
        "fused, no bootstrap": (fused, plain.signals, False, 0, 0.0),
        "fused, no bootstrap + assignment": (fused, plain.signals, True, k, lam),
        "fused": (fused, run.signals, False, 0, 0.0),
        "fused + assignment, no CSLS": (fused, run.signals, True, 0, lam),
        "fused + assignment, taken targets not demoted": (fused, run.signals, True, k, 0.0),
        "fused + assignment": (fused, run.signals, True, k, lam),
        **{f"fused + assignment - {s}": (fused.without(s), run.signals, True, k, lam) for s in SIGNALS},
    }
    table: dict[str, dict[str, Any]] = {}
    for label, (weights, signals, assign, csls_k, penalty) in ablation.items():
        table[label] = {}
        for space, allowed in spaces.items():
            final = final_ranking(signals, weights, allowed, assign, csls_k, penalty)[2]
            ranking = {s: [t for t, _ in r] for s, r in final.items()}
            for subset, subset_links in (("all_links", links), ("non_exact", hard)):
                table[label][f"{space}/{subset}"] = rank_scores(ranking, subset_links).model_dump()
    result = {
        "dataset": dataset,
        "run_id": run.run_id, "run_id_without_bootstrap": plain.run_id, "settings": settings.model_dump(),
        "embedders": embed_models(loaded), "tuned_on_train": tuned, "pseudo_seeds_per_round": run.pseudo_seeds,
        "assigned": len(run.assignment), "headline": "fused + assignment",
        "test_links": len(links), "non_exact_links": len(hard),
        "target_entities": {"test": len(test_targets), "all": len(names[kg2])},
        "attribute_overlap": attribute_overlap(graph, kg1, kg2),
        "scores": table, "timings_s": {**run.timings, "load": load.seconds, "embed": embed.seconds,
                                       "tuning": tuning_seconds,
                                       "retrieval_without_bootstrap": plain.timings["retrieval"],
                                       "total": time.perf_counter() - started},
        "anchors": ANCHORS.get(dataset, {}),
        "load_average": {"start": load_at_start, "end": [round(x, 2) for x in os.getloadavg()]},
    }
    if out is not None:
        write_results(out, f"ea/{dataset}/retrieval" + ("" if multilingual else "_english-names"), result, markdown)
    return result


def embed_models(loaded: Any) -> dict[str, str | None]:
    return {"english": loaded.english_model, "multilingual": loaded.multilingual_model}


def markdown(result: dict[str, Any]) -> str:
    tuned = result["tuned_on_train"]
    lines = [f"# EA candidate retrieval — {result['dataset']}", "",
             f"Command: `{result['command']}` (commit {result['git_commit']})", "",
             f"{result['test_links']} test links ({result['non_exact_links']} without an exact-name pair); "
             f"targets ranked: test targets ({result['target_entities']['test']}) or all target entities "
             f"({result['target_entities']['all']}). Name embedders: {result['embedders']}. "
             f"Tuned on the train links only ({tuned['seed_links']} seeds, "
             f"{tuned['validation_links']} held out): weights {tuned['weights']}, bootstrap share "
             f"{tuned['share']}, {tuned['rounds']} round(s), taken penalty {tuned['taken_penalty']}; pseudo-seeds "
             "per round on test: "
             f"{result['pseudo_seeds_per_round']}; one-to-one assignment: {result['assigned']} sources assigned.", "",
             "| signals | test: H@1 | H@10 | MRR | test, non-exact: H@1 | H@10 | MRR | all: H@1 | H@10 | MRR |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for label, cells in result["scores"].items():
        row = [f"**{label}**" if label == result["headline"] else label]
        for key in ("test/all_links", "test/non_exact", "all/all_links"):
            c = cells[key]
            row += [f"{c['hits_at_1']:.4f}", f"{c['hits_at_10']:.4f}", f"{c['mrr']:.4f}"]
        lines.append("| " + " | ".join(row) + " |")
    t = result["timings_s"]
    anchors = "; ".join(f"{k}: " + ", ".join(f"{m} {v}" for m, v in a.items()) for k, a in result["anchors"].items())
    lines += ["", "Single-signal rows and \"- X\" rows re-rank the final (bootstrapped) candidate pool; "
              "\"+ assignment\" puts each source's target of the global one-to-one assignment first and ranks "
              f"the rest with taken penalty {result['settings']['taken_penalty']} (targets assigned to other sources "
              "move down; \"taken targets not demoted\": 0).",
              f"Anchors: {anchors or 'none'}.", "",
              f"Retrieval for all test sources {t['retrieval']:.1f} s (read {t['read']:.1f}, names {t['names']:.1f}, "
              f"structure {t['structure']:.1f}, scoring {t['score_pairs']:.1f}, bootstrap {t['bootstrap']:.1f}, "
              f"assignment {t['assignment']:.1f}); without bootstrap {t['retrieval_without_bootstrap']:.1f} s; "
              f"store {t['store']:.1f} s; load {t['load']:.1f} s; embedding {t['embed']:.1f} s; tuning "
              f"{t['tuning']:.1f} s; total {t['total']:.1f} s.",
              f"Load average (1, 5, 15 min) at start {result['load_average']['start']}, at end "
              f"{result['load_average']['end']} (2 cores: above 2 the timings are slowed by other jobs).",
              f"Attribute names: {result['attribute_overlap']}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    with Graph() as g:
        target = Path(sys.argv[1]) if len(sys.argv) > 1 else default_directory()
        print(json.dumps(benchmark(g, target, RESULTS_DIR)["scores"]["fused + assignment"], indent=2))
