"""The retrieval benchmark of entity alignment on a JAPE pair (DBP15K ZH-EN, SRPRS EN-FR): load and embed, then the
library's own pipeline (:func:`kgagents.jobs.alignment.align_task`, what ``kgagents align`` runs) on the benchmark
task — the test links' sources ranked against the test links' targets — with the train links as seeds
(``seeds="train"``) or with none (``seeds="none"``: the training links ignored, the run makes pseudo-seeds). Scored
on the test links (both candidate spaces, with and without exact-name pairs, one row per signal and per component:
pseudo-seeds, tuning, bootstrapping, one-to-one assignment); written to
``<out>/ea/<dataset>/retrieval_seeds-<train|none>[_english-names].json`` (``kgagents bench ea-retrieval
--record`` writes into the results store).

Which values a run starts from: the library defaults, chosen by the supervised run of
:data:`~kgagents.agent.alignment.settings.DEFAULTS_DATASET`. A 0-seed row of that same pair must not start from
values its own links chose: it takes ``defaults_from`` (another pair's supervised results file), and without one it
is refused.

Command::

    kgagents bench ea-retrieval [JAPE directory] [--seeds train|none] [--defaults-from FILE] [--no-multilingual]
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks import RESULTS_DIR
from benchmarks.provenance import write_results
from kgagents.agent.alignment.candidate_store import Candidate
from kgagents.agent.alignment.diagnostics import attribute_overlap, entity_names
from kgagents.agent.alignment.embedding import distinct_names
from kgagents.agent.alignment.fusion import SIGNALS, Weights
from kgagents.agent.alignment.retrieval import final_ranking, pair_task, retrieve, split_links
from kgagents.agent.alignment.settings import DEFAULTS_DATASET, TUNED_FIELDS, RetrievalSettings
from kgagents.agent.alignment.signals import PairView, Signals
from kgagents.agent.alignment.tuning import Tuning
from kgagents.embeddings import get_embedder
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.jobs.alignment import align_task, load_pair, multilingual_embedder, pair_confidence
from kgagents.metrics.calibration import reliability
from kgagents.metrics.ea import non_trivial_links, rank_scores
from kgagents.paths import data_dir
from kgagents.progress import SILENT, Stages

ANCHORS = {
    "dbp15k_zh_en": {"UDCEA (no LLM, unsupervised; DBP15K ZH-EN)": {"hits_at_1": 0.966},
                     "EA-Agent TEA retriever (DBP15K ZH-EN)": {"hits_at_1": 0.845, "hits_at_10": 0.982},
                     "EA-Agent (with LLM)": {"hits_at_1": 0.9667}, "LLM-Align (with LLM)": {"hits_at_1": 0.983}},
    "srprs_en_fr": {"EA-Agent (with LLM)": {"hits_at_1": 0.990}},
}
#: entity names embedded afresh (not stored) to measure what embedding the whole pair costs
EMBED_SAMPLE = 500


def default_directory() -> Path:
    """The pair the benchmark runs on when none is named: the shared DBP15K ZH-EN."""
    return data_dir("ea", "dbp15k_zh_en")


def results_stem(seeds: str, multilingual: bool) -> str:
    return f"retrieval_seeds-{seeds}" + ("" if multilingual else "_english-names")


def starting_settings(dataset: str, seeds: str, defaults_from: Path | None) -> tuple[RetrievalSettings, str]:
    """(the settings a run starts from, where their tuned values came from). The benchmark protocol ranks the test
    targets only; a 0-seed run of the pair that chose the library defaults must take another pair's values."""
    settings = RetrievalSettings(candidate_space="test")
    if defaults_from is None:
        if seeds == "none" and dataset == DEFAULTS_DATASET:
            raise KgAgentsError(f"the library defaults were chosen on {dataset}'s own train links: a 0-seed run of "
                                f"{dataset} needs --defaults-from another pair's supervised results file")
        return settings, f"library defaults (chosen on {DEFAULTS_DATASET})"
    chosen = json.loads(defaults_from.read_text(encoding="utf-8"))
    if chosen.get("dataset") == dataset:
        raise KgAgentsError(f"--defaults-from {defaults_from} was chosen on {dataset} itself: give another pair's")
    values = {k: v for k, v in chosen["settings"].items() if k in TUNED_FIELDS}
    return settings.model_copy(update=values), f"{defaults_from} (chosen on {chosen.get('dataset')})"


def embedding_cost(graph: Graph, kgs: tuple[str, str], multilingual: bool, seed: int = 0) -> dict[str, Any]:
    """Embed ``EMBED_SAMPLE`` random entities' names afresh with each embedder (nothing stored) and scale the time
    to the whole pair: what a first load costs, measured even when the pair's vectors are cached in the graph."""
    rows = [r for kg in kgs for r in graph.run("alignment_ea/entity_name_texts", kg=kg, vector_property="name_ml",
                                                sha_property="name_ml_sha")]
    english = [name or "" for kg in kgs for name in entity_names(graph, kg).values()]
    sample = random.Random(seed).sample(range(len(rows)), min(EMBED_SAMPLE, len(rows)))
    texts = {"english": [english[i] for i in sample]}  # the same share of the pair, not the same entities
    if multilingual:
        texts["multilingual"] = [t for i in sample for t in distinct_names(rows[i]["names"])]
    out: dict[str, Any] = {"sample_entities": len(sample), "pair_entities": len(rows)}
    for label, embedder in (("english", get_embedder()), ("multilingual", multilingual_embedder())):
        if label not in texts or embedder is None:
            continue
        started = time.perf_counter()
        embedder.embed(texts[label])
        seconds = time.perf_counter() - started
        out[label] = {"model": embedder.name, "texts": len(texts[label]), "seconds": round(seconds, 2),
                      "pair_estimate_seconds": round(seconds * len(rows) / max(len(sample), 1), 1)}
    out["pair_estimate_seconds"] = round(sum(v["pair_estimate_seconds"] for v in out.values()
                                             if isinstance(v, dict)), 1)
    return out


def benchmark(graph: Graph, directory: Path | None = None, out: Path | None = None, stages: Stages = SILENT,
              multilingual: bool = True, seeds: str = "train", defaults_from: Path | None = None) -> dict[str, Any]:
    """Run the benchmark on one JAPE pair (default :func:`default_directory`) and, when ``out`` is given, write the
    results file there; returns the JSON. ``seeds``: ``train`` (the train links are seed links, the weights and the
    bootstrap are tuned on a held-out third of them) or ``none`` (no seed links: pseudo-seeds)."""
    if seeds not in ("train", "none"):
        raise KgAgentsError(f"--seeds {seeds!r}: use train or none")
    directory = directory or default_directory()
    dataset = directory.name
    settings, prior = starting_settings(dataset, seeds, defaults_from)
    started = time.perf_counter()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    loaded = load_pair(graph, directory, settings, stages=stages, multilingual=multilingual)
    if not multilingual:  # vectors an earlier run stored must not enter this one
        settings = settings.model_copy(update={"multilingual_vector_property": "name_ml_unused"})
    kg1, kg2 = loaded.kg1, loaded.kg2
    task = pair_task(graph, dataset, settings, seeds=seeds == "train")
    stages.stage("align: read, tune, retrieve (source passes)")
    load_before = [round(x, 2) for x in os.getloadavg()]
    view = PairView(graph, kg1=kg1, kg2=kg2, settings=settings)
    tuning, run = align_task(graph, task, settings, tune_bootstrap=seeds == "train", view=view,
                             progress=stages.advance)
    load_after = [round(x, 2) for x in os.getloadavg()]
    chosen = tuning.settings
    links = task.reference
    names = {kg: entity_names(graph, kg) for kg in (kg1, kg2)}
    hard = non_trivial_links(links, names[kg1], names[kg2])
    test_targets = {t for _, t in links}
    fused = Weights.of(chosen)
    k, lam = chosen.csls_k, chosen.taken_penalty

    def scored(rows: dict[str, tuple[Weights, bool, int, float]], signals: Signals) -> dict[str, dict[str, Any]]:
        """Each row's scores over ``signals`` (both candidate spaces, all links and the non-exact ones)."""
        table: dict[str, dict[str, Any]] = {}
        for label, (weights, assign, csls_k, penalty) in rows.items():
            table[label] = {}
            for space, allowed in (("test", test_targets), ("all", None)):
                final = final_ranking(signals, weights, allowed, assign, csls_k, penalty)[2]
                ranking = {s: [t for t, _ in r] for s, r in final.items()}
                for subset, subset_links in (("all_links", links), ("non_exact", hard)):
                    table[label][f"{space}/{subset}"] = rank_scores(ranking, subset_links).model_dump()
        return table

    table = scored({
        **{s: (Weights.only(s), False, 0, 0.0) for s in SIGNALS},
        "fused": (fused, False, 0, 0.0),
        "fused + assignment, no CSLS": (fused, True, 0, lam),
        "fused + assignment, taken targets not demoted": (fused, True, k, 0.0),
        "fused + assignment": (fused, True, k, lam),
        **{f"fused + assignment - {s}": (fused.without(s), True, k, lam) for s in SIGNALS},
    }, run.signals)
    result_run: dict[str, Any] = {"run_id": run.run_id, "pseudo_seeds_per_round": run.pseudo_seeds,
                                  "assigned": len(run.assignment), "timings": run.timings,
                                  "confidence": confidence_check(tuning, run.candidates, links)}
    del run
    tuning.first_pass = None  # the ablation runs below each score and drop their own signals (memory)
    stages.stage("ablations: no bootstrap, no pseudo-seeds, no tuning (source passes)")
    plain = retrieve(graph, task=task, settings=chosen.model_copy(update={"bootstrap_rounds": 0}), view=view,
                     pseudo_seeds=tuning.structural, progress=stages.advance)
    table.update(scored({"fused, no bootstrap": (fused, False, 0, 0.0),
                         "fused, no bootstrap + assignment": (fused, True, k, lam)}, plain.signals))
    del plain
    no_pseudo = retrieve(graph, task=task, settings=chosen, view=view, progress=stages.advance)
    table.update(scored({"fused + assignment, no pseudo-seeds in the first pass": (fused, True, k, lam)},
                        no_pseudo.signals))
    del no_pseudo
    if tuning.anchors:
        unanchored = retrieve(graph, task=task, settings=chosen, view=view, pseudo_seeds=tuning.pseudo_seeds,
                              progress=stages.advance)
        table.update(scored({"fused + assignment, no outside anchors": (fused, True, k, lam)},
                            unanchored.signals))
        del unanchored
    if tuning.path in ("seeds", "pseudo_seeds"):
        untuned = retrieve(graph, task=task, settings=settings, view=view, pseudo_seeds=tuning.structural,
                           progress=stages.advance)
        table.update(scored({"fused + assignment, starting weights (no tuning)": (
            Weights.of(settings), True, settings.csls_k, settings.taken_penalty)}, untuned.signals))
        del untuned
    stages.stage("score signals, measure embedding, write results")
    result = {
        "dataset": dataset, "seeds": seeds, "seed_links": len(task.seeds), "starting_values": prior,
        "split": {"train": "seed links" if seeds == "train" else "ignored", "test": "sources, targets, scores"},
        "run_id": result_run["run_id"], "settings": chosen.stored(), "starting_settings": settings.stored(),
        "embedders": {"english": loaded.english_model, "multilingual": loaded.multilingual_model},
        "tuning": tuning.record([*links, *split_links(graph, dataset, "train")]),
        "pseudo_seeds_per_round": result_run["pseudo_seeds_per_round"],
        "assigned": result_run["assigned"], "headline": "fused + assignment",
        "confidence": result_run["confidence"],
        "test_links": len(links), "non_exact_links": len(hard),
        "target_entities": {"test": len(test_targets), "all": len(names[kg2])},
        "attribute_overlap": attribute_overlap(graph, kg1, kg2),
        "scores": table,
        "timings_s": {**{k: round(v, 2) for k, v in result_run["timings"].items()},
                      "load": round(loaded.load.seconds, 2),
                      "embed": round(loaded.embed.seconds, 2), "total": round(time.perf_counter() - started, 2)},
        "embedding": {"embedded": loaded.embed.embedded, "unchanged": loaded.embed.unchanged,
                      "seconds": round(loaded.embed.seconds, 2),
                      "fresh": embedding_cost(graph, (kg1, kg2), multilingual)},
        "anchors": ANCHORS.get(dataset, {}),
        "load_average": {"start": load_at_start, "before_align": load_before, "after_align": load_after,
                         "end": [round(x, 2) for x in os.getloadavg()]},
    }
    if out is not None:
        write_results(out, f"ea/{dataset}/{results_stem(seeds, multilingual)}", result)
    return result


def confidence_check(tuning: Tuning, candidates: Mapping[str, Sequence[Candidate]],
                     links: Sequence[tuple[str, str]]) -> dict[str, Any] | None:
    """The run's calibrated confidence (learned on the held-out seed links) checked on the test links: per band of
    the confidence of each test source's rank 1, how often it was right. None when the run had no seed links."""
    if tuning.calibration is None:
        return None
    gold = dict(links)
    scored = [(confidence, cands[0].target == gold[s]) for s, cands in candidates.items()
              if s in gold and cands and (confidence := pair_confidence(tuning.calibration, cands)) is not None]
    return {"calibration": tuning.calibration.record(), "test_links": reliability(scored)}


if __name__ == "__main__":
    with Graph() as g:
        target = Path(sys.argv[1]) if len(sys.argv) > 1 else default_directory()
        print(json.dumps(benchmark(g, target, RESULTS_DIR)["scores"]["fused + assignment"], indent=2))
