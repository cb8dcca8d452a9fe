"""``kgagents match``: Agent-OM between two ontologies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import (
    App,
    chat_or_none,
    checkpointer,
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
from kgagents.progress import MATCHING_STAGES, StageDisplay, matching_updates

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

@commands.command("match")
def match_cmd(
    source: str = typer.Argument(..., help="source ontology: a file to load, or the name of a loaded ontology"),
    target: str = typer.Argument(..., help="target ontology: a file to load, or the name of a loaded ontology"),
    context: str = typer.Option(None, help="domain context given to the LLM (default: derived from the "
                                "ontologies' own title, description and main concepts)"),
    out: Path = typer.Option(None, help="write the alignment to this file (--format: Alignment API RDF/XML or "
                             "SSSOM TSV)"),
    format_: str = typer.Option(None, "--format", help="--out's format: rdf (Alignment API RDF/XML, the OAEI "
                                "format) | sssom (SSSOM TSV); default: sssom for a .tsv file, else rdf"),
    background: list[Path] = typer.Option([], "--background", help="background knowledge: a bridge ontology (OWL, "
                                          "OBO), an SSSOM TSV or an Alignment API file relating the ontologies' "
                                          "classes to each other or to a mediator; repeatable"),
    prefix_map: Path = typer.Option(None, "--prefix-map", help="JSON prefix map (prefix: URI prefix, or curies "
                                    "extended prefix map records with prefix_synonyms) for --background ids"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline ablation: no LLM at all"),
    threshold: float = typer.Option(None, min=-1.0, max=1.0, help="cosine cut-off T per channel (default 0.90)"),
    top_k: int = typer.Option(None, min=1, help="candidates per channel k (default 3)"),
    reference: Path = typer.Option(None, help="reference alignment (Alignment API RDF/XML or SSSOM TSV): print "
                                   "P/R/F1"),
    checkpoint: Path = typer.Option(None, help="SQLite checkpoint file: an interrupted run resumes from it"),
    set_: list[str] = set_option("match", "one_to_one=false"),
    config: Path = config_option(),
    source_name: str = typer.Option(None, help="name to load the source file under (default: its file stem)"),
    target_name: str = typer.Option(None, help="name to load the target file under (default: its file stem)"),
    show: int = typer.Option(20, min=0, help="matches printed, most confident first (--out or --json: all of them)"),
    as_json: bool = json_option(),
) -> None:
    """Agent-OM ontology matching between two ontologies, in Neo4j; prints the matches it found."""
    from kgagents.jobs.matching import match_pair
    from kgagents.loaders.background import read_background
    from kgagents.loaders.prefixes import read_prefix_map
    from kgagents.loaders.reference import check_reference_in_graph
    from kgagents.loaders.sssom import read_alignment_file

    format_ = alignment_format(out, format_)
    output_file(out, "--out")
    output_file(checkpoint, "--checkpoint")
    expected = read_alignment_file(input_file(reference, "--reference")) if reference is not None else None
    prefixes = read_prefix_map(input_file(prefix_map, "--prefix-map")) if prefix_map is not None else []
    for path in background:  # every file parsed before anything is written: a malformed one stops the command here
        read_background(input_file(path, "--background"), prefixes)
    chat = chat_or_none(no_llm)
    settings = job_settings("match", sets=set_, config=config, chat=chat, threshold=threshold, top_k=top_k,
                            context=context).settings
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        names = [_ontology_argument(graph, arg, name) for arg, name in ((source, source_name), (target, target_name))]
        if note := _language_note(graph, names, settings.multilingual):
            console.print(note, style="yellow", markup=False)
        title = escape(f"matching {names[0]} → {names[1]} [{settings.mode}, {model}]")
        with StageDisplay(console, title) as stages, checkpointer(checkpoint) as saver:
            stages.stage(MATCHING_STAGES[0])
            run = match_pair(graph, names[0], names[1], settings, chat=chat, reference=reference,
                             checkpointer=saver, on_update=matching_updates(stages), background=background,
                             prefixes=prefixes)
        if run.background is not None:
            _print_background(run.background, names)
        matches = graph.run("matching/run_match_list", run_id=run.run_id)
        console.print(escape(f"run {run.run_id}: {len(run.pairs)} matches [{settings.mode}, model: {model}] "
                             f"in {run.seconds:.1f}s, {run.llm_calls} LLM calls"))
        if not as_json:
            _print_matches(matches, show)
        if run.result is not None and (skipped := run.result.properties.get("llm_synonyms_skipped")):
            console.print(f"llm_synonyms skipped: {skipped} unmatched entities to ask {model} for other names, over "
                          f"llm_synonyms_max_asked={settings.llm_synonyms_max_asked} (one call each); "
                          f"--set llm_synonyms_max_asked={skipped} asks them all", style="yellow", markup=False)
        if run.scores is not None:
            s = run.scores
            console.print(f"P={s.precision:.4f} R={s.recall:.4f} F1={s.f1:.4f} (tp={s.tp} fp={s.fp} fn={s.fn})")
            assert expected is not None
            for warning in check_reference_in_graph(graph, expected, names).warnings():
                console.print(f"[yellow]reference:[/yellow] {escape(warning)}")
        if out is not None:
            _write_alignment(graph, run.run_id, names[0], names[1], out, format_)
        console.print(escape(f"query them: MATCH (s)-[m:MATCHES {{run_id: '{run.run_id}'}}]->(t) "
                             "RETURN coalesce(s.label, s.name), coalesce(t.label, t.name), m.confidence"))
    if as_json:
        emit_json({"run_id": run.run_id, "source": names[0], "target": names[1], "mode": settings.mode,
                   "model": chat.model_name if chat is not None else None, "seconds": run.seconds,
                   "llm_calls": run.llm_calls, "scores": run.scores, "out": out, "matches": matches})


def alignment_format(out: Path | None, format_: str | None) -> str:
    """``--format`` checked, or (not given) told by ``--out``'s suffix: ``.tsv`` is SSSOM, anything else RDF."""
    if format_ is None:
        return "sssom" if out is not None and out.suffix.lower() == ".tsv" else "rdf"
    if format_ not in ("rdf", "sssom"):
        raise KgAgentsError(f"--format {format_!r}: use rdf (Alignment API RDF/XML) or sssom (SSSOM TSV)")
    return format_


def _write_alignment(graph: Any, run_id: str, source: str, target: str, out: Path, format_: str) -> None:
    from kgagents.agent.matching.store import export_alignment, export_sssom

    if format_ == "sssom":
        count = export_sssom(graph, run_id, source, target, out)
    else:
        count = len(export_alignment(graph, run_id, source, target, out).cells)
    console.print(escape(f"alignment written to {out} ({count} pairs, "
                         f"{'SSSOM TSV' if format_ == 'sssom' else 'Alignment API RDF/XML'})"))


@commands.command("export")
def export_cmd(
    run_id: str = typer.Argument(..., help="id of a stored matching run (or the start of one), e.g. from "
                                 "`kgagents stats`"),
    out: Path = typer.Option(..., help="the file to write"),
    format_: str = typer.Option(None, "--format", help="rdf (Alignment API RDF/XML, the OAEI format) | sssom "
                                "(SSSOM TSV); default: sssom for a .tsv file, else rdf"),
) -> None:
    """Write a stored matching run's alignment to a file (Alignment API RDF/XML or SSSOM TSV) without rerunning
    it: the pairs and confidences the graph holds for that run."""
    from kgagents.report.jobs import find_run

    format_ = alignment_format(out, format_)
    output_file(out, "--out")
    with connected() as graph:
        run = find_run(graph, run_id)
        if run.get("job") != "matching":
            hint = (" (an entity alignment: `kgagents ea export NAME --pairs FILE`, SSSOM for a .sssom.tsv name)"
                    if run.get("job") in ("ea-agent", "ea-retrieval") else "")
            raise KgAgentsError(f"run {run['id']} is a {run.get('job') or 'unknown'} run, not a matching run"
                                f"{hint}; `kgagents stats` lists the latest runs. Nothing was written.")
        if run.get("status") != "finished":
            console.print(escape(f"run {run['id']} has status {run.get('status')}: its pairs may be partial"),
                          style="yellow")
        _write_alignment(graph, str(run["id"]), str(run["source"]), str(run["target"]), out, format_)


def _print_matches(matches: list[dict[str, Any]], show: int) -> None:
    """The ``show`` most confident matches as a three-column table (labels, confidence), URIs left to --out/--json:
    the one confidence the graph, the RDF and SSSOM files and the report carry, so a user thresholds one number."""
    if not matches or show == 0:
        return
    table = Table(title=f"matches (the {min(show, len(matches))} most confident of {len(matches)})",
                  title_justify="left")
    table.add_column("source", overflow="fold")
    table.add_column("target", overflow="fold")
    table.add_column("conf", justify="right")
    for m in matches[:show]:
        table.add_row(escape(str(m["source_label"])), escape(str(m["target_label"])), f"{_confidence(m):.2f}")
    console.print(table)
    console.print("conf: the calibrated confidence in [0, 1], as stored (m.confidence) and exported" + (
        f"; … and {len(matches) - show} more: --show {len(matches)}, --out FILE or --json for all"
        if len(matches) > show else ""))


def _confidence(match: dict[str, Any]) -> float:
    """A match's confidence; a run stored before confidences existed shows its cosine (else its score)."""
    for key in ("confidence", "similarity", "score"):
        if match.get(key) is not None:
            return float(match[key])
    return 0.0


def _print_background(load: Any, names: Sequence[str]) -> None:
    """What each background file tied (by the identity rule), and a warning when the background ties no class of
    one of the two ontologies: no pair can then go through it, and it changes nothing."""
    for f in load.files:
        tied = ", ".join(f"{f.classes_tied.get(o, 0)} of {o}" for o in names)
        rules = ", ".join(f"{n} by {rule}" for rule, n in sorted(f.by_rule.items())) or "none"
        console.print(escape(f"background {Path(f.file).name} ({f.kind}, {f.statements} statements): ties {tied} "
                             f"(identifiers tied: {rules}); {f.mediators} mediators"))
    for o in load.untied(names):
        console.print(f"the background ties no class of '{o}', so it adds nothing to this run: {load.hint(o)}.",
                      style="yellow", markup=False)


def _language_note(graph: Any, names: Sequence[str], multilingual: str) -> str | None:
    """What the run does about labels in two languages (setting ``multilingual``): the default English model
    compares a German and an English name poorly (on a small German / English pair of our own, 1 of 7 classes
    matched with it, 6 of 7 with multilingual-e5)."""
    from kgagents.agent.matching.entities import languages_apart

    found = languages_apart(graph, names[0], names[1])
    if found is None or multilingual == "on":
        return None
    labelled = f"'{names[0]}' is labelled mostly in '{found[0]}', '{names[1]}' in '{found[1]}'"
    if multilingual == "auto":
        return f"{labelled}: the channels use the multilingual embedding model (multilingual-e5-small)."
    return (f"{labelled}, and multilingual=off: the English embedding model compares names across languages poorly "
            "(--set multilingual=auto to use multilingual-e5-small).")


def _ontology_argument(graph: Any, arg: str, name: str | None) -> str:
    """A file to load (under ``name``, else its default name) or the name of a loaded ontology."""
    from kgagents.errors import InputFileError
    from kgagents.loaders.ontology import load_ontology

    path = Path(arg)
    if path.is_file():
        result = load_ontology(graph, path, name=name)
        for note in result.notes():
            console.print(note, style="yellow", markup=False)
        return result.name
    loaded = [row["name"] for row in graph.run("ontology/names")]
    if arg in loaded:
        return arg
    if path.suffix or "/" in arg:
        raise InputFileError(f"{arg}: no such file (and no loaded ontology has that name). Check the path.")
    raise InputFileError(f"'{arg}' is neither a file nor a loaded ontology (loaded: {', '.join(loaded) or 'none'}). "
                         "Give an ontology file, or load it first with `kgagents load ontology FILE`.")
