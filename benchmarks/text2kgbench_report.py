"""Write a Text2KGBench run as ``benchmarks/results/text2kgbench_<mode>.json`` and a markdown table."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.provenance import file_slug, write_results
from kgagents.agent.extraction.settings import CHECK_FLOORS, ExtractionSettings

#: the on/off settings a results file is named for when a run changes them
SWITCHES = ("relation_repair", "retype_objects", "require_in_text")


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def file_stem(result: dict[str, Any]) -> str:
    split = "" if result.get("split", "test") == "test" else f"_{result['split']}"
    if result["mode"] == "no_llm":
        return f"extraction/text2kgbench/no-llm{split}"
    model = re.sub(r"[^A-Za-z0-9.-]+", "-", result["model"]).strip("-").lower()
    suffix = "" if result["constraint_feedback"] else "_no-feedback"
    shown = result.get("examples_per_sentence", 1)
    examples = "" if shown == 1 else f"_examples-{shown}"
    switched = "".join(f"_{key.replace('_', '-')}-{str(value).lower()}" for key in SWITCHES
                         if (value := result["agent_settings"].get(key)) is not None
                         and value != ExtractionSettings.model_fields[key].default)
    floors = "".join(f"_{name}-{file_slug(str(result['agent_settings'][key]))}" for name, key in CHECK_FLOORS
                     if result["agent_settings"].get(key) is not None)
    return f"extraction/text2kgbench/llm_{model}{suffix}{examples}{switched}{floors}{split}"


def write_report(result: dict[str, Any], out: Path) -> list[str]:
    """Both files (provenance stamped by write_results); returns their paths."""
    return [str(p) for p in write_results(out, file_stem(result), result, markdown)]


def markdown(result: dict[str, Any]) -> str:
    """The human-readable report (what README figures are copied from)."""
    m = result["machine"]
    lines = [f"# Text2KGBench DBpedia-WebNLG — {result['label']}", "",
             f"Command: `{result['command']}`  ", f"Commit: `{result['git_commit']}`  ",
             f"Data: `{result['data']}`, split {result['split']} ({result['split_note']})  ",
             f"Model: {result['model']}  ",
             f"Wall time {result['wall_seconds']} s on {m['cores']} cores, {result.get('workers', 1)} ontologies at "
             f"once; load average at the end {result['load_average_at_end']} (a machine shared with other jobs: "
             "timings are noisy).", ""]
    lines += _no_llm(result) if result["mode"] == "no_llm" else _llm(result)
    return "\n".join(lines) + "\n"


def _models(result: dict[str, Any]) -> list[str]:
    """The published baselines the data directory has (none when its baseline_metrics/ files are absent)."""
    return sorted(result["baselines"], reverse=True)


def _baseline_cells(result: dict[str, Any], oid: str, metric: str) -> list[str]:
    return [_f(result["baselines"][m].get(oid, {}).get(metric)) for m in _models(result)]


def learned_quoting(g: dict[str, float]) -> bool:
    """Whether a run's scores were taken in WebNLG's quotes learned from train (runs before that: as stored)."""
    return "f1_as_stored" in g


def as_stored(g: dict[str, float]) -> float:
    """A run's F1 of the output as stored, without WebNLG's quotes (runs before the learned quoting: their F1)."""
    return g["f1_as_stored"] if learned_quoting(g) else g["f1"]


def quoting(g: dict[str, float]) -> str:
    """How the scored triples were written: WebNLG's quotes learned from train, or as stored (older runs)."""
    if not learned_quoting(g):
        return "objects scored as stored, without WebNLG's quotes (a run before the format was learned)"
    return (f"objects of relations whose train triples are mostly quoted are written in quotes, WebNLG's format "
            f"learned from train (F1 of the output as stored, without them: {as_stored(g):.3f})")


def _no_llm(result: dict[str, Any]) -> list[str]:
    g, gt = result["global"], result["global_ground_truth_itself"]
    models = _models(result)
    lines = [
        "**no_llm**: no extraction happens. The extraction agent feeds each test sentence's ground-truth triples "
        "through the tools compiled from its ontology (entities created first, typed by the relations they take "
        "part in), and three synthetic corruptions of each triple are fed about the same entities."
        + (" The " + " / ".join(models) + " columns are the published LLM results, for reference only." if models
           else " (No published baselines in the data directory.)"), "",
        f"- ground-truth triples accepted by the tools: **{result['ground_truth_acceptance']:.1%}**",
        "- corruptions rejected: " + ", ".join(f"{k.replace('_', ' ')} **{v:.1%}**"
                                                for k, v in result["corruption_rejection"].items()),
        f"- benchmark metrics of what the graph holds (global mean over ontologies): P {g['precision']:.3f}, "
        f"R {g['recall']:.3f}, F1 {g['f1']:.3f}, ontology conformance {g['onto_conf']:.3f}, subject / relation / "
        f"object hallucination {g['sub_halluc']:.3f} / {g['rel_halluc']:.3f} / {g['obj_halluc']:.3f}; F1 "
        f"{g['f1_ignoring_quotes']:.3f} when WebNLG's quotes around literals are ignored (a diagnostic, not the "
        "benchmark's definition: the tools store a literal's value without the quotes, the benchmark compares "
        f"strings with them); {quoting(g)}",
        f"- the same metrics on the ground truth itself (scorer calibration): F1 {gt['f1']:.3f}, conformance "
        f"{gt['onto_conf']:.3f}, subject / object hallucination {gt['sub_halluc']:.3f} / {gt['obj_halluc']:.3f} "
        "(the benchmark stems an underscored entity such as `AWH_Engineering_College` as one word, so ground-truth "
        "entities count as 'hallucinated')",
        f"- {result['mean_tools_per_ontology']} tools per ontology on average", "",
        "| ontology | sent. | GT triples | accepted | rejected (by reason) | F1 via tools (quotes ignored) | conf. | "
        "corruptions caught: outside / swapped / other signature |" + "".join(f" {m} F1 / conf. |" for m in models),
        "|---|---|---|---|---|---|---|---|" + "---|" * len(models),
    ]
    for oid, r in result["per_ontology"].items():
        s = r["scores_through_tools"]
        reasons = ", ".join(f"{k} {v}" for k, v in r["rejected_by_type"].items()) or "–"
        caught = " / ".join(f"{c['rejected']}/{c['fed']}" for c in r["corruptions"].values())
        cells = "".join(f" {f} / {c} |" for f, c in zip(_baseline_cells(result, oid, "f1"),
                                                       _baseline_cells(result, oid, "onto_conf"), strict=True))
        lines.append(f"| {oid} | {r['sentences']} | {r['ground_truth_triples']} | {r['accepted']} | {reasons} | "
                     f"{s['f1']:.2f} ({s['f1_ignoring_quotes']:.2f}) | {s['onto_conf']:.2f} | {caught} |{cells}")
    lines += ["", "Rejection examples (first three per reason and ontology) are in the JSON file."]
    return lines


def _llm(result: dict[str, Any]) -> list[str]:
    g, a = result["global"], result["agent_settings"]
    models = _models(result)
    lines = [
        f"The extraction agent ({result['model']}, constraint feedback "
        f"{'on' if result['constraint_feedback'] else 'off'}) read each sampled test sentence and wrote only "
        "through the compiled tools — entities typed first, then facts with the ontology's relation signatures, "
        "then repairs of refused facts; the A-Box it left is scored with the benchmark's definitions over the "
        f"sampled sentences ({result['sample_per_ontology'] or 'all'} per ontology, seed {result['seed']}). "
        f"Agent settings: {', '.join(f'{k}={v}' for k, v in a.items())}.", "",
        f"Global (mean over ontologies): P {g['precision']:.3f}, R {g['recall']:.3f}, **F1 {g['f1']:.3f}**, "
        f"**conformance {g['onto_conf']:.3f}**, subject / relation / object hallucination {g['sub_halluc']:.3f} / "
        f"{g['rel_halluc']:.3f} / {g['obj_halluc']:.3f}; F1 ignoring WebNLG's literal quotes (diagnostic) "
        f"{g['f1_ignoring_quotes']:.3f}; {quoting(g)}. On the same sentences, no_llm (their ground truth fed "
        "through the same tools, the most any agent writing through them can reach): "
        f"F1 {result['global_no_llm']['f1']:.3f}.", "",
        "| ontology | sent. | tool calls | refused | repairs | P | R | F1 | conf. | sub. / obj. halluc. | s / sent. |"
        + "".join(f" {m} F1 |" for m in models),
        "|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(models),
    ]
    for oid, r in result["per_ontology"].items():
        s = r["scores"]
        cells = "".join(f" {c} |" for c in _baseline_cells(result, oid, "f1"))
        lines.append(f"| {oid} | {r['sentences']} | {r['tool_calls']} | {r['rejected_calls']} | {r['repairs']} | "
                     f"{s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f} | {s['onto_conf']:.2f} | "
                     f"{s['sub_halluc']:.2f} / {s['obj_halluc']:.2f} | {r['seconds_per_sentence']} |{cells}")
    calls: Counter[str] = Counter()
    unusable: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for r in result["per_ontology"].values():
        calls.update(r["llm_calls_by_step"])
        unusable.update(r["unparsed_by_step"])
        refused.update(r["rejected_by_type"])
    lines += ["", "Model calls by step (unusable replies): "
              + ", ".join(f"{step} {n} ({unusable.get(step, 0)})" for step, n in calls.items())
              + "; refused tool calls by reason: "
              + (", ".join(f"{k} {v}" for k, v in refused.most_common()) or "none") + "."]
    if models:
        published = ", ".join(f"{m} {_f(result['baselines'][m].get('global', {}).get('f1'))}" for m in models)
        lines += ["", f"Published global F1 (all test sentences, 13B models): {published}."]
    return lines
