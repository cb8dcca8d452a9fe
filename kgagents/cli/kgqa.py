"""``kgagents ask`` and the ``kgagents kgqa`` group (``run``, ``learn``, ``bootstrap``, ``prepare``): KG question
answering."""

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
    config_option,
    connected,
    console,
    input_file,
    job_settings,
    progress_bar,
    set_option,
)
from kgagents.cli.output import emit_json, json_option
from kgagents.errors import KgAgentsError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()
#: the ``kgagents kgqa`` group
app = App(help="KG question answering: run question files, learn paths from answered questions, bootstrap a path "
          "memory from the KG itself, prepare a KG.")

_MODES = "full | gated | no_observation | reflect_similarity | reflect_random | reflect_generated | no_llm"
_EXAMPLE = "ranking=options"


def kgqa_chat(mode: str | None, no_llm: bool, memory: bool | None = None, changes: Sequence[str] = (),
              config: Path | None = None) -> tuple[Any, Any]:
    """(settings, chat model or None) for a KGQA command (:func:`~kgagents.cli.common.job_settings`): ``mode`` and
    ``memory`` as the command's options gave them (None: not given), ``changes`` its ``--set`` texts, ``config``
    its ``--config`` file; no model (or ``--no-llm``, or mode ``no_llm``) runs the no-LLM ablation."""
    from kgagents.agent.kgqa.settings import MODES
    from kgagents.config import LLMSettings

    if mode is not None and mode not in MODES:
        raise KgAgentsError(f"unknown KGQA mode '{mode}': use one of {', '.join(MODES)}")
    given = {"mode": mode, "memory": memory}
    first = job_settings("kgqa", sets=list(changes), config=config, chat=None, **given).settings
    offline = no_llm or mode == "no_llm"
    chat = None if offline else chat_or_none(False, LLMSettings(temperature=first.temperature))
    return job_settings("kgqa", sets=list(changes), config=config, chat=chat, **given).settings, chat


def _label(settings: Any, chat: Any) -> str:
    return "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"


def print_summary(summary: dict[str, Any], label: str) -> None:
    cov = summary["coverage"]
    by_hops = ", ".join(f"{h}-hop {v}" for h, v in summary["hits_at_1_by_hops"].items())
    console.print(escape(
        f"[{label}] {summary['questions']} questions: Hits@1 {summary['hits_at_1']}"
        + (f" ({by_hops})" if by_hops else "") + f", answer-set F1 {summary['f1']}; "
        f"topic entity in the KG for {cov['topic_in_kg']}, a gold answer for {cov['gold_in_kg']}, both for "
        f"{cov['topic_and_gold_in_kg']} (Hits@1 there {summary['hits_at_1_covered']}); path memory "
        f"{summary['memory_examples']} examples"
        + (" (" + ", ".join(f"{k} {v}" for k, v in summary["memory_votes"].items()) + ")"
           if summary.get("memory_votes") else "")
        + f"; decided by {summary['decided_by']}; observation p50 "
        f"{summary['observe_ms_p50']} ms; {summary['questions_per_second']} q/s"))


@commands.command("ask")
def ask_cmd(
    question: str = typer.Argument(..., help="the question in plain words (a [bracketed] name is taken as its topic)"),
    kg: str = typer.Option(..., "--kg", help="name of a loaded KG"),
    topic: list[str] = typer.Option([], "--topic", help="topic entity id (default: linked from the question)"),
    mode: str = typer.Option(None, help=_MODES + " (default: the model's measured best, else no_llm)"),
    no_llm: bool = typer.Option(False, "--no-llm", help="no chat model: the best-scoring relation path answers"),
    no_memory: bool = typer.Option(False, "--no-memory", help="ignore the KG's path memory (zero-shot)"),
    set_: list[str] = set_option("kgqa", _EXAMPLE),
    config: Path = config_option(),
    as_json: bool = json_option(),
) -> None:
    """Answer one question against a KG in Neo4j: the answer set, the path that produced it, and the trace."""
    from kgagents.jobs.kgqa import ask

    settings, chat = kgqa_chat(mode, no_llm, memory=False if no_memory else None, changes=set_, config=config)
    label = _label(settings, chat)
    with connected() as graph, console.status(escape(f"answering [{label}]…")):
        asked = ask(graph, kg, question, topics=topic, settings=settings, chat=chat)
    r = asked.result
    if as_json:
        return emit_json({"run_id": asked.run.run_id, "kg": kg, "question": question, "mode": settings.mode,
                          "model": chat.model_name if chat is not None else None, "answers": r.answer.splitlines(),
                          "path": r.path, "decided_by": r.decided_by, "confidence": r.confidence,
                          "topic_in_kg": r.topic_in_kg, "linked": asked.linked, "paths": asked.paths,
                          "steps": asked.steps, "llm_calls": r.llm_calls,
                          "tokens": r.prompt_tokens + r.completion_tokens, "seconds": r.seconds,
                          "trace_query": asked.trace_query})
    if asked.linked:
        m = asked.linked[0]
        console.print(escape(f"topic: '{m['text']}' → {m['id']}" + (f" (name {m['name']!r})" if m["name"] != m["id"]
                                                                   else "")))
    elif not r.topic_in_kg:
        console.print("[yellow]note:[/yellow] " + escape(f"no topic entity of KG '{kg}' found in the question"))
    names = r.answer.splitlines()
    shown = ", ".join(names[:10]) + (f", … ({r.answer_size} in all)" if r.answer_size > 10 else "")
    console.print(escape(f"[{label}] answer: {shown or '(none)'}"))
    memory = f"; path memory {r.memory}" if r.memory else ""
    console.print(escape(f"path: {r.path or '(none)'} (decided by {r.decided_by}{memory}; confidence {r.confidence}); "
                         f"{r.llm_calls} LLM calls, {r.prompt_tokens + r.completion_tokens} tokens, "
                         f"{r.seconds:.2f} s"))
    table = Table(title="observed paths (best first)", title_justify="left", caption_justify="left",
                  caption="ends: the first entities each path reaches (of size); mem: the path memory's vote")
    for column in ("path", "ends", "size", "score", "mem"):  # ends cut to one line: the paths are what matters
        table.add_column(column, overflow="fold" if column == "path" else "ellipsis", no_wrap=column == "ends",
                         max_width=24 if column == "ends" else None)
    for p in asked.paths[:8]:
        table.add_row(escape(p["display"]), escape(", ".join(p["ends"][:3])), str(p["size"]), f"{p['score']:.3f}",
                      f"{p['prior']:.2f}")
    if asked.paths:
        console.print(table)
    for step in asked.steps:
        console.print(escape(f"step {step['iteration']}: {step['call']}{' (fallback)' if step['fallback'] else ''}"
                             f" → {step['output']} paths, kept: {', '.join(step['kept']) or '(none)'}"))
    console.print(escape(f"trace in Neo4j: {asked.trace_query}"))


@app.command("run")
def run_cmd(
    files: list[Path] = typer.Argument(..., help="question file(s): your own (JSONL / JSON / TSV with 'question' "
                                       "and optionally 'topic_entity' — a KG id such as a QID, or a name — and "
                                       "'answers'), MetaQA (its own .txt or our jsonl), PathQuestion jsonl, QALD-10, "
                                       "T-REx, Zero-Shot RE, Creak json"),
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG (e.g. your Wikidata subgraph)"),
    format: str = typer.Option(None, help="question format (default: detected)"),
    mode: str = typer.Option(None, help=_MODES + " (default: the model's measured best, else no_llm)"),
    no_llm: bool = typer.Option(False, "--no-llm", help="no chat model: the best-scoring relation path answers"),
    no_memory: bool = typer.Option(False, "--no-memory", help="ignore the KG's path memory (zero-shot)"),
    sample: int = typer.Option(None, min=1, help="a seeded random sample of this many questions per file"),
    seed: int = typer.Option(7),
    workers: int = typer.Option(1, min=1, help="questions answered at once (without a chat model only)"),
    set_: list[str] = set_option("kgqa", _EXAMPLE),
    config: Path = config_option(),
    as_json: bool = json_option(),
) -> None:
    """Answer question files against a loaded KG: Hits@1 and answer-set F1 next to coverage (how many questions
    have their topic entity and a gold answer inside the KG), so a score is never read without it."""
    from kgagents.jobs.kgqa import questions_for, run_questions

    for f in files:
        input_file(f, "FILES")
    settings, chat = kgqa_chat(mode, no_llm, memory=False if no_memory else None, changes=set_, config=config)
    questions = questions_for(files, format=format, sample=sample, seed=seed)
    label = _label(settings, chat)
    with connected() as graph, progress_bar(escape(f"answering [{label}]"), len(questions)) as advance:
        run = run_questions(graph, kg, questions, settings, chat, workers=workers,
                            dataset=",".join(f.stem for f in files), on_question=lambda r: advance(1))
    if as_json:
        return emit_json({"run_id": run.run_id, "kg": kg, "files": files, "mode": settings.mode,
                          "model": chat.model_name if chat is not None else None, "summary": run.output.summary(),
                          "results": run.output.results})
    print_summary(run.output.summary(), label)
    console.print(f"run {run.run_id}: MATCH (t:QATrace {{run_id: '{run.run_id}'}}) RETURN t")


@app.command("learn")
def learn_cmd(
    file: Path = typer.Argument(..., help="labelled questions (any format `kgqa run` reads); records marked "
                                "split=test are refused"),
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG the questions are about"),
    format: str = typer.Option(None, help="question format (default: detected)"),
    workers: int = typer.Option(2, min=1, help="questions searched at once"),
    given_paths: bool = typer.Option(True, "--given-paths/--weak-only",
                                     help="learn a record's own relation path when it names one that reaches its "
                                          "answers (--weak-only: always search the KG)"),
) -> None:
    """Fill the KG's path memory: each answered question is reduced to the relation path(s) from its topic to its
    answers (the path its record names, else weak supervision) and stored as (:PathExample) nodes with the
    question's vector."""
    from kgagents.jobs.kgqa import learn
    from kgagents.loaders.qa import read_questions

    questions = read_questions(input_file(file, "FILE"), format=format)
    with connected() as graph, progress_bar(escape(f"learning paths for {kg}"), len(questions)) as advance:
        report = learn(graph, kg, questions, source=str(file), workers=workers, given_paths=given_paths,
                       on_question=advance)
    console.print(escape(f"{report.learned} of {report.questions} questions learned ({report.examples} path "
                         f"examples, {report.given_paths} from their own relation path, {report.ties} with several "
                         f"equally good paths; {report.no_topic} without a "
                         f"topic in the KG, {report.no_path} without a path to their answers) in {report.seconds} s; "
                         f"the memory of {kg} now holds {report.memory_examples} examples"))


@app.command("learn-gate")
def learn_gate_cmd(
    file: Path = typer.Argument(..., help="labelled training questions (any format `kgqa run` reads); records "
                                "marked split=test are refused"),
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG the questions are about"),
    format: str = typer.Option(None, help="question format (default: detected)"),
    sample: int = typer.Option(None, min=1, help="a seeded random sample of this many questions"),
    seed: int = typer.Option(7, help="seed of --sample"),
    memory: bool = typer.Option(True, "--memory/--no-memory", help="learn the gate for answering with the path "
                                "memory (each question's own examples left out) or zero-shot"),
    weak: float = typer.Option(0.6, min=0.0, max=1.0, help="the cheap gate: the model is tried below the largest "
                               "confidence under which at most this share of the no-LLM answers are right"),
    set_: list[str] = set_option("kgqa", _EXAMPLE + " (the gate is stored for the ranking and verify_weight it "
                                 "was learned with)"),
    config: Path = config_option(),
) -> None:
    """Learn where the configured chat model pays on this KG: the no-LLM agent answers the questions, gated mode
    answers the unreliable ones with the model, and the gate keeps only the confidences below which the model fixed
    more answers than it broke. Stored as (:LLMGate {kg, model, memory}); gated mode (`kgqa run --mode gated`,
    `ask`, the Python API) uses it for that model unless the settings give `confident` explicitly."""
    from kgagents.jobs.kgqa import questions_for
    from kgagents.jobs.kgqa_gate import learn_gate

    input_file(file, "FILE")
    settings, chat = kgqa_chat("gated", False, memory=memory, changes=set_, config=config)
    if chat is None:
        raise KgAgentsError("learn-gate needs a chat model: start one with `kgagents llm start` or set "
                            "KGAGENTS_LLM_BASE_URL")
    questions = questions_for([file], format=format, sample=sample, seed=seed)
    with connected() as graph:
        record = learn_gate(graph, kg, questions, chat, settings=settings, weak=weak)
    gate = record["gate"]
    console.print(escape(
        f"{kg}, {record['model']} ({'path memory' if memory else 'zero-shot'}): {record['asked']} of "
        f"{record['questions']} questions below the cheap gate {record['weak_gate']}; there the model fixed "
        f"{record['changed_right']} and broke {record['changed_wrong']} answers; gate stored: "
        + ("never ask the model" if gate["threshold"] <= 0 else f"ask below confidence {gate['threshold']:.4f} "
           f"({gate['changed_right']} fixed / {gate['changed_wrong']} broken there)")
        + (f" (the best record, {record['best']['changed_right']} fixed / {record['best']['changed_wrong']} "
           f"broken, is one chance alone gives {100 * gate['chance']:.0f} % of the time)"
           if gate["threshold"] <= 0 and gate.get("chance") is not None else "")))


@app.command("bootstrap")
def bootstrap_cmd(
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG"),
    no_llm: bool = typer.Option(False, "--no-llm", help="templates only, even with a chat model configured"),
    set_: list[str] = set_option("bootstrap", "topics=500"),
    config: Path = config_option(),
) -> None:
    """A path memory without labelled questions: the KG's frequent relation paths (1–3 relations from sampled
    topics), with questions written for them from the relation labels (templates) and, with a chat model, natural
    paraphrases (cached in the graph). Stored as (:PathExample {source: 'bootstrap'}), replacing the previous
    bootstrap; labelled examples (`kgqa learn`) are kept. The memory votes only where a question comes close enough
    to its phrasings (calibrated on the memory itself); elsewhere questions are answered zero-shot."""
    from kgagents.config import LLMSettings
    from kgagents.jobs.kgqa_bootstrap import bootstrap

    chat = chat_or_none(no_llm, LLMSettings())
    settings = job_settings("bootstrap", sets=set_, config=config, chat=chat).settings
    if not settings.uses_llm:
        chat = None
    with connected() as graph, console.status(escape(f"bootstrapping the path memory of {kg}…")) as status:
        report = bootstrap(graph, kg, chat=chat, settings=settings, on_step=lambda what: status.update(
            escape(f"bootstrapping the path memory of {kg}: {what}…")))
    if not report.relation_labels:
        console.print(escape(f"[yellow]note:[/yellow] KG '{kg}' has no relation labels: questions are written with "
                             "its relation ids (load a label file to have them read as words)"))
    model = (f"; {report.paraphrases} paraphrases of {report.paraphrased_path_types} path types by {report.model} "
             f"({report.model_calls} calls, {report.model_seconds} s; {report.paraphrases_cached} path types from "
             "the cache)") if report.model else "; templates only (no chat model)"
    console.print(escape(
        f"{kg}: {report.path_types_used} path types (of {report.path_types_found} found from "
        f"{report.topics_sampled} sampled topics), {report.template_questions} template questions{model}; "
        f"{report.examples} examples written in {report.batches} transaction(s) in {report.seconds} s; the memory "
        f"now holds {report.memory['labelled']} labelled and {report.memory['bootstrap']} bootstrap examples "
        f"(run {report.run_id})"))
    if report.scorer_calibration:
        console.print(escape(_calibration_line(report.scorer_calibration)))


def _calibration_line(found: dict[str, Any]) -> str:
    """What the bootstrap learned of the scorer (kgqa/scorer_calibration.py), as one line."""
    penalty, default = found["values"]["length_penalty"], found["default"]
    row = next(r for r in found["grid"] if r["length_penalty"] == penalty)
    verdict = ("no penalty beat the default by a standard error: kept" if penalty == default["length_penalty"]
               else f"{default['objective']} → {row['objective']} (gain {row['gain']} ± {row['gain_standard_error']})")
    return (f"length penalty {penalty} for runs with this memory, on {found['questions']} held-out bootstrap "
            f"questions ({verdict}; Hits@1 averaged over hops); `--set length_penalty=…` overrides it")


@app.command("prepare")
def prepare_cmd(kg: str = typer.Option(..., "--kg", help="name of the loaded KG")) -> None:
    """What KGQA needs of a KG: its entity names embedded (answer types, linking context; unchanged names are
    skipped), the full-text index over names and aliases (entity linking) and the texts of its one- and
    two-relation paths embedded (the path scorer; texts stored before are skipped)."""
    from kgagents.jobs.kgqa import prepare_kg

    with connected() as graph, console.status(escape(f"preparing {kg}…")):
        done = prepare_kg(graph, kg)
    console.print(escape(f"{kg}: {done['names_embedded']} entity names embedded, {done['names_unchanged']} "
                         f"unchanged ({done['seconds']} s); full-text index kgqa_entity_names online; "
                         f"{done['path_texts']['embedded']} path texts embedded of "
                         f"{done['path_texts']['path_types']} path types ({done['path_texts']['seconds']} s)"))
