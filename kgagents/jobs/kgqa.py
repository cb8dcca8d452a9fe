"""KG question answering as a job: run ODA (or its offline baseline) over questions against a KG in Neo4j.

:func:`run_questions` is what ``kgagents ask``, ``kgagents kgqa`` and the benchmarks call (and the demo can):
it checks the KG and its triple readings are there, embeds the questions once, runs the agent per question,
scores each answer that has gold answers (:mod:`kgagents.eval.qa_scorer`), stores the traces in Neo4j in
batches, and returns per-question results with the coverage of each question in the loaded KG (is a topic entity
there, is a gold answer there), so a score is never read without it.

Questions run one at a time with an LLM (a local model serves one request at a time, and tokens are counted per
question from the run's ledger); the offline baseline may run ``workers`` questions at once, each in its own
Neo4j sessions.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.readings import require_triple_vectors
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import trace_row, write_run, write_traces
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.eval.qa_scorer import contains_gold, hits_at_1
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.loaders.qa import Question

#: traces written per transaction
TRACE_BATCH = 500


@dataclass
class QuestionResult:
    """One answered question: the answer, whether it is right (None without gold), cost, and coverage."""

    question_id: str
    hops: int | None
    answer: str
    top_entity: str | None
    correct: bool | None
    iterations: int
    cap_hit: bool
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    observe_seconds: list[float]
    topic_in_kg: bool
    gold_in_kg: bool | None
    gold_observed: bool | None = None
    gold_shown: bool | None = None


@dataclass
class KGQARun:
    """A run over a list of questions (its traces are in Neo4j under ``run_id``)."""

    run_id: str
    kg: str
    mode: str
    model: str
    settings: dict[str, Any]
    results: list[QuestionResult] = field(default_factory=list)
    embed_seconds: float = 0.0
    loop_seconds: float = 0.0
    workers: int = 1

    def summary(self) -> dict[str, Any]:
        """Hits@1 (all / by hops / covered questions), LLM calls and tokens per question, iterations, cap hits,
        observation time per question (p50/p95 of the sum over iterations) and throughput."""
        rs = self.results
        n = len(rs)

        def rate(items: Sequence[QuestionResult]) -> float | None:
            return rate_of(items, "correct")

        hops = sorted({r.hops for r in rs if r.hops is not None})
        observe_ms = sorted(sum(r.observe_seconds) * 1000 for r in rs if r.observe_seconds)
        covered = [r for r in rs if r.topic_in_kg and r.gold_in_kg]
        return {
            "questions": n, "hits_at_1": rate(rs),
            "hits_at_1_by_hops": {str(h): rate([r for r in rs if r.hops == h]) for h in hops},
            "questions_by_hops": {str(h): sum(r.hops == h for r in rs) for h in hops},
            "coverage": {"topic_in_kg": sum(r.topic_in_kg for r in rs),
                         "gold_in_kg": sum(bool(r.gold_in_kg) for r in rs),
                         "topic_and_gold_in_kg": len(covered), "hits_at_1_covered": rate(covered)},
            "observation_answer_recall": rate_of(rs, "gold_observed"),
            "shown_observation_answer_recall": rate_of(rs, "gold_shown"),
            "llm_calls_per_question": round(sum(r.llm_calls for r in rs) / n, 3) if n else 0,
            "tokens_per_question": round(sum(r.prompt_tokens + r.completion_tokens for r in rs) / n, 1) if n else 0,
            "mean_iterations": round(sum(r.iterations for r in rs) / n, 3) if n else 0,
            "cap_hit_rate": round(sum(r.cap_hit for r in rs) / n, 4) if n else 0,
            "observe_ms_p50": _percentile(observe_ms, 50), "observe_ms_p95": _percentile(observe_ms, 95),
            "embed_seconds": round(self.embed_seconds, 2), "loop_seconds": round(self.loop_seconds, 2),
            "questions_per_second": round(n / self.loop_seconds, 2) if self.loop_seconds else None,
            "questions_per_second_with_embedding": round(n / (self.loop_seconds + self.embed_seconds), 2)
            if n else None,
            "workers": self.workers,
        }


def rate_of(results: Sequence[QuestionResult], flag: str) -> float | None:
    """Share of results whose boolean ``flag`` is true, among those where it is set."""
    values = [getattr(r, flag) for r in results if getattr(r, flag) is not None]
    return round(sum(values) / len(values), 4) if values else None


def _percentile(sorted_values: Sequence[float], q: float) -> float | None:
    if not sorted_values:
        return None
    return round(float(np.percentile(np.asarray(sorted_values), q)), 2)


def question_text(question: Question) -> str:
    """What is embedded: the question without MetaQA's topic brackets (the entity name stays)."""
    return " ".join(question.question.replace("[", " ").replace("]", " ").split())


def topic_ids(question: Question) -> list[str]:
    """The topic entities' KG ids (the name where a dataset gives no id: MetaQA, PathQuestion)."""
    return [ref.id or ref.name for ref in question.topic_entities]


def presence(graph: Graph, kg: str, questions: Sequence[Question]) -> tuple[dict[str, str], set[str], set[str]]:
    """(topic id → KG name, gold ids present, gold names present) for the questions' topics and answers."""
    topics = sorted({t for q in questions for t in topic_ids(q)})
    names = {r["id"]: r["name"] for r in graph.run("kgqa/entity_names", kg=kg, ids=topics)}
    gold_ids = sorted({a.id for q in questions for a in q.answers if a.id})
    gold_names = sorted({a.name for q in questions for a in q.answers if not a.id})
    row = graph.run("kgqa/present", kg=kg, ids=gold_ids, names=gold_names)[0]
    return names, set(row["ids"]), set(row["names"])


def new_run_id() -> str:
    return f"kgqa-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


def run_questions(graph: GraphLike, kg: str, questions: Sequence[Question], settings: KGQASettings | None = None,
                  chat: Any = None, *, run_id: str | None = None, workers: int = 1, embedder: Embedder | None = None,
                  dataset: str | None = None,
                  on_question: Callable[[QuestionResult], None] | None = None) -> KGQARun:
    """Answer ``questions`` against KG ``kg``; ``chat`` None runs the offline baseline (mode ``no_llm``)."""
    graph = connect(graph)
    settings = settings or KGQASettings()
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    require_triple_vectors(graph, kg)
    agent = ODAAgent(graph, kg, settings, chat)
    run_id = run_id or new_run_id()
    agent.ledger.run_id = run_id
    workers = workers if settings.mode == "no_llm" else 1
    run = KGQARun(run_id, kg, settings.mode, agent.model_name, settings.model_dump(), workers=workers)
    write_run(graph, run_id, {"kg": kg, "mode": settings.mode, "model": run.model, "dataset": dataset,
                              "started_at": datetime.now(timezone.utc).isoformat(), **run.settings})
    names, gold_ids, gold_names = presence(graph, kg, questions)
    started = time.perf_counter()
    vectors = (embedder or get_embedder()).embed([question_text(q) for q in questions]) if questions else []
    run.embed_seconds = time.perf_counter() - started
    app = agent.compile()
    limit = 5 * settings.max_iterations + 10

    def answer(i: int) -> tuple[QuestionResult, dict[str, Any]]:
        q = questions[i]
        topics = {t: names.get(t, t) for t in topic_ids(q)}
        calls_before = len(agent.ledger.records)
        t0 = time.perf_counter()
        state = app.invoke(ODAAgent.initial_state(q.id, q.question, vectors[i], topics), {"recursion_limit": limit})
        seconds = time.perf_counter() - t0
        calls = agent.ledger.records[calls_before:]
        gold_in = (any((a.id in gold_ids) if a.id else (a.name in gold_names) for a in q.answers)
                   if q.answers else None)
        ends = [(t["tail"], t["tail_name"]) if t["source"] == t["head"] else (t["head"], t["head_name"])
                for t in state.get("observation", [])]
        result = QuestionResult(
            question_id=q.id, hops=q.hops, answer=state.get("answer", ""), top_entity=state.get("top_entity"),
            correct=hits_at_1(state.get("answer", ""), state.get("top_entity"), q.answers) if q.answers else None,
            iterations=state.get("iteration", 0), cap_hit=bool(state.get("cap_hit")), llm_calls=len(calls),
            prompt_tokens=sum(c.prompt_tokens for c in calls), completion_tokens=sum(c.completion_tokens for c in calls),
            seconds=seconds, observe_seconds=list(state.get("observe_seconds", [])),
            topic_in_kg=any(t in names for t in topics), gold_in_kg=gold_in,
            gold_observed=contains_gold(ends, q.answers) if q.answers else None,
            gold_shown=contains_gold(ends[:settings.observation_shown], q.answers) if q.answers else None)
        extra = {k: v for k, v in asdict(result).items() if k not in ("question_id", "observe_seconds", "answer")}
        extra.update(dataset=q.dataset, gold=[a.name for a in q.answers], model=run.model)
        return result, trace_row(state, shown=settings.observation_shown,
                                 extra={k: v for k, v in extra.items() if v is not None})

    pending: list[dict[str, Any]] = []
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for result, row in pool.map(answer, range(len(questions))):
            run.results.append(result)
            pending.append(row)
            if len(pending) >= TRACE_BATCH:
                write_traces(graph, run_id, kg, pending)
                pending = []
            if on_question is not None:
                on_question(result)
    write_traces(graph, run_id, kg, pending)
    run.loop_seconds = time.perf_counter() - started
    if agent.chat is not None:
        agent.ledger.flush(graph, run_id)
    write_run(graph, run_id, {f"summary_{k}": v for k, v in run.summary().items() if not isinstance(v, dict)}
              | {"finished_at": datetime.now(timezone.utc).isoformat()})
    return run
