"""What a KGQA run returns: one :class:`QuestionResult` per question and the run's :meth:`KGQARun.summary`
(Hits@1 overall / by hops / on covered questions, observation answer recall, LLM calls and tokens per question,
iterations, cap-hit rate, observation time p50/p95, throughput) — the numbers the benchmarks report and the run's
``(:Run)`` node stores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from kgagents.metrics.qa import contains_gold, hits_at_1
from kgagents.llm.ledger import CallRecord
from kgagents.loaders.qa import Question


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

    @classmethod
    def of(cls, question: Question, state: Mapping[str, Any], *, seconds: float, calls: Sequence[CallRecord],
           topic_in_kg: bool, gold_ids: Set[str], gold_names: Set[str], shown: int) -> QuestionResult:
        """Score one finished agent state against the question's gold answers (None fields without gold)."""
        gold = question.answers
        answer, top = state.get("answer", ""), state.get("top_entity")
        ends = [(t["tail"], t["tail_name"]) if t["source"] == t["head"] else (t["head"], t["head_name"])
                for t in state.get("observation", [])]
        return cls(
            question_id=question.id, hops=question.hops, answer=answer, top_entity=top,
            correct=hits_at_1(answer, top, gold) if gold else None, iterations=state.get("iteration", 0),
            cap_hit=bool(state.get("cap_hit")), llm_calls=len(calls),
            prompt_tokens=sum(c.prompt_tokens for c in calls),
            completion_tokens=sum(c.completion_tokens for c in calls), seconds=seconds,
            observe_seconds=list(state.get("observe_seconds", [])), topic_in_kg=topic_in_kg,
            gold_in_kg=any((a.id in gold_ids) if a.id else (a.name in gold_names) for a in gold) if gold else None,
            gold_observed=contains_gold(ends, gold) if gold else None,
            gold_shown=contains_gold(ends[:shown], gold) if gold else None)

    def trace_fields(self) -> dict[str, Any]:
        """What the stored trace repeats of this result (the rest of the trace comes from the agent state)."""
        skip = ("question_id", "observe_seconds", "answer")
        return {k: v for k, v in asdict(self).items() if k not in skip and v is not None}


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
