"""``kgagents align`` (entity alignment of two loaded KGs, end to end) and ``kgagents ea export``."""

from __future__ import annotations

import random
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import (
    App,
    chat_or_none,
    config_option,
    connected,
    console,
    input_file,
    job_settings,
    output_file,
    set_option,
)
from kgagents.cli.output import emit_json, json_option
from kgagents.errors import KgAgentsError

app = App(help="Entity alignment: export stored EA-Agent runs.")
#: commands of the top level
commands = App()

_MODES = ("gated (the model only for sources retrieval is unsure of, below the gate learned on held-out seed links "
          "or pseudo-seeds) | full | rule_planner | no_planning | llm_only | no_selectors | no_llm")


def align_settings(changes: list[str], mode: str | None, config: Path | None, chat: Any) -> tuple[Any, Any]:
    """(retrieval settings, agent settings) of one run (:mod:`kgagents.settings`, jobs ``retrieval`` and
    ``align``): each ``--set`` text goes to the job that has its key; ``chat`` None runs without a model."""
    from kgagents.agent.alignment.settings import RetrievalSettings

    retrieval_keys = set(RetrievalSettings.model_fields) - {"mode"}
    ours = [c for c in changes if c.partition("=")[0].strip() in retrieval_keys]
    retrieval = job_settings("retrieval", sets=ours, config=config).settings
    agent = job_settings("align", sets=[c for c in changes if c not in ours], config=config, chat=chat,
                         mode=mode).settings
    return retrieval, agent


def _links(graph: Any, path: Path | None, option: str, kg1: str, kg2: str) -> list[tuple[str, str]] | None:
    """The pairs of ``path`` (None when not given), checked against the two KGs (one error naming the line)."""
    if path is None:
        return None
    from kgagents.agent.alignment.retrieval import kg_entities
    from kgagents.loaders.pairs import check_pairs, read_pairs, resolve_ids

    sources, targets = set(kg_entities(graph, kg1)), set(kg_entities(graph, kg2))
    pairs = resolve_ids(read_pairs(path), sources, targets)
    check_pairs(path, pairs, sources, targets, kg1=kg1, kg2=kg2)
    return list(dict.fromkeys((p.source, p.target) for p in pairs))


@commands.command("align")
def align_cmd(
    source: str = typer.Argument(..., help="a loaded pair (e.g. dbp15k_zh_en), or the first of two loaded KGs"),
    target: str = typer.Argument(None, help="the second KG, when SOURCE is a KG"),
    seeds: Path = typer.Option(None, help="seed links: TSV of source-id<TAB>target-id (default: a loaded pair's "
                               "train split; none for two KGs)"),
    no_seeds: bool = typer.Option(False, "--no-seeds", help="use no seed links at all, not even a pair's train "
                                  "split (the run makes pseudo-seeds)"),
    seed_share: float = typer.Option(None, min=0.0, max=1.0, help="take this share of --reference (seeded by "
                                     "--seed) as seed links; the rest scores the run"),
    reference: Path = typer.Option(None, help="links to score the run against: TSV of pairs or an OAEI alignment "
                                   "file (default: a loaded pair's test split)"),
    out: Path = typer.Option(None, help="write every decided pair here: .tsv (source, target, score, assigned, "
                             "decided_by), .json (with the run's summary) or .sssom.tsv (SSSOM, owl:sameAs rows)"),
    format_: str = typer.Option(None, "--format", help="--out's format: tsv | json | sssom; default: told by its "
                                "name (.json, .sssom.tsv, else tsv)"),
    name: str = typer.Option(None, help="name of the (:Alignment) written (default: the retrieval run id)"),
    mode: str = typer.Option(None, help=_MODES + " (default: the model's measured best, else no_llm)"),
    no_llm: bool = typer.Option(False, "--no-llm", help="retrieval only, even when a model is configured"),
    set_: list[str] = set_option("align", "w_structure=1.5"),
    config: Path = config_option(),
    as_json: bool = json_option(),
    show: int = typer.Option(10, min=0, help="pairs printed (best scores first); --out has them all"),
    seed: int = typer.Option(7, help="seed of --seed-share and of --sample"),
    retrieval_run: str = typer.Option(None, help="skip retrieval: run the EA-Agent over this stored retrieval run's "
                                      "candidates (SOURCE must be a loaded pair)"),
    sample: int = typer.Option(None, min=1, help="with --retrieval-run: a seeded sample of this many test sources"),
    trajectories: Path = typer.Option(None, help="write the EA-Agent's (query, path, reward, rewritten path) JSONL "
                                      "here"),
    pairs: Path = typer.Option(None, hidden=True, help="with --retrieval-run: the agent's pairs as TSV (as --out)"),
) -> None:
    """Align two loaded KGs — every entity of the first with one of the second — by names, structure and a
    global one-to-one assignment; with no seed links the run makes pseudo-seeds and tunes on them. Writes an
    (:Alignment) with [:ALIGNED] links; the EA-Agent decides where retrieval is unsure when a model is configured."""
    output_file(out, "--out")
    format_ = pairs_format(out or pairs, format_)
    output_file(pairs, "--pairs")
    output_file(trajectories, "--trajectories")
    input_file(seeds, "--seeds")
    input_file(reference, "--reference")
    if seeds is not None and (no_seeds or seed_share is not None):
        raise KgAgentsError("give seed links one way: --seeds FILE, --seed-share R (of --reference) or --no-seeds")
    if seed_share is not None and reference is None:
        raise KgAgentsError("--seed-share takes its seeds from --reference FILE: give one")
    align_settings(set_, mode, config, None)  # a setting that is wrong is refused before a model is looked for
    chat = chat_or_none(no_llm or mode == "no_llm")
    retrieval_settings, agent_settings = align_settings(set_, mode, config, chat)
    if retrieval_run is not None:
        _agent_only(source, retrieval_run, agent_settings, chat, sample, seed, out or pairs, trajectories,
                    as_sssom=format_ == "sssom")
        return
    from kgagents.agent.alignment.aligned import write_pairs_file
    from kgagents.agent.alignment.retrieval import pair_kgs
    from kgagents.jobs.alignment import align_kgs

    with connected() as graph:
        dataset = source if target is None else None
        kg1, kg2 = pair_kgs(graph, source) if target is None else (source, target)
        seed_links = _links(graph, seeds, "--seeds", kg1, kg2)
        ref_links = _links(graph, reference, "--reference", kg1, kg2)
        if seed_share is not None and ref_links is not None:
            shuffled = sorted(ref_links)
            random.Random(seed).shuffle(shuffled)
            cut = round(seed_share * len(shuffled))
            seed_links, ref_links = shuffled[:cut], shuffled[cut:]
        status = f"aligning {kg1} → {kg2} [{agent_settings.mode}]…"
        with console.status(escape(status)) if not as_json else nullcontext():
            result = align_kgs(graph, chat, kg1=kg1, kg2=kg2, dataset=dataset,
                               seeds={} if no_seeds else (dict(seed_links) if seed_links is not None else None),
                               reference=ref_links, settings=retrieval_settings, agent_settings=agent_settings,
                               name=name)
        if out is not None and format_ == "sssom":
            result.write_sssom(graph, out)
    summary = result.summary()
    if out is not None and format_ != "sssom":
        write_pairs_file(out, result.pairs, summary, as_json=format_ == "json")
    if as_json:
        return emit_json({**summary, "out": out, "pairs": result.pairs})
    _print_result(summary, result.pairs, show, out)


def pairs_format(out: Path | None, format_: str | None) -> str:
    """``--format`` checked, or (not given) told by the file's name: ``.json``, ``.sssom.tsv``, else TSV."""
    from kgagents.loaders.sssom import sssom_named

    if format_ is None:
        name = out.name.lower() if out is not None else ""
        return "json" if name.endswith(".json") else "sssom" if sssom_named(name) else "tsv"
    if format_ not in ("tsv", "json", "sssom"):
        raise KgAgentsError(f"--format {format_!r}: use tsv, json or sssom (SSSOM TSV)")
    return format_


def _print_result(summary: dict[str, Any], pairs: list[Any], show: int, out: Path | None) -> None:
    tuning = summary["tuning"]
    how = {"seeds": f"tuned on {tuning['validation_links']} held-out seed links",
           "pseudo_seeds": f"tuned on {tuning['validation_links']} held-out pseudo-seeds",
           "defaults": "default weights (too few seed links and pseudo-seeds to tune on)",
           "off": "the given weights (tuning=off)"}[tuning["path"]]
    precision = (f", {tuning['pseudo_seed_precision']:.3f} of them right by the reference"
                 if "pseudo_seed_precision" in tuning else "")
    console.print(escape(f"{summary['kg1']} → {summary['kg2']}: {summary['pairs']:,} pairs for "
                         f"{summary['sources']:,} sources; {summary['seed_links']:,} seed links, "
                         f"{tuning['pseudo_seeds']:,} pseudo-seeds{precision}; {how}"))
    weights = ", ".join(f"{k} {v:g}" for k, v in tuning["weights"].items())
    console.print(escape(f"weights: {weights}"))
    confident = [p.confidence for p in pairs if p.confidence is not None]
    if "calibration" in tuning:
        console.print(f"confidence calibrated on {tuning['calibration']['links']:,} held-out seed links: "
                      f"{sum(c >= 0.9 for c in confident):,} pairs at 0.9 or more, "
                      f"{sum(c < 0.5 for c in confident):,} below 0.5")
    elif tuning["path"] == "off":
        console.print("no confidence: with tuning=off no seed links are held out to calibrate it on")
    else:
        least = summary["settings"].get("min_seed_links")
        console.print(escape(f"no confidence: {summary['seed_links']:,} seed links, fewer than min_seed_links "
                             f"({least}) to hold some out and calibrate it on; the scores only rank "
                             "(--set min_seed_links=N lowers the bar)"))
    if show:
        table = Table(title=f"best {min(show, len(pairs))} of {len(pairs):,} pairs")
        columns = ("source", "target", "score", "confidence")[: 4 if confident else 3]
        for column in columns:
            table.add_column(column, overflow="fold")
        for p in sorted(pairs, key=lambda p: -p.score)[:show]:
            cells = (escape(p.source), escape(p.target), f"{p.score:.3f}",
                     "" if p.confidence is None else f"{p.confidence:.3f}")
            table.add_row(*cells[: len(columns)])
        console.print(table)
    scores = summary["scores"]
    if scores:
        console.print(f"against {scores['n']:,} reference links: Hits@1 {scores['hits_at_1']:.4f}, Hits@10 "
                      f"{scores['hits_at_10']:.4f}, MRR {scores['mrr']:.4f}; decided pairs right "
                      f"{scores['pairs_hits_at_1']:.4f}")
        if "confidence_reliability" in scores:
            console.print(f"confidence against them: expected calibration error "
                          f"{scores['confidence_reliability']['expected_calibration_error']:.4f}")
    t = summary["timings_s"]
    console.print(f"{t.get('end_to_end', 0):.1f} s after embedding (embedding {t.get('embed', 0):.1f} s); "
                  f"(:Alignment {{name: '{escape(summary['alignment'])}'}}) written"
                  + (f"; all pairs in {escape(str(out))}" if out else ""))


def _agent_only(dataset: str, retrieval_run: str, settings: Any, chat: Any, sample: int | None, seed: int,
                pairs: Path | None, trajectories: Path | None, *, as_sssom: bool) -> None:
    """The EA-Agent over the candidates of a stored retrieval run of a loaded pair."""
    from kgagents.agent.alignment.export import write_pairs
    from kgagents.jobs.alignment import align

    with connected() as graph:
        model = chat.model_name if chat is not None else "no-llm"
        with console.status(escape(f"aligning [{settings.mode if chat else 'no_llm'}, {model}]…")):
            result = align(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run, settings=settings,
                           sample=sample, seed=seed, trajectories_path=trajectories).result
        if pairs is not None:
            console.print(f"{write_pairs(graph, result.run_id, pairs, as_sssom=as_sssom)} pairs written to {pairs}")
    console.print(result.model_dump_json(indent=2, exclude={"trajectories"}))


@app.command("export")
def ea_export(
    run_id: str = typer.Argument(..., help="id of a stored EA-Agent run, or the name of an entity alignment "
                                 "`kgagents align` stored (its pairs only)"),
    pairs: Path = typer.Option(None, help="TSV of aligned pairs (source, target, score, path); a .sssom.tsv name: "
                               "SSSOM (owl:sameAs rows)"),
    trajectories: Path = typer.Option(None, help="JSONL of (query, path, reward, rewritten path)"),
    llm_rewrite: bool = typer.Option(False, help="rewrite each path with the configured LLM (the reward-guided "
                                     "rewriting prompt); without an LLM the stored rule rewrite is kept"),
) -> None:
    """Export a STORED EA-Agent run from Neo4j (SAME_AS + AlignTrace), or the pairs of a stored (:Alignment) of
    `kgagents align`, without rerunning it."""
    from kgagents.agent.alignment.export import write_pairs, write_stored_trajectories
    from kgagents.agent.alignment.rewriter import LLMPathRewriter

    if pairs is None and trajectories is None:
        raise KgAgentsError("nothing to export: give --pairs FILE and/or --trajectories FILE")
    output_file(pairs, "--pairs")
    output_file(trajectories, "--trajectories")
    chat = chat_or_none(False) if llm_rewrite and trajectories is not None else None
    with connected() as graph:
        if pairs is not None:
            console.print(f"{write_pairs(graph, run_id, pairs)} pairs written to {pairs}")
        if trajectories is not None:
            rewriter = LLMPathRewriter(chat) if chat is not None else None
            n = write_stored_trajectories(graph, run_id, trajectories, rewriter)
            how = f"paths rewritten by {chat.model_name}" if chat is not None else "rule-rewritten paths"
            console.print(f"{n} trajectories written to {trajectories} ({how})")
