"""The KGQA page's figures (docs/kgqa.md): each memory side by side — none, bootstrapped from the KG alone
(templates, and the model's paraphrases), learned from labelled train questions — no LLM and with the local model,
on the same held-out questions, with throughput and the machine's load; and what the bootstraps cost.

Rows whose results file does not exist say "not run" and name the command that would write it (the figure never
invents a number). Registered in :data:`benchmarks.figures.FIGURES` on import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.figures import figure, load, model_checks

MODEL = "qwen2.5-coder-1.5b"
#: the mode a run with the model takes by default (kgagents.llm.models.MODEL_SETTINGS: a model check with the LLM
#: gate closed, what paid on held-out questions), so the model rows are what a user with the model gets
MODEL_MODE = "gated"
#: (dataset, title, the no-LLM rows' sample suffix, the model rows' sample suffix: smaller, since the model costs
#: about 1.5 s a question on 2 cores)
DATASETS = (
    ("metaqa", "MetaQA, held-out half of dev (no dev question in the bootstrap rows)", "_sample300", "_sample50"),
    ("pq-2h", "PathQuestion PQ-2H, test 10 %", "", "_sample100"),
    ("pq-3h", "PathQuestion PQ-3H, test 10 %", "", "_sample100"),
    ("sq-wikidata", "SimpleQuestions-Wikidata on CoDEx-M, valid (fact in the KG)", "", ""),
)
#: (results-file kind, what the memory is, the `bench kgqa` options that make it)
MEMORIES = (
    ("zeroshot", "none (zero-shot)", "--no-memory"),
    ("bootstrap", "bootstrap: templates", "--no-memory --bootstrap"),
    (f"bootstrap-{MODEL}", "bootstrap: templates + model paraphrases", "--no-memory --bootstrap --paraphrase"),
    ("memory", "labelled (train split)", "--memory"),
)


def _stem(name: str, kind: str, sample: str, model: bool) -> str:
    return f"kgqa/{name}/{kind}{sample}_" + (f"{MODEL_MODE}_{MODEL}" if model else "no-llm")


def _found(results: Path, stem: str) -> dict[str, Any] | None:
    return load(results, stem) if (results / f"{stem}.json").is_file() else None


def _hits(r: dict[str, Any]) -> str:
    hops = r["hits_at_1_by_hops"]
    by = f" ({' / '.join(f'{100 * v:.1f}' for v in hops.values())})" if len(hops) > 1 else ""
    return f"{100 * r['hits_at_1']:.1f}{by}"


def _command(name: str, options: str, sample: str, model: bool) -> str:
    size = f" --sample {sample.removeprefix('_sample')}" if sample else ""
    return (f"`kgagents bench kgqa {name} {options}{size}" + (f" --mode {MODEL_MODE}" if model else " --workers 2")
            + " --record`")


def _embedded(r: dict[str, Any]) -> str:
    """How many path texts a run had to embed (new to the KG's stored ones, calibration included): the encoders'
    time is in its questions/s, so a first run on a KG is slower than the next (runs before this field: nothing)."""
    texts = r.get("path_texts")
    return f", {texts['embedded']:,} / {texts['stored'] + texts['embedded']:,}" if texts else ""


def _learned(r: dict[str, Any]) -> str:
    """The scorer values a run took from its KG's bootstrap (kgqa/scorer_calibration.py; runs before it: '')."""
    found = r.get("scorer_calibration")
    return "".join(f", {k.replace('_', ' ')} {v} learned" for k, v in found["values"].items()) if found else ""


def _calibration(b: dict[str, Any]) -> str:
    """A bootstrap's scorer calibration: the penalty, on how many held-out questions, default → chosen objective."""
    c = b.get("scorer_calibration")
    if not c:
        return "–"
    chosen = next(r for r in c["grid"] if r["length_penalty"] == c["values"]["length_penalty"])
    kept = " (default kept)" if chosen["length_penalty"] == c["default"]["length_penalty"] else ""
    return (f"{chosen['length_penalty']}{kept}: {c['default']['objective']:.1f} → {chosen['objective']:.1f} "
            f"(± {chosen['gain_standard_error']:.1f}) on {c['questions']}")


@figure("kgqa-side-by-side")
def side_by_side(results: Path) -> str:
    """Hits@1 (by hops) per dataset and memory, no LLM and with the local model on the same questions."""
    rows = ["| data | memory | questions | no LLM: Hits@1 (by hops) | with the local model: Hits@1, and no LLM on "
            "the same questions | memory examples (labelled / bootstrap) | no LLM: questions/s (2 workers), "
            "load avg[, path texts the run embedded / the KG's stored after it] |", "|---|---|---|---|---|---|---|"]
    missing = []
    for name, title, sample, model_sample in DATASETS:
        for kind, label, options in MEMORIES:
            plain = _found(results, _stem(name, kind, sample, False))
            with_model = _found(results, _stem(name, kind, model_sample, True))
            twin = _found(results, _stem(name, kind, model_sample, False))
            if plain is None:
                missing.append(_command(name, options, sample, False))
            if with_model is None:
                missing.append(_command(name, options, model_sample, True))
            cell = "not run"
            if with_model is not None:
                same = f"; no LLM {_hits(twin)}" if twin is not None else "; no LLM on these: not run"
                cell = (f"{_hits(with_model)} on {with_model['questions']}{same} "
                        f"({model_checks(with_model)}, {with_model['llm_calls_per_question']:.1f} calls, "
                        f"{with_model['seconds_per_question']:.1f} s / question)")
            if plain is None:
                rows.append(f"| {title} | {label} | – | not run | {cell} | – | – |")
                continue
            by_source = plain.get("memory_examples_by_source") or {}
            examples = (f"{by_source.get('labelled', 0):,} / {by_source.get('bootstrap', 0):,}" if by_source
                        else f"{plain['memory_examples']:,}")
            rows.append(f"| {title} | {label}{_learned(plain)} | {plain['questions']:,} | **{_hits(plain)}** | "
                        f"{cell} | {examples} | "
                        f"{plain['questions_per_second']:.1f}, {plain['load_average_before'][0]:.1f}"
                        f"{_embedded(plain)} |")
    note = ["", "Each row's file is `benchmarks/results/kgqa/<data>/<memory>[_sample<N>]_<no-llm | "
            f"{MODEL_MODE}_{MODEL}>.json` (the model in its default mode, `--mode {MODEL_MODE}`, with the LLM "
            "gate closed; each cell names the model check its run made) and records the command that wrote it, "
            "the split, the memory and the load average."]
    if missing:
        note.append("Not run yet: " + "; ".join(missing) + ".")
    return "\n".join(rows + note)


@figure("kgqa-bootstrap-cost")
def bootstrap_cost(results: Path) -> str:
    """What each bootstrap took: path types, questions, model calls and seconds (from the rows' memory records)."""
    rows = ["| data | bootstrap | path types (found) | template questions | model paraphrases (path types) | "
            "model calls, seconds | examples written | length penalty learned: held-out Hits@1 averaged over hops, "
            "default → chosen (± its gain's standard error) on N questions | seconds in all |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name, title, sample, _ in DATASETS:
        for kind, label, _options in MEMORIES[1:3]:
            r = _found(results, _stem(name, kind, sample, False))
            if r is None:
                continue
            b = r["memory"]["bootstrap"]
            calls = f"{b['model_calls']} calls, {b['model_seconds']:.0f} s" + (
                f" ({b['paraphrases_cached']} path types from the cache)" if b["paraphrases_cached"] else "")
            rows.append(f"| {title} | {label} | {b['path_types_used']} ({b['path_types_found']}) | "
                        f"{b['template_questions']:,} | {b['paraphrases']} ({b['paraphrased_path_types']}) | "
                        f"{calls if b['model'] else '–'} | {b['examples']:,} | {_calibration(b)} | "
                        f"{b['seconds']:.0f} |")
    return "\n".join(rows)


#: model rows also run on a larger sample than the table's (dataset, memory kind, sample suffix): the table's 50 a
#: hop can miss a target by one question, so the same row on more questions says how close it is
LARGER = (("metaqa", "bootstrap", "_sample100"),)


@figure("kgqa-model-larger")
def model_larger(results: Path) -> str:
    """The model rows of :data:`LARGER`, each next to no LLM on the same questions and the table's smaller sample."""
    rows = ["| data | memory | questions | with the local model: Hits@1 (by hops) | no LLM on the same questions | "
            "calls, s / question | the table's sample: with the model / no LLM |", "|---|---|---|---|---|---|---|"]
    titles = {name: title for name, title, *_ in DATASETS}
    labels = {kind: label for kind, label, _ in MEMORIES}
    smaller = {name: model_sample for name, _, _, model_sample in DATASETS}
    for name, kind, sample in LARGER:
        r = _found(results, _stem(name, kind, sample, True))
        twin = _found(results, _stem(name, kind, sample, False))
        if r is None or twin is None:
            rows.append(f"| {titles[name]} | {labels[kind]} | – | not run | not run | – | – |")
            continue
        small = _found(results, _stem(name, kind, smaller[name], True))
        small_twin = _found(results, _stem(name, kind, smaller[name], False))
        before = f"{_hits(small)} / {_hits(small_twin)} on {small['questions']}" if small and small_twin else "–"
        rows.append(f"| {titles[name]} | {labels[kind]} | {r['questions']} | **{_hits(r)}** ({model_checks(r)}) | "
                    f"{_hits(twin)} | {r['llm_calls_per_question']:.1f}, {r['seconds_per_question']:.1f} | "
                    f"{before} |")
    return "\n".join(rows)
