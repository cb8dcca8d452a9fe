"""``kgagents bench``: the benchmark commands (a CLI plugin: the library never imports this package).

Registered under the ``kgagents.cli`` entry-point group in pyproject.toml; every results file is written by one of
these commands, with the command line exactly as typed (:func:`benchmarks.provenance.write_results`)."""

from __future__ import annotations

import functools
import inspect
import tempfile
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.markup import escape

from benchmarks import RESULTS_DIR
from kgagents.cli.common import (
    App,
    chat_or_none,
    connected,
    console,
    input_file,
    job_settings,
    output_file,
    progress_bar,
)
from kgagents.cli.kgqa import kgqa_chat, print_summary
from kgagents.cli.tools import RELATION_REPAIR, REQUIRE_IN_TEXT, RETYPE_OBJECTS
from kgagents.errors import KgAgentsError
from kgagents.paths import REPO_ROOT
from kgagents.progress import StageDisplay

F = TypeVar("F", bound=Callable[..., Any])

def results_dir(out: Path | None, record: bool) -> Path:
    """Where a bench command writes: the results store with ``--record``, ``--out DIR``, else a new temporary
    directory it names (a run that was not asked to be recorded never changes the store)."""
    if record and out is not None:
        raise KgAgentsError("give --record (write into benchmarks/results/) or --out DIR, not both")
    if record:
        return RESULTS_DIR
    if out is not None:
        return out
    folder = Path(tempfile.mkdtemp(prefix="kgagents-bench-"))
    console.print(escape(f"results go to {folder} (add --record to write them into the results store, "
                         "benchmarks/results/)"), highlight=False)
    return folder


def _recording(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a ``--record`` flag that turns its ``--out`` into :func:`results_dir`'s choice."""
    signature = inspect.signature(fn)
    flag = inspect.Parameter("record", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--record", help="write the results file into the results store (benchmarks/results/); without "
        "it, --out DIR or a temporary directory"))

    @functools.wraps(fn)
    def run(*args: Any, record: bool = False, **kwargs: Any) -> Any:
        kwargs["out"] = results_dir(kwargs.get("out"), record)
        return fn(*args, **kwargs)

    run.__signature__ = signature.replace(parameters=[*signature.parameters.values(), flag])  # type: ignore[attr-defined]
    return run


class BenchApp(App):
    """The bench commands: every command with an ``out`` option also takes ``--record``."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        register = super().command(*args, **kwargs)

        def decorator(fn: F) -> F:
            register(_recording(fn) if "out" in inspect.signature(fn).parameters else fn)
            return fn

        return decorator


app = BenchApp(help="Benchmarks: results files (JSON) into the results store with --record, else --out DIR or a "
               "temporary directory.")


class ModelCheck(str, Enum):
    """The KGQA model checks `bench kgqa-scorer --with-model` can tune (benchmarks.kgqa_scorer.CHECKS)."""

    direct = "direct"
    relations = "relations"
    chain = "chain"
    parse = "parse"


def _results_option() -> Any:
    return typer.Option(None, "--out", help="directory for the results files (default: a temporary directory; "
                        "--record: the results store)")


def variant_name(changes: list[str]) -> str | None:
    """The results-file suffix of ``--set KEY=VALUE`` changes: sorted, so the same changes name the same file."""
    return "_".join(sorted(changes)) or None


@app.command("om")
def bench_om(
    dataset: str = typer.Argument(..., help="conference | anatomy"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline ablation"),
    pair: list[str] = typer.Option([], help="conference only: just these pairs (e.g. cmt-confof); repeatable"),
    sample: int = typer.Option(None, min=1, help="conference only: this many pairs drawn at random (seeded)"),
    seed: int = typer.Option(20, help="conference only: the seed of --sample"),
    repeat: int = typer.Option(1, min=1, help="anatomy only: match this many times (vector indexes rebuilt in "
                               "between) and record whether the pairs were identical"),
    set_: list[str] = typer.Option([], "--set", help="a matching setting changed from its default, KEY=VALUE "
                                   "(e.g. one_to_one=false); the results file is named after the changes; "
                                   "repeatable"),
    ablate: list[str] = typer.Option([], help="a boolean matching setting to switch off in an extra run of the "
                                     "same pairs (an ablation row); repeatable"),
    background: list[Path] = typer.Option([], "--background", help="anatomy only: background knowledge (bridge "
                                          "ontology, SSSOM, Alignment API); repeatable"),
    prefix_map: Path = typer.Option(None, "--prefix-map", help="anatomy only: a JSON prefix map for the "
                                    "--background ids"),
    out: Path = _results_option(),
) -> None:
    """OAEI conference (21 pairs) or anatomy: scores, cost and time into benchmarks/results/ (or --out)."""
    from benchmarks import om as om_runner

    chat = chat_or_none(no_llm)
    settings = job_settings("match", sets=set_, chat=chat).settings
    variant = variant_name(set_)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        if dataset == "conference":
            pair = pair or (om_runner.sample_pairs(sample, seed) if sample else [])
            with progress_bar(escape(f"conference pairs [{settings.mode}]"), len(pair) or 21) as advance:
                result = om_runner.conference(graph, settings, chat=chat, model=model, out=out, pairs=pair,
                                              on_pair=lambda run: advance(1), ablations=ablate, variant=variant)
            console.print(f"macro F1 {result['macro']['f1']:.4f}, micro F1 {result['micro']['f1']:.4f}")
        elif dataset == "anatomy":
            with StageDisplay(console, escape(f"anatomy [{settings.mode}]")) as stages:
                result = om_runner.anatomy(graph, settings, chat=chat, model=model, out=out, stages=stages,
                                           repeat=repeat, ablations=ablate, variant=variant,
                                           background=[input_file(b, "--background") for b in background],
                                           prefix_map=input_file(prefix_map, "--prefix-map") if prefix_map else None)
            console.print(f"F1 {result['scores']['f1']:.4f} (non-trivial {result['non_trivial']['f1']:.4f}) "
                          f"in {result['wall_seconds']} s")
        else:
            raise KgAgentsError(f"unknown dataset '{dataset}': use conference or anatomy")


@app.command("om-rules")
def bench_om_rules(
    seed: int = typer.Option(39, help="the seed of the conference tuning / reporting split"),
    rule: list[str] = typer.Option([], help="only these rules (default: every rule of benchmarks.om_rules.RULES); "
                                   "repeatable"),
    threshold: list[float] = typer.Option([], help="also run the default settings at this threshold; repeatable"),
    set_: list[str] = typer.Option([], "--set", help="a matching setting changed from its default, KEY=VALUE; "
                                   "repeatable"),
    llm: bool = typer.Option(False, "--llm", help="with the configured chat model (`kgagents llm start`); "
                             "--set mode=… says how the matcher uses it"),
    out: Path = _results_option(),
) -> None:
    """Every OM rule switched one at a time (and a threshold sweep) on the conference tuning and reporting halves
    and on our own pairs from other domains: which rules pay on tasks they were not designed on."""
    from benchmarks import om_rules

    chat = chat_or_none(not llm)
    if llm and chat is None:
        raise KgAgentsError("bench om-rules --llm needs a chat model: start one with `kgagents llm start`")
    settings = job_settings("match", sets=set_, chat=chat).settings
    unknown = sorted(set(rule) - set(om_rules.RULES))
    if unknown:
        raise KgAgentsError(f"unknown rule(s) {', '.join(unknown)}; choose among {', '.join(om_rules.RULES)}")
    todo = len(om_rules.tasks(seed)) * (1 + len(rule or om_rules.RULES) + len(threshold))
    label = settings.mode if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph, progress_bar(escape(f"OM rules [{label}]"), todo) as advance:
        only = [f"only {' '.join(rule)}"] if rule else []  # a subset's file does not replace the full run's
        variant = " ".join(filter(None, [variant_name(set_), *only])) or None
        result = om_rules.rules(graph, settings, out=out, seed=seed, rules_=rule or om_rules.RULES,
                                thresholds=threshold, variant=variant, on_pair=lambda run: advance(1), chat=chat)
    console.print(f"default: mean decision F1 {result['default']['decision_mean_f1']}")
    for row in result["rules"]:
        console.print(f"{row['rule']}={row['default']}: gain {row['gain_of_default']:+.4f} "
                      f"({'pays' if row['pays'] else 'does not pay'})")
    for row in result["thresholds"]:
        console.print(f"threshold {row['threshold']}: mean decision F1 {row['decision_mean_f1']}")
    console.print("written: " + ", ".join(result["files"]))


@app.command("om-calibrate")
def bench_om_calibrate(
    seed: int = typer.Option(39, help="the seed of the conference and anatomy splits"),
    background: list[Path] = typer.Option([], "--background", help="anatomy's background knowledge; repeatable"),
    prefix_map: Path = typer.Option(None, "--prefix-map", help="a JSON prefix map for the --background ids"),
    save: bool = typer.Option(True, help="write the learned table to kgagents/agent/matching/calibration.json"),
    set_: list[str] = typer.Option([], "--set", help="a matching setting changed from its default, KEY=VALUE; "
                                   "repeatable"),
    out: Path = _results_option(),
) -> None:
    """Learn the OM confidence table on tuning data (conference tuning half, own pairs, half of anatomy) and check
    its calibration on the held-out conference half and the other half of anatomy."""
    from benchmarks import om_calibrate, om_rules

    settings = job_settings("match", sets=set_).settings
    with connected() as graph, progress_bar(escape("OM calibration [no_llm]"), len(om_rules.tasks(seed)) + 1) as adv:
        result = om_calibrate.calibrate(graph, settings, out=out, seed=seed,
                                        background=[input_file(b, "--background") for b in background],
                                        prefix_map=input_file(prefix_map, "--prefix-map") if prefix_map else None,
                                        save=save, on_pair=lambda run: adv(1))
    for name, check in result["held_out"].items():
        console.print(f"{name}: {check['pairs']} pairs, expected calibration error "
                      f"{check['expected_calibration_error']}")
    console.print("written: " + ", ".join(result["files"]))


#: `bench om-gate`'s train pairs by default; other choices name the gate file apart
OM_GATE_TRAIN_PAIRS, OM_GATE_TRAIN_SEED = 5, 21


@app.command("om-gate")
def bench_om_gate(
    sample: int = typer.Option(OM_GATE_TRAIN_PAIRS, min=1,
                               help="train pairs: this many conference pairs not among the reported ones"),
    seed: int = typer.Option(OM_GATE_TRAIN_SEED, help="the seed of the train pairs"),
    reported_sample: int = typer.Option(5, min=1, help="the reported pairs (`bench om conference --sample`)"),
    reported_seed: int = typer.Option(20, help="the seed of the reported pairs"),
    set_: list[str] = typer.Option([], "--set", help="a matching setting changed from its default, KEY=VALUE; "
                                   "repeatable"),
    graded: bool = typer.Option(False, "--graded", help="the validator answers with its log-odds of yes; learn "
                                "the log-odds a confirmation needs with the band"),
    out: Path = _results_option(),
) -> None:
    """The gated OM validator's band, learned where the model pays on conference pairs disjoint from the reported
    ones: pass the printed settings to `bench om conference --set mode=gated --set threshold=… [--set
    validator_min_log_odds=…]`."""
    from benchmarks import om as om_runner

    chat = chat_or_none(False)
    if chat is None:
        raise KgAgentsError("bench om-gate needs a chat model: start one with `kgagents llm start`")
    settings = job_settings("match", sets=["mode=gated", *set_], chat=chat).settings
    reported = om_runner.sample_pairs(reported_sample, reported_seed)
    pairs = om_runner.train_pairs(sample, seed, reported)
    with connected() as graph, progress_bar(escape("conference train pairs [gated]"), len(pairs)) as advance:
        variant = " ".join([*([f"train{sample}"] if sample != OM_GATE_TRAIN_PAIRS else []),
                            *([f"seed{seed}"] if seed != OM_GATE_TRAIN_SEED else [])])
        result = om_runner.paid_band(graph, settings, chat=chat, model=chat.model_name, pairs=pairs,
                                     reported=reported, out=out, on_pair=lambda run: advance(1), graded=graded,
                                     variant=variant or None)
    gate = result["gate"]
    floor = f", validator_min_log_odds={result['validator_min_log_odds']}" if graded else ""
    console.print(escape(f"train pairs {', '.join(pairs)}: {gate['asked']} confirmed matches counted, "
                         f"{gate['changed_right']} right / {gate['changed_wrong']} wrong below the chosen depth; "
                         f"band {result['band']} (threshold={result['threshold']}{floor})"))
    if (check := result["verified_on_train"]) is not None:
        console.print(f"checked on the train pairs: macro F1 {check['gated_macro_f1']} with the band "
                      f"({check['llm_calls']} calls), {check['no_llm_macro_f1']} without the model: band "
                      + ("kept" if check["kept"] else "closed (the model is never asked)"))
    console.print("written: " + ", ".join(result["files"]))


@app.command("docs")
def bench_docs(check: bool = typer.Option(False, "--check", help="only report whether the pages are current")
               ) -> None:
    """Render the figures (tables, sentences between figure markers) of the README and docs/*.md from the results
    store, and its index (benchmarks/results/README.md)."""
    from benchmarks.figures import pages, render
    from benchmarks.store import index

    stale = []
    targets = [(page, render(page.read_text(encoding="utf-8"), RESULTS_DIR)) for page in pages()]
    targets.append((RESULTS_DIR / "README.md", index(RESULTS_DIR) + "\n"))
    for page, rendered in targets:
        if not page.is_file() or page.read_text(encoding="utf-8") != rendered:
            stale.append(page)
            if not check:
                page.write_text(rendered, encoding="utf-8")
    names = ", ".join(str(p.relative_to(REPO_ROOT)) for p in stale)
    if not stale:
        console.print("figures and the results index match the results store")
    elif check:
        raise KgAgentsError(f"stale: {names}; run `kgagents bench docs`")
    else:
        console.print(f"rendered from the results store: {names}")


@app.command("ea-retrieval")
def bench_ea_retrieval(directory: Path = typer.Argument(
        None, help="JAPE directory (default: shared DBP15K ZH-EN; also e.g. ../shared/data/ea/srprs_en_fr)"),
        out: Path = _results_option(),
        seeds: str = typer.Option("train", help="train: the train links are seed links (tuned on a held-out third); "
                                  "none: no seed links (the train links ignored; pseudo-seeds)"),
        defaults_from: Path = typer.Option(None, exists=True, dir_okay=False, help="start from the tuned values of "
                                           "this supervised results file of ANOTHER pair (needed for a 0-seed run of "
                                           "the pair that chose the library defaults)"),
        multilingual: bool = typer.Option(True, help="also compare every name with the multilingual encoder (e5 "
                                          "extra); --no-multilingual: English names only")) -> None:
    """EA retrieval on a JAPE pair through the `kgagents align` pipeline: Hits@1/10, MRR, ablations (no LLM) →
    <out>/ea/<dataset>/retrieval_seeds-<train|none>.json."""
    from benchmarks import ea_retrieval as ea_runner

    title = escape(f"EA retrieval benchmark on {directory or ea_runner.default_directory()}, seeds: {seeds}")
    with connected() as graph, StageDisplay(console, title) as stages:
        result = ea_runner.benchmark(graph, directory, out, stages=stages, multilingual=multilingual, seeds=seeds,
                                     defaults_from=defaults_from)
    fused = result["scores"][result["headline"]]["test/all_links"]
    tuning = result["tuning"]
    console.print(f"run {result['run_id']}: Hits@1 {fused['hits_at_1']:.4f}, Hits@10 {fused['hits_at_10']:.4f}, "
                  f"MRR {fused['mrr']:.4f} on {result['test_links']} test links; {result['seed_links']} seed links, "
                  f"{tuning['pseudo_seeds']} pseudo-seeds, tuning path {tuning['path']}; "
                  f"{result['timings_s']['end_to_end']:.1f} s after embedding")


@app.command("load")
def bench_load(
    sizes: str = typer.Option("10000,100000,1000000", help="generated KG sizes (statements) loaded both ways"),
    big: int = typer.Option(5_000_000, help="generated KG size loaded in bulk only (0: skip)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace a database that holds data"),
    work_dir: Path = typer.Option(None, exists=True, file_okay=False, help="an existing directory where generated "
                                  "KGs are written (default: the system temp)"),
    batched_sizes: str = typer.Option("1000000,10000000", help="generated KG sizes loaded in committed batches"),
    only_batched: bool = typer.Option(False, "--only-batched", help="run only the batched rows (DBP15K and "
                                                                    "--batched-sizes) → load/kgs/batched.json"),
    ceiling: int = typer.Option(None, help="generated size whose bulk row is followed by the importer-alone "
                                "ceiling row (default: --big; with --only-batched: none unless given)"),
    keep_bulk_from: Path = typer.Option(None, help="with --only-batched and no --ceiling: carry the bulk and "
                                        "ceiling rows over from this earlier results JSON (marked as such)"),
    out: Path = _results_option(),
) -> None:
    """Transactional, batched and bulk KG loads (DBP15K, anatomy, generated KGs) → load/kgs/methods.json.

    REPLACES the local server's database (bulk rows import offline)."""
    from benchmarks import load as load_bench

    report = load_bench.run(sizes=tuple(int(x) for x in sizes.split(",") if x), big=big or None,
                            batched_sizes=tuple(int(x) for x in batched_sizes.split(",") if x),
                            only_batched=only_batched, ceiling=ceiling, overwrite=overwrite, work_dir=work_dir,
                            keep_bulk_from=input_file(keep_bulk_from, "--keep-bulk-from"),
                            log=lambda msg: console.print(escape(msg)))
    for path in load_bench.write_report(report, out, "load/kgs/batched" if only_batched else "load/kgs/methods"):
        console.print(f"written {path}")


@app.command("write-ceiling")
def bench_write_ceiling(
    relationships: int = typer.Option(1_000_000, min=1, help="relationships written per run"),
    nodes: int = typer.Option(200_000, min=2, help="probe nodes they are written between"),
    out: Path = _results_option(),
) -> None:
    """The batched loader's statement query on bare relationships between existing nodes, with 1 / 2 / 3 writers
    (warm): this machine's ceiling for the loader's cheapest write → load/generated/write_ceiling.json. Writes into
    the configured server and removes its probe nodes afterwards."""
    from benchmarks import write_ceiling

    report = write_ceiling.run(nodes=nodes, relationships=relationships, log=lambda msg: console.print(escape(msg)))
    for path in write_ceiling.write_report(report, out):
        console.print(f"written {path}")


@app.command("generate-kg")
def bench_generate_kg(
    out: Path = typer.Argument(..., help="the N-Triples file to write"),
    triples: int = typer.Option(..., help="distinct wdt: statements"),
    entities: int = typer.Option(None, help="items (default: statements / 5)"),
    relations: int = typer.Option(300, help="properties"),
    skew: float = typer.Option(1.0, help="power-law exponent of entity and property ranks"),
    literal_share: float = typer.Option(0.2, help="share of statements with a literal object"),
    seed: int = typer.Option(7),
) -> None:
    """A synthetic Wikidata-like truthy dump for load benchmarks (shape: benchmarks/generate_kg.py)."""
    from benchmarks.generate_kg import generate_wikidata_nt

    shape = generate_wikidata_nt(out, triples=triples, entities=entities, relations=relations, skew=skew,
                                 literal_share=literal_share, seed=seed)
    console.print_json(data=shape.as_dict())


@app.command("engine")
def bench_engine(
    sizes: str = typer.Option("10000,100000",
                              help="synthetic scaling sizes, comma-separated (e.g. 10000,100000,1000000)"),
    single_queries: int = typer.Option(1000, help="single-client queries timed one by one"),
    directory: Path = typer.Option(None, help="JAPE pair for the real-vector rows (default: shared DBP15K ZH-EN)"),
    sources: int = typer.Option(None, help="only the first N test sources (default: all 10,500)"),
    out: Path = _results_option(),
) -> None:
    """Candidate engine: every back-end against an exact numpy top-k (candidates/engine/backends.json)."""
    from benchmarks import ea_retrieval as ea_runner
    from benchmarks import engine as engine_bench

    counts = [int(x) for x in sizes.split(",") if x.strip()]
    with connected() as graph, console.status("candidate engine benchmark…"):
        result = engine_bench.benchmark(graph, sizes=counts, single_queries=single_queries,
                                        directory=directory or ea_runner.default_directory(), out=out,
                                        max_sources=sources)
    for row in result["dbp15k_zh_en"]["all_sources"]:
        console.print(f"{row['backend']}: {row['queries_per_s']} q/s, {row['ratio_to_numpy']}× numpy, "
                      f"recall@10 {row['recall_at_10']}")


@app.command("ea-agent")
def bench_ea_agent(
    dataset: str = typer.Argument(..., help="name of a loaded JAPE pair, e.g. dbp15k_zh_en"),
    retrieval_run: str = typer.Option(..., help="run id of the candidate retrieval to start from"),
    mode: str = typer.Option("full",
                             help="full | rule_planner | no_planning | llm_only | no_selectors | gated | no_llm"),
    sample: int = typer.Option(None, min=1, help="evaluate a random sample of this many test sources (seeded)"),
    seed: int = typer.Option(7),
    tag: str = typer.Option(None, help="suffix for the result file names (e.g. to keep a before/after pair)"),
    pairs: Path = typer.Option(None, help="also write the aligned pairs as TSV here"),
    trajectories: Path = typer.Option(None, help="also write the trajectories JSONL here"),
    out: Path = _results_option(),
) -> None:
    """EA-Agent on the test sources of a retrieval run: Hits@1/10, MRR (and without exact-name pairs) next to
    retrieval alone, tokens and seconds per entity, reflector rate, path length, fallbacks."""
    from benchmarks import ea_agent as ea_agent_runner
    from kgagents.agent.alignment.export import write_pairs, write_stored_trajectories

    chat = chat_or_none(mode == "no_llm")
    with connected() as graph:
        with console.status(escape(f"EA-Agent benchmark [{mode if chat else 'no_llm'}]…")):
            result = ea_agent_runner.bench(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run, mode=mode,
                                           sample=sample, seed=seed, tag=tag, out=out)
        if pairs is not None:
            write_pairs(graph, result["run_id"], pairs)
        if trajectories is not None:
            write_stored_trajectories(graph, result["run_id"], trajectories)
    agent, retrieval = result["agent"]["all_links"], result["retrieval"]["all_links"]
    console.print(escape(f"{result['label']} — run {result['run_id']}, {result['evaluated_links']} links: "
                         f"Hits@1 {agent['hits_at_1']:.4f} (retrieval {retrieval['hits_at_1']:.4f}), "
                         f"Hits@10 {agent['hits_at_10']:.4f}, MRR {agent['mrr']:.4f}; "
                         f"{result['tokens_per_entity']:.0f} tokens/entity"))
    console.print("written: " + ", ".join(result["files"]))


@app.command("twa")
def bench_twa(out: Path = _results_option()) -> None:
    """TWA MOPs: tool catalogues of the OntoSyn / OntoMOPs / OntoSpecies T-Boxes and the slot scorer self-test."""
    from benchmarks import twa as twa_runner

    result = twa_runner.run(out=out)
    for name, t in result["tools"].items():
        console.print(f"{name}: {t['classes']} classes, {t['properties']} properties → {t['tools']} tools")
    for name, r in result["selftest"]["results"].items():
        console.print(f"scorer, {name}: micro F1 {r['micro']['f1']:.3f}, macro F1 {r['macro']['f1']:.3f}")
    console.print("written: " + ", ".join(result["files"]))


@app.command("text2kgbench")
def bench_text2kgbench(
    mode: str = typer.Option("full", help="full (extraction agent; falls back to no_llm without a model) | no_llm"),
    sample: int = typer.Option(None, min=1, help="sentences per ontology (seeded random sample; default all)"),
    seed: int = typer.Option(7),
    ontology: list[str] = typer.Option([], "--ontology", help="only these ontology ids, e.g. 1_university"),
    no_feedback: bool = typer.Option(False, "--no-feedback", help="ablation: the agent sees only 'rejected'"),
    max_repairs: int = typer.Option(None, min=0, help="repair turns per sentence (default 4)"),
    split: str = typer.Option("test", help="test (what results report) | train (for choosing prompts and design)"),
    examples: int = typer.Option(3, min=0, help="solved train sentences shown per sentence (the most similar; 3 had "
                                 "the best train F1 with the local model)"),
    workers: int = typer.Option(None, min=1, help="ontologies extracted at once (default: the LLM server's slots, "
                                "KGAGENTS_LLM_PARALLEL)"),
    relation_repair: bool = RELATION_REPAIR,
    retype_objects: bool = RETYPE_OBJECTS,
    require_in_text: bool = REQUIRE_IN_TEXT,
    check_floor: float = typer.Option(None, help="check each stated fact (one one-token call); write it when the "
                                      "log-odds of yes reach this (setting check_min_log_odds)"),
    propose_floor: float = typer.Option(None, help="propose the facts whose signature fits two typed entities; "
                                        "write one when the check's log-odds reach this (propose_min_log_odds)"),
    out: Path = _results_option(),
) -> None:
    """Text2KGBench DBpedia-WebNLG through the compiled tools: results JSON + markdown in benchmarks/results/."""
    from benchmarks.text2kgbench_report import write_report
    from kgagents.jobs import text2kgbench

    modes = {"full": "full", "llm": "full", "no_llm": "no_llm", "no-llm": "no_llm"}
    if mode not in modes:
        raise KgAgentsError(f"--mode must be full or no_llm, not {mode!r}")
    chat = chat_or_none(modes[mode] == "no_llm")
    chosen: dict[str, Any] = {
        "feedback": False if no_feedback else None, "max_repairs": max_repairs, "check_min_log_odds": check_floor,
        "propose_min_log_odds": propose_floor, "relation_repair": relation_repair, "retype_objects": retype_objects,
        "require_in_text": require_in_text}
    resolved = job_settings("extract", chat=chat, **(chosen if chat is not None else {}))
    settings = resolved.settings.model_dump(include={"mode", *resolved.changed()})
    with connected() as graph, progress_bar(escape(f"text2kgbench [{settings['mode']}]"),
                                            len(ontology) or 19) as advance:
        result = text2kgbench.run(graph, chat=chat, settings=settings, sample=sample, seed=seed,
                                  ontologies=ontology or None, split=split, examples=examples,
                                  workers=workers, on_ontology=lambda oid: advance(1))
    files = write_report(result, out)
    g = result["global"]
    console.print(escape(f"[{result['label']}] global P {g['precision']:.3f} R {g['recall']:.3f} F1 {g['f1']:.3f} "
                         f"conformance {g['onto_conf']:.3f}"))
    if result["mode"] == "no_llm":
        console.print(f"ground truth accepted by the tools: {result['ground_truth_acceptance']:.1%}; corruptions "
                      "rejected: " + ", ".join(f"{k} {v:.1%}" for k, v in result["corruption_rejection"].items()))
    console.print("written: " + ", ".join(files))


@app.command("text2kgbench-check")
def bench_text2kgbench_check(
    recording: Path = typer.Argument(..., help="results JSON of `bench text2kgbench --split train --check-floor -99 "
                                     "--propose-floor -99` (every check recorded, on train sentences)"),
    out: Path = _results_option(),
) -> None:
    """The extraction check's floors (stated facts, proposals) with the best F1 on the recorded train sentences."""
    from benchmarks.text2kgbench_check import run
    from kgagents.paths import data_dir

    result = run(input_file(recording, "RECORDING"), data_dir("extraction", "text2kgbench", "dbpedia_webnlg"), out)
    console.print(escape(f"train F1 {result['f1_without_check']} without the check, {result['f1_chosen']} with "
                         f"{result['chosen']}; written: {', '.join(result['files'])}"))


@app.command("kgqa")
def bench_kgqa(
    dataset: str = typer.Argument(..., help="metaqa | pq-2h | pq-3h | qald-onehop | sq-wikidata"),
    mode: str = typer.Option("no_llm", help="no_llm | full | no_observation | reflect_similarity | "
                             "reflect_random | reflect_generated"),
    boot: bool = typer.Option(False, "--bootstrap", help="answer with a path memory made from the KG alone "
                              "(`kgqa bootstrap`; no question of the dataset is learned)"),
    paraphrase: bool = typer.Option(False, "--paraphrase", help="with --bootstrap: the configured chat model "
                                    "paraphrases a seeded sample of path types (cached in the graph)"),
    boot_set: list[str] = typer.Option([], "--bootstrap-set", help="with --bootstrap: a bootstrap setting, "
                                       "KEY=VALUE; repeatable"),
    memory: bool = typer.Option(True, "--memory/--no-memory", help="learn a path memory from the train split "
                                "and use it, or answer zero-shot"),
    link: bool = typer.Option(False, "--link", help="questions without brackets or topic ids: topics linked from "
                              "plain text"),
    sample: int = typer.Option(None, min=1, help="a seeded random sample of this many test questions per file"),
    seed: int = typer.Option(7, help="seed of the split and of the sample"),
    workers: int = typer.Option(1, min=1, help="questions answered at once (without a chat model only)"),
    repeat: int = typer.Option(1, min=1, help="without a chat model: answer the questions this many times and "
                               "report the median questions/s (scores from the first run)"),
    relearn: bool = typer.Option(False, "--relearn", help="learn the memory again even if it holds this split"),
    confident: float = typer.Option(None, help="LLM gate: answer without the model when the best path leads by "
                                    "this much (from `bench kgqa-gate`; default: the setting's)"),
    set_: list[str] = typer.Option([], "--set", help="a KGQA setting changed from its default, KEY=VALUE; the "
                                   "results file is named after the changes; repeatable"),
    split: str = typer.Option("test", help="the split answered: test (reported), or dev where the dataset has "
                              "one (PathQuestion: to compare settings without touching the test split)"),
    out: Path = _results_option(),
) -> None:
    """KGQA benchmark: loads and prepares the KG once, learns the path memory from the train split (--memory) or
    from the KG alone (--bootstrap), answers the test (or dev) split, writes a results JSON."""
    from benchmarks import kgqa
    from kgagents.config import LLMSettings

    settings, chat = kgqa_chat(mode, mode == "no_llm", memory=memory, changes=set_)
    writer = chat_or_none(not paraphrase, LLMSettings()) if boot else None
    boot_settings = job_settings("bootstrap", sets=boot_set, chat=writer).settings if boot else None
    if paraphrase and writer is None:
        raise KgAgentsError("--paraphrase needs a chat model: start one with `kgagents llm start`")
    if confident is not None:
        settings = settings.model_copy(update={"confident": confident})
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph, progress_bar(escape(f"{dataset} [{label}]")) as advance:
        result = kgqa.bench(graph, dataset, chat=chat, settings=settings, memory=memory, link=link, sample=sample,
                            seed=seed, workers=workers, relearn=relearn, out=out, on_question=lambda r: advance(1),
                            variant=variant_name(set_), part=split, boot=boot_settings, paraphrase=writer,
                            repeat=repeat)
    print_summary(result, label)
    console.print("written: " + ", ".join(result["files"]))


@app.command("kgqa-gate")
def bench_kgqa_gate(
    dataset: str = typer.Argument(..., help="metaqa | pq-2h | pq-3h"),
    memory: bool = typer.Option(True, "--memory/--no-memory", help="calibrate with the path memory (leave-one-out) "
                                "or zero-shot"),
    sample: int = typer.Option(300, min=1, help="seeded sample of train questions"),
    seed: int = typer.Option(7),
    weak: float = typer.Option(0.6, min=0.0, max=1.0, help="the model is asked below the largest confidence under "
                               "which at most this share of the no-LLM answers are right"),
    workers: int = typer.Option(2, min=1),
    set_: list[str] = typer.Option([], "--set", help="a KGQA setting changed from its default, KEY=VALUE (to "
                                   "compare settings on the train split); repeatable"),
    with_model: bool = typer.Option(False, "--with-model", help="also ask the configured model (mode gated) on the "
                                    "train questions below the gate and keep the gate only where it fixed more "
                                    "answers than it broke"),
    out: Path = _results_option(),
) -> None:
    """The KGQA LLM gate's threshold, learned on the train split: pass it to `bench kgqa --confident`. Without
    --with-model no model is called. Its file also holds the no-LLM Hits@1 on those train questions (leave-one-out
    with the memory): the split on which settings are compared (`--set`), never the reported test split."""
    from benchmarks import kgqa

    settings = job_settings("kgqa", sets=set_, mode="no_llm", memory=memory).settings
    chat = _model_if(with_model, settings.temperature)
    with connected() as graph, progress_bar(escape(f"{dataset} gate")) as advance:
        result = kgqa.calibrate(graph, dataset, settings=settings, sample=sample, seed=seed, weak=weak,
                                workers=workers, out=out, on_question=lambda r: advance(1),
                                variant=variant_name(set_), chat=chat)
    weak = result["paid"]["weak_gate"] if "paid" in result else result["confident"]
    console.print(escape(f"{dataset}: cheap gate confident = {weak} (answers above it right "
                         f"{result['accuracy_above_threshold']}, below {result['accuracy_below_threshold']}; "
                         f"{result['share_answered_without_model']} answered without the model)"))
    if "paid" in result:
        p = result["paid"]
        console.print(escape(f"with {p['model']} on the {p['asked']} train questions below it: Hits@1 "
                             f"{p['hits_at_1_model']} vs {p['hits_at_1_no_llm']} without ({p['changed_right']} fixed, "
                             f"{p['changed_wrong']} broken); paid gate: confident = {p['gate']['threshold']}"))
    console.print("written: " + ", ".join(result["files"]))


def _model_if(with_model: bool, temperature: float) -> Any:
    """The configured chat model when ``--with-model`` is given (an error when none is), else None."""
    from kgagents.config import LLMSettings

    chat = chat_or_none(not with_model, LLMSettings(temperature=temperature))
    if with_model and chat is None:
        raise KgAgentsError("--with-model needs a chat model: start one with `kgagents llm start` or set "
                            "KGAGENTS_LLM_BASE_URL")
    return chat


@app.command("kgqa-scorer")
def bench_kgqa_scorer(
    with_model: bool = typer.Option(False, "--with-model", help="instead: the weights of one of the model's checks "
                                    "(--check), chosen on the same train questions"),
    check: ModelCheck = typer.Option(ModelCheck.direct, "--check", help="with --with-model: 'direct' (direct_weight, "
                                     "direct_center), 'relations' (relation_weight, relation_center) or 'chain' "
                                     "(chain_weight, chain_collapsed, chain_partial); 'parse' (parse_weight) needs "
                                     "no model"),
    out: Path = _results_option(),
) -> None:
    """The zero-shot KGQA scorer's weights (e5_weight, length_penalty, length_words, type_weight), chosen on train
    questions of MetaQA, PQ-2H and PQ-3H and checked on other train questions; no model is called. With
    --with-model: the weights of the model's direct, relation or chain check, on the same questions."""
    from benchmarks import kgqa_scorer
    from kgagents.agent.kgqa.settings import KGQASettings

    chat = _model_if(with_model and check is not ModelCheck.parse, KGQASettings().temperature)
    with connected() as graph:
        result = (kgqa_scorer.search_model(graph, chat, check.value, out=out)
                  if chat is not None or check is ModelCheck.parse else kgqa_scorer.search(graph, out=out))
    chosen = result["chosen"]
    summary = (f"pass {result['settings']} with this model" if "settings" in result else
               f"the settings' defaults {'are' if result['default_is_chosen'] else 'are NOT'} these")
    console.print(escape(f"chosen {chosen['weights']} (objective {chosen['objective']}; before "
                         f"{result['before']['objective']}); {summary}"))
    console.print("written: " + ", ".join(result["files"]))


@app.command("demo")
def bench_demo(
    no_llm: bool = typer.Option(False, "--no-llm", help="run every job's no-LLM ablation even if a model is set"),
    out: Path = _results_option(),
) -> None:
    """The demo (every job on its small real slice) with its summary written as demo/slices/<model>.json, which the
    README's demo figure is rendered from."""
    import tempfile
    import time

    from benchmarks.demo import write_summary
    from kgagents.jobs.demo import run_demo
    from kgagents.paths import data_dir

    chat = chat_or_none(no_llm)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    started = time.perf_counter()
    with connected() as graph, tempfile.TemporaryDirectory(prefix="kgagents-demo-") as workdir:
        summaries = run_demo(graph, chat, data_dir(), Path(workdir),
                             on_job=lambda name: console.print(f"[bold]{name}[/bold] …"))
    console.print(f"summary written to {write_summary(summaries, model, time.perf_counter() - started, out)}")


MODELS_HELP = "embedded model(s): qwen2.5-coder-1.5b | qwen2.5-coder-0.5b | smollm2-135m; repeatable"


@app.command("llm")
def bench_llm(
    model: list[str] = typer.Option(["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"], help=MODELS_HELP),
    threads: int = typer.Option(None, min=1, help="server threads (default: the free cores)"),
    slots: int = typer.Option(1, min=1, help="server slots: this many ways of asking run at once"),
    port: int = typer.Option(8799, help="port for the benchmark's own llama-server"),
    base_url: str = typer.Option(None, help="ask this running OpenAI-compatible server instead (one --model)"),
    out: Path = _results_option(),
) -> None:
    """Yes/no and pick-one format-following of the embedded models, free text against constrained JSON."""
    from benchmarks import llm_local

    output_file(out / "llm" / "local" / "tasks.json", "--out", create_folder=True)
    result = llm_local.run(model, out=out, threads=threads, slots=slots, port=port, base_url=base_url,
                           on_variant=lambda what: console.print(escape(what)))
    for m in result["models"]:
        for v in m["variants"]:
            console.print(escape(f"{m['model']} {v['variant']}: accuracy {v['accuracy']:.2f}, "
                                 f"first reply parsed {v['parse_rate_first_reply']:.2f}, {v['seconds']} s"))
    console.print("written: " + ", ".join(result["files"]))


@app.command("llm-speed")
def bench_llm_speed(
    model: list[str] = typer.Option(["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"], help=MODELS_HELP),
    threads: list[int] = typer.Option([1, 2], help="server threads to try; repeatable"),
    slots: list[int] = typer.Option([1, 2], help="server slots to try; repeatable"),
    busy: list[int] = typer.Option([0, 1], help="CPU-bound busy loops competing during the measure; repeatable"),
    port: int = typer.Option(8798, help="port for the benchmark's own llama-server"),
    tries: int = typer.Option(2, min=1, help="tries per measure; the best counts"),
    out: Path = _results_option(),
) -> None:
    """Prompt and generation tokens/s of the embedded models by threads, slots and competing load."""
    from benchmarks import llm_speed

    output_file(out / "llm_speed.json", "--out")
    result = llm_speed.run(model, threads, slots, busy, out=out, port=port, tries=tries,
                           on_row=lambda row: console.print(escape(str(row))))
    console.print("written: " + ", ".join(result["files"]))
