"""``kgagents ask`` and ``kgagents kgqa``: ODA question answering against a KG in Neo4j."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, chat_or_none, connected, console, progress_bar
from kgagents.errors import KgAgentsError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

def _kgqa_chat(mode: str, no_llm: bool) -> tuple[Any, Any]:
    """(settings, chat model or None) for a KGQA command; no model (or ``--no-llm``) runs the no-llm baseline."""
    from kgagents.agent.kgqa.settings import MODES, KGQASettings
    from kgagents.config import LLMSettings

    if mode not in MODES:
        raise KgAgentsError(f"unknown KGQA mode '{mode}': use one of {', '.join(MODES)}")
    settings = KGQASettings(mode=mode)
    chat = chat_or_none(no_llm or mode == "no_llm", LLMSettings(temperature=settings.temperature))
    return settings.model_copy(update={"mode": "no_llm"}) if chat is None else settings, chat


def _print_kgqa_summary(summary: dict[str, Any], label: str) -> None:
    cov = summary["coverage"]
    by_hops = ", ".join(f"{h}-hop {v}" for h, v in summary["hits_at_1_by_hops"].items())
    console.print(escape(f"[{label}] {summary['questions']} questions: Hits@1 {summary['hits_at_1']}"
                         + (f" ({by_hops})" if by_hops else "")
                         + f"; topic entity in the KG for {cov['topic_in_kg']}, a gold answer for {cov['gold_in_kg']}, "
                         f"both for {cov['topic_and_gold_in_kg']} (Hits@1 there {cov['hits_at_1_covered']}); "
                         f"observation p50 {summary['observe_ms_p50']} ms; {summary['questions_per_second']} q/s"))


@commands.command("ask")
def ask_cmd(
    question: str = typer.Argument(..., help="the question; topic entities in square brackets (MetaQA style)"),
    kg: str = typer.Option(..., "--kg", help="name of a loaded KG whose triple readings are embedded"),
    topic: list[str] = typer.Option([], "--topic", help="topic entity id (default: the names in square brackets)"),
    mode: str = typer.Option("full", help="full | no_observation | reflect_similarity | reflect_random | "
                             "reflect_generated | no_llm"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline baseline: observation ranking only"),
) -> None:
    """Answer one question with ODA against a KG in Neo4j; prints the answer and the trace."""
    import re

    from kgagents.agent.kgqa.store import stored_trace
    from kgagents.jobs.kgqa import run_questions
    from kgagents.loaders.qa import EntityRef, Question

    topics = topic or re.findall(r"\[([^\]]+)\]", question)
    if not topics:
        raise KgAgentsError("no topic entity: mark it in [brackets] in the question or pass --topic ID")
    settings, chat = _kgqa_chat(mode, no_llm)
    q = Question(id="ask", dataset="ask", question=question, answers=[],
                 topic_entities=[EntityRef(id=t, name=t) for t in topics])
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph:
        with console.status(escape(f"answering [{label}]…")):
            run = run_questions(graph, kg, [q], settings, chat, dataset="ask")
        trace = stored_trace(graph, run.run_id, "ask")
    result = run.results[0]
    if not result.topic_in_kg:
        console.print(escape(f"[yellow]note:[/yellow] none of {topics} is an entity of KG '{kg}'"))
    assert trace is not None
    t = trace["trace"]
    console.print(escape(f"[{label}] answer: {result.answer or '(none)'}"))
    console.print(escape(f"iterations {result.iterations}{' (cap hit)' if result.cap_hit else ''}, "
                         f"{result.llm_calls} LLM calls, {result.prompt_tokens + result.completion_tokens} tokens, "
                         f"observation {', '.join(f'{ms:.0f} ms' for ms in t['observe_ms'])}"))
    table = Table(title="observation (best first)")
    for column in ("head", "relation", "tail", "cosine", "depth"):
        table.add_column(column)
    for x in json.loads(t["observation"])[:10]:
        table.add_row(*(escape(str(v)) for v in (x["head_name"], x["relation"], x["tail_name"])),
                      f"{x['score']:.3f}", str(x["depth"]))
    console.print(table)
    for step in trace["steps"]:
        kept = "; ".join(f"{k['head_name']} | {k['relation']} | {k['tail_name']}" for k in json.loads(step["kept"]))
        console.print(escape(f"step {step['iteration']}: {step['call']}{' (fallback)' if step['fallback'] else ''} → "
                             f"{step['output']} triples, kept: {kept or '(none)'}"))
    console.print(escape(f"trace in Neo4j: MATCH (t:QATrace {{run_id: '{run.run_id}'}}) "
                         "OPTIONAL MATCH (s:QAStep)-[:STEP_OF]->(t) RETURN t, s ORDER BY s.iteration"))


@commands.command("kgqa")
def kgqa_cmd(
    files: list[Path] = typer.Argument(..., help="question file(s): MetaQA/PathQuestion jsonl, QALD-10, T-REx, "
                                       "Zero-Shot RE, Creak json"),
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG (e.g. your Wikidata subgraph)"),
    format: str = typer.Option(None, help="question format (default: detected)"),
    mode: str = typer.Option("full", help="full | no_observation | reflect_similarity | reflect_random | "
                             "reflect_generated | no_llm"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline baseline: observation ranking only"),
    sample: int = typer.Option(None, min=1, help="a seeded random sample of this many questions per file"),
    seed: int = typer.Option(7),
    workers: int = typer.Option(1, min=1, help="questions answered at once (offline baseline only)"),
) -> None:
    """Run question files against whatever KG is loaded: Hits@1 next to coverage (how many questions have their
    topic entity and a gold answer inside the KG), so a score is never read without it."""
    from kgagents.jobs.kgqa import questions_for, run_questions

    settings, chat = _kgqa_chat(mode, no_llm)
    questions = questions_for(files, format=format, sample=sample, seed=seed)
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph, progress_bar(escape(f"answering [{label}]"), len(questions)) as advance:
        run = run_questions(graph, kg, questions, settings, chat, workers=workers,
                            dataset=",".join(f.stem for f in files), on_question=lambda r: advance(1))
    _print_kgqa_summary(run.summary(), label)
    console.print(f"run {run.run_id}: MATCH (t:QATrace {{run_id: '{run.run_id}'}}) RETURN t")
