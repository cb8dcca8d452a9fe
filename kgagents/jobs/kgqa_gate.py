"""The KGQA LLM gate, learned where the model pays (``kgagents kgqa learn-gate``).

Gated mode asks the chat model only about questions whose best observed path leads by less than ``confident``.
This module learns that threshold for one KG and one model from labelled training questions, in two steps:
the no-LLM agent answers them, and the cheap gate is the confidence below which its answers are unreliable
(:func:`~kgagents.agent.gating.cheap_threshold`); then gated mode answers the questions below it with the model,
and the gate keeps only the confidences below which the model fixed more answers than it broke
(:func:`~kgagents.agent.gating.paid_gate`), and only when chance alone would rarely give that record
(:func:`~kgagents.agent.gating.trusted`) — none otherwise. The gate is stored as an
``(:LLMGate {kg, model, memory})`` node, which the agent reads when ``confident`` is not set explicitly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgagents.agent.gating import SIGNIFICANCE, cheap_threshold, paid_gate, trusted
from kgagents.agent.kgqa.pathmemory import refuse_test_split
from kgagents.agent.kgqa.results import QuestionResult
from kgagents.agent.kgqa.settings import KGQASettings, with_model_defaults
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.jobs.kgqa import run_questions, split_of
from kgagents.loaders.qa import Question


def model_record(graph: Graph, kg: str, questions: Sequence[Question], no_llm: Sequence[QuestionResult],
                 settings: KGQASettings, chat: Any, weak_gate: float, *, leave_one_out: bool = False,
                 dataset: str | None = None) -> dict[str, Any]:
    """The model's record on the ``questions`` below ``weak_gate`` (``no_llm``: their no-LLM results): gated mode
    answers them with ``chat``, and each one's gain (+1 fixed, -1 broken, 0 same) feeds the paid gate."""
    before = {r.question_id: r for r in no_llm}
    asked = [q for q in questions if before[q.id].confidence < weak_gate]
    gated = settings.model_copy(update={"mode": "gated", "confident": weak_gate})
    run = run_questions(graph, kg, asked, gated, chat, dataset=dataset, leave_one_out=leave_one_out)
    results = run.output.results
    rows = [(before[r.question_id].confidence, int(bool(r.correct)) - int(bool(before[r.question_id].correct)))
            for r in results]

    def share(hits: int) -> float | None:
        return round(hits / len(results), 4) if results else None

    return {"model": run.model, "run_id": run.run_id, "asked": len(asked), "weak_gate": weak_gate,
            "hits_at_1_no_llm": share(sum(bool(before[r.question_id].correct) for r in results)),
            "hits_at_1_model": share(sum(bool(r.correct) for r in results)),
            "changed_right": sum(1 for _, g in rows if g > 0), "changed_wrong": sum(1 for _, g in rows if g < 0),
            "llm_calls": sum(r.llm_calls for r in results),
            "tokens": sum(r.prompt_tokens + r.completion_tokens for r in results),
            "seconds_per_question": round(sum(r.seconds for r in results) / len(results), 2) if results else None,
            "best": (best := paid_gate(rows)).as_dict(), "gate": trusted(best).as_dict(),
            "rule": "ask the model below the confidence with the largest net gain (fixed minus broken) on these "
                    f"train questions, if chance alone gives that record at most {SIGNIFICANCE} of the time "
                    "(one-sided binomial, a fix as likely as a break); 0.0 = never ask"}


def learn_gate(graph: GraphLike, kg: str, questions: Sequence[Question], chat: Any, *,
               settings: KGQASettings | None = None, weak: float = 0.6, dataset: str | None = None) -> dict[str, Any]:
    """Learn and store ``kg``'s gate for ``chat`` from labelled training ``questions`` (with the path memory when
    ``settings.memory``: each question's own examples left out). Refuses questions marked as a test split or
    without gold answers, before anything runs."""
    graph = connect(graph)
    if chat is None:
        raise KgAgentsError("learning the LLM gate needs a chat model: start one with `kgagents llm start` or set "
                            "KGAGENTS_LLM_BASE_URL")
    refuse_test_split([(q.id, split_of(q)) for q in questions], "learn-gate")
    unlabelled = [q.id for q in questions if not q.answers]
    if unlabelled or not questions:
        raise KgAgentsError(f"learn-gate needs questions with gold answers; {len(unlabelled)} have none (first: "
                            f"{unlabelled[0] if unlabelled else 'no questions given'})")
    settings, _ = with_model_defaults(settings or KGQASettings(), getattr(chat, "model_name", None))
    settings = settings.model_copy(update={"mode": "no_llm"})  # the model's checks are kept for the gated run
    memory = settings.memory
    run = run_questions(graph, kg, questions, settings, None, dataset=dataset, leave_one_out=memory)
    weak_gate = cheap_threshold([(r.confidence, bool(r.correct)) for r in run.output.results], weak)
    record = model_record(graph, kg, questions, run.output.results, settings, chat, weak_gate,
                          leave_one_out=memory, dataset=dataset)
    confident = record["gate"]["threshold"]
    graph.run("kgqa/gate_write", kg=kg, model=record["model"], memory=memory, confident=confident,
              record={"questions": len(questions), "weak": weak, "weak_gate": weak_gate, "asked": record["asked"],
                      "changed_right": record["changed_right"], "changed_wrong": record["changed_wrong"],
                      "no_llm_run": run.run_id, "model_run": record["run_id"],
                      "verify_weight": settings.verify_weight, "ranking": settings.ranking,
                      "checks": settings.model_checks()})
    return {"kg": kg, "memory": memory, "questions": len(questions), "no_llm_run_id": run.run_id,
            "confident": confident, **record}
