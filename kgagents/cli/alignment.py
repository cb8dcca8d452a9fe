"""``kgagents align`` and ``kgagents ea export``: the EA-Agent over retrieved candidates."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from kgagents.cli.common import App, chat_or_none, connected, console, output_file
from kgagents.errors import KgAgentsError

app = App(help="Entity alignment: export stored EA-Agent runs.")
#: commands of the top level
commands = App()


@commands.command("align")
def align_cmd(
    dataset: str = typer.Argument(..., help="name of a loaded JAPE pair, e.g. dbp15k_zh_en"),
    retrieval_run: str = typer.Option(..., help="run id of the candidate retrieval to start from"),
    mode: str = typer.Option("gated", help="gated (the model only for sources retrieval is unsure of, below the gate "
                             "learned on the train links) | full | rule_planner | no_planning | llm_only | "
                             "no_selectors | no_llm"),
    sample: int = typer.Option(None, min=1, help="align a random sample of this many test sources (seeded)"),
    seed: int = typer.Option(7),
    pairs: Path = typer.Option(None, help="write the aligned pairs as TSV (source, target, score, path) here"),
    trajectories: Path = typer.Option(None, help="write (query, path, reward, rewritten path) JSONL here"),
) -> None:
    """EA-Agent over candidates already retrieved in Neo4j; writes SAME_AS links and per-entity traces."""
    from kgagents.agent.alignment.export import write_pairs
    from kgagents.agent.alignment.settings import EASettings
    from kgagents.jobs.alignment import align

    output_file(pairs, "--pairs")
    output_file(trajectories, "--trajectories")
    chat = chat_or_none(mode == "no_llm")
    if chat is None:
        mode = "no_llm"
    with connected() as graph:
        model = chat.model_name if chat is not None else "no-llm"
        with console.status(escape(f"aligning [{mode}, {model}]…")):
            result = align(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run,
                           settings=EASettings(mode=mode), sample=sample, seed=seed,
                           trajectories_path=trajectories).result
        if pairs is not None:
            console.print(f"{write_pairs(graph, result.run_id, pairs)} pairs written to {pairs}")
    console.print(result.model_dump_json(indent=2, exclude={"trajectories"}))


@app.command("export")
def ea_export(
    run_id: str = typer.Argument(..., help="id of a stored EA-Agent run"),
    pairs: Path = typer.Option(None, help="TSV of aligned pairs (source, target, score, path)"),
    trajectories: Path = typer.Option(None, help="JSONL of (query, path, reward, rewritten path)"),
    llm_rewrite: bool = typer.Option(False, help="rewrite each path with the configured LLM (the reward-guided "
                                     "rewriting prompt); without an LLM the stored rule rewrite is kept"),
) -> None:
    """Export a STORED EA-Agent run from Neo4j (SAME_AS + AlignTrace) without rerunning it."""
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
