"""``kgagents match``: Agent-OM between two ontologies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from kgagents.cli.common import (
    App,
    chat_or_none,
    checkpointer,
    connected,
    console,
    input_file,
    output_file,
    set_values,
)
from kgagents.progress import MATCHING_STAGES, StageDisplay, matching_updates

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

def _match_settings(no_llm: bool, threshold: float | None, top_k: int | None, context: str | None,
                    changes: Sequence[str] = ()) -> Any:
    """The run's settings; ``changes``: ``KEY=VALUE`` texts (validated by the settings model, one error)."""
    from kgagents.agent.matching.settings import MatchSettings

    overrides: dict[str, Any] = dict(set_values(changes, MatchSettings.model_fields, "matching", "one_to_one=false"))
    overrides["context"] = context
    if no_llm or "mode" not in overrides:  # --set mode=gated picks an LLM mode; without a model it is no_llm
        overrides["mode"] = "no_llm" if no_llm else "full"
    if threshold is not None:
        overrides["threshold"] = threshold
    if top_k is not None:
        overrides["top_k"] = top_k
    return MatchSettings(**overrides)


@commands.command("match")
def match_cmd(
    source: str = typer.Argument(..., help="source ontology: a file to load, or the name of a loaded ontology"),
    target: str = typer.Argument(..., help="target ontology: a file to load, or the name of a loaded ontology"),
    context: str = typer.Option(None, help="domain context given to the LLM (default: derived from the "
                                "ontologies' own title, description and main concepts)"),
    out: Path = typer.Option(None, help="write the alignment as Alignment API RDF/XML"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline ablation: no LLM at all"),
    threshold: float = typer.Option(None, min=-1.0, max=1.0, help="cosine cut-off T per channel (default 0.90)"),
    top_k: int = typer.Option(None, min=1, help="candidates per channel k (default 3)"),
    reference: Path = typer.Option(None, help="OAEI reference alignment: print P/R/F1"),
    checkpoint: Path = typer.Option(None, help="SQLite checkpoint file: an interrupted run resumes from it"),
    source_name: str = typer.Option(None, help="name to load the source file under (default: its file stem)"),
    target_name: str = typer.Option(None, help="name to load the target file under (default: its file stem)"),
) -> None:
    """Agent-OM ontology matching between two ontologies, in Neo4j."""
    from kgagents.agent.matching.store import export_alignment
    from kgagents.jobs.matching import match_pair
    from kgagents.loaders.alignment import read_alignment
    from kgagents.loaders.reference import check_reference_in_graph

    output_file(out, "--out")
    output_file(checkpoint, "--checkpoint")
    expected = read_alignment(input_file(reference, "--reference")) if reference is not None else None
    chat = chat_or_none(no_llm)
    settings = _match_settings(chat is None, threshold, top_k, context)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        names = [_ontology_argument(graph, arg, name) for arg, name in ((source, source_name), (target, target_name))]
        title = escape(f"matching {names[0]} → {names[1]} [{settings.mode}, {model}]")
        with StageDisplay(console, title) as stages, checkpointer(checkpoint) as saver:
            stages.stage(MATCHING_STAGES[0])
            run = match_pair(graph, names[0], names[1], settings, chat=chat, reference=reference,
                             checkpointer=saver, on_update=matching_updates(stages))
        console.print(escape(f"run {run.run_id}: {len(run.pairs)} matches [{settings.mode}, model: {model}] "
                             f"in {run.seconds:.1f}s, {run.llm_calls} LLM calls"))
        if run.scores is not None:
            s = run.scores
            console.print(f"P={s.precision:.4f} R={s.recall:.4f} F1={s.f1:.4f} (tp={s.tp} fp={s.fp} fn={s.fn})")
            assert expected is not None
            for warning in check_reference_in_graph(graph, expected, names).warnings():
                console.print(f"[yellow]reference:[/yellow] {escape(warning)}")
        if out is not None:
            export_alignment(graph, run.run_id, names[0], names[1], out)
            console.print(f"alignment written to {out}")
        console.print(escape(f"query them: MATCH (s)-[m:MATCHES {{run_id: '{run.run_id}'}}]->(t) "
                             "RETURN coalesce(s.label, s.name), coalesce(t.label, t.name), m.score"))


def _ontology_argument(graph: Any, arg: str, name: str | None) -> str:
    """A file to load (under ``name``, else its default name) or the name of a loaded ontology."""
    from kgagents.errors import InputFileError
    from kgagents.jobs.matching import ensure_loaded

    path = Path(arg)
    if path.is_file():
        return ensure_loaded(graph, path, name)
    loaded = [row["name"] for row in graph.run("ontology/names")]
    if arg in loaded:
        return arg
    if path.suffix or "/" in arg:
        raise InputFileError(f"{arg}: no such file (and no loaded ontology has that name). Check the path.")
    raise InputFileError(f"'{arg}' is neither a file nor a loaded ontology (loaded: {', '.join(loaded) or 'none'}). "
                         "Give an ontology file, or load it first with `kgagents load ontology FILE`.")
