"""What a KGQA run returns: one :class:`QuestionResult` per question and the run's :meth:`KGQARun.summary`.

Scores (the run's ``(:Run)`` node holds them under these names; ``hits_at_1`` is the headline): Hits@1 overall
and per hop count, answer-set precision / recall / F1 (means over questions with gold), Hits@1 on the covered
questions (topic and a gold answer in the KG), and linking accuracy (questions whose topic the agent linked from
plain text and whose gold topic is known). Beside them: how each answer was decided (memory, observation, the
model, the iteration cap), coverage, whether a gold answer was in the observation at all, LLM calls and tokens
per question, observation time p50 / p95, throughput, and how many path examples the memory had.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from kgagents.llm.ledger import CallRecord
from kgagents.loaders.qa import Question
from kgagents.metrics.qa import contains_gold, hits_at_1, set_scores

#: where a question record keeps the topic ids a linking benchmark hid from the agent
GOLD_TOPICS = "gold_topics"


@dataclass
class QuestionResult:
    """One answered question: the answer (set), whether it is right (None without gold), cost and coverage."""

    question_id: str
    hops: int | None
    answer: str
    top_entity: str | None
    answer_size: int
    path: str | None
    decided_by: str
    confidence: float
    correct: bool | None
    precision: float | None
    recall: float | None
    f1: float | None
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
    linked: bool = False
    topic_correct: bool | None = None
    best_path_correct: bool | None = None
    memory: str = ""  # what the path memory did: whose examples voted, 'abstained', or '' (no memory)

    @classmethod
    def of(cls, question: Question, state: Mapping[str, Any], *, seconds: float, calls: Sequence[CallRecord],
           topic_in_kg: bool, gold_ids: Set[str], gold_names: Set[str]) -> QuestionResult:
        """Score one finished agent state against the question's gold answers (None fields without gold)."""
        gold = question.answers
        answer, top = state.get("answer", ""), state.get("top_entity")
        predicted = list(zip(state.get("answer_entities", []), state.get("answer_names", []), strict=True))
        p, r, f = set_scores(predicted, gold) if gold else (None, None, None)
        ends = [(e, n) for x in state.get("observation", []) for e, n in zip(x["ends"], x["end_names"], strict=False)]
        linked = bool(state.get("linked"))
        gold_topics = question.extra.get(GOLD_TOPICS)
        path = state.get("answer_path")
        best_id, best_name = state.get("observed_best") or [None, ""]
        return cls(
            question_id=question.id, hops=question.hops, answer=answer, top_entity=top,
            answer_size=int(state.get("answer_size", 0)), path=path["display"] if path else None,
            decided_by=state.get("decided_by", ""), confidence=float(state.get("confidence", 0.0)),
            correct=hits_at_1(answer, top, gold) if gold else None, precision=p, recall=r, f1=f,
            iterations=state.get("iteration", 0), cap_hit=bool(state.get("cap_hit")), llm_calls=len(calls),
            prompt_tokens=sum(c.prompt_tokens for c in calls),
            completion_tokens=sum(c.completion_tokens for c in calls), seconds=seconds,
            observe_seconds=list(state.get("observe_seconds", [])), topic_in_kg=topic_in_kg,
            gold_in_kg=any((a.id in gold_ids) if a.id else (a.name in gold_names) for a in gold) if gold else None,
            gold_observed=contains_gold(ends, gold) if gold else None, linked=linked,
            topic_correct=(bool(state.get("topics")) and state["topics"][0] in gold_topics)
            if linked and gold_topics else None,
            best_path_correct=hits_at_1(best_name, best_id, gold) if gold else None,
            memory=state.get("memory_verdict", ""))

    def trace_fields(self) -> dict[str, Any]:
        """What the stored trace repeats of this result (the rest of the trace comes from the agent state)."""
        skip = ("question_id", "observe_seconds", "answer")
        return {k: v for k, v in asdict(self).items() if k not in skip and v is not None}


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 4) if kept else None


@dataclass
class KGQARun:
    """A run over a list of questions (its traces are in Neo4j under ``run_id``)."""

    #: summary entries that are scores (on the run node under their own names; the rest are properties)
    SCORES: ClassVar[tuple[str, ...]] = ("hits_at_1", "precision", "recall", "f1", "hits_at_1_covered",
                                         "linking_accuracy")

    run_id: str
    kg: str
    mode: str
    model: str
    settings: dict[str, Any]
    results: list[QuestionResult] = field(default_factory=list)
    embed_seconds: float = 0.0
    loop_seconds: float = 0.0
    workers: int = 1
    memory_examples: int = 0
    memory_counts: dict[str, int] = field(default_factory=dict)
    memory_calibration: Any = None  # the memory's Calibration (kgqa/calibration.py), None without one
    #: the scorer values learned by the KG's bootstrap that the run used, with where they came from (JSON text,
    #: as on the run node; kgqa/scorer_calibration.py), None: the settings' own values
    scorer_calibration: str | None = None
    #: path-text vectors found stored when the run began, and embedded by it (new texts: the encoders' time is
    #: in the run's seconds, so its throughput depends on how much of the KG's paths earlier runs met)
    path_texts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The run's numbers (see the module docstring)."""
        rs = self.results
        n = len(rs)
        hops = sorted({r.hops for r in rs if r.hops is not None})
        observe_ms = sorted(sum(r.observe_seconds) * 1000 for r in rs if r.observe_seconds)
        covered = [r for r in rs if r.topic_in_kg and r.gold_in_kg]
        by_hops = {str(h): [r for r in rs if r.hops == h] for h in hops}
        return {
            "questions": n, "hits_at_1": rate_of(rs, "correct"),
            "precision": _mean([r.precision for r in rs]), "recall": _mean([r.recall for r in rs]),
            "f1": _mean([r.f1 for r in rs]),
            "hits_at_1_covered": rate_of(covered, "correct"),
            "linking_accuracy": rate_of(rs, "topic_correct"),
            "questions_by_hops": {h: len(v) for h, v in by_hops.items()},
            "hits_at_1_by_hops": {h: rate_of(v, "correct") for h, v in by_hops.items()},
            "f1_by_hops": {h: _mean([r.f1 for r in v]) for h, v in by_hops.items()},
            "precision_by_hops": {h: _mean([r.precision for r in v]) for h, v in by_hops.items()},
            "recall_by_hops": {h: _mean([r.recall for r in v]) for h, v in by_hops.items()},
            "coverage": {"topic_in_kg": sum(r.topic_in_kg for r in rs),
                         "gold_in_kg": sum(bool(r.gold_in_kg) for r in rs),
                         "topic_and_gold_in_kg": len(covered)},
            "linked": sum(r.linked for r in rs),
            "decided_by": dict(Counter(r.decided_by for r in rs)),
            "model_changed": _changed(rs),
            "observation_answer_recall": rate_of(rs, "gold_observed"),
            "memory_examples": self.memory_examples,
            "memory_examples_by_source": {k: v for k, v in self.memory_counts.items() if k != "examples"},
            "memory_votes": dict(Counter(r.memory for r in rs if r.memory)),
            "memory_calibration": self.memory_calibration.as_dict() if self.memory_calibration is not None else None,
            "llm_calls_per_question": round(sum(r.llm_calls for r in rs) / n, 3) if n else 0,
            "tokens_per_question": round(sum(r.prompt_tokens + r.completion_tokens for r in rs) / n, 1) if n else 0,
            "seconds_per_question": round(sum(r.seconds for r in rs) / n, 4) if n else 0,
            "mean_iterations": round(sum(r.iterations for r in rs) / n, 3) if n else 0,
            "cap_hit_rate": round(sum(r.cap_hit for r in rs) / n, 4) if n else 0,
            "observe_ms_p50": _percentile(observe_ms, 50), "observe_ms_p95": _percentile(observe_ms, 95),
            "embed_seconds": round(self.embed_seconds, 2), "loop_seconds": round(self.loop_seconds, 2),
            "questions_per_second": round(n / self.loop_seconds, 2) if self.loop_seconds else None,
            "questions_per_second_with_embedding": round(n / (self.loop_seconds + self.embed_seconds), 2)
            if n and self.loop_seconds else None,
            "workers": self.workers, "path_texts": self.path_texts or None,
            "scorer_calibration": json.loads(self.scorer_calibration) if self.scorer_calibration else None,
        }


def _changed(results: Sequence[QuestionResult]) -> dict[str, int]:
    """Answers the model decided, against the best observed path's answer (what no LLM would have said):
    ``right`` turned right, ``wrong`` turned wrong, ``same`` right or wrong either way."""
    decided = [r for r in results if r.decided_by.startswith("llm") and r.correct is not None
               and r.best_path_correct is not None]
    return {"right": sum(bool(r.correct and not r.best_path_correct) for r in decided),
            "wrong": sum(bool(r.best_path_correct and not r.correct) for r in decided),
            "same": sum(r.correct == r.best_path_correct for r in decided)}


def rate_of(results: Sequence[QuestionResult], flag: str) -> float | None:
    """Share of results whose boolean ``flag`` is true, among those where it is set."""
    values = [getattr(r, flag) for r in results if getattr(r, flag) is not None]
    return round(sum(values) / len(values), 4) if values else None


def _percentile(sorted_values: Sequence[float], q: float) -> float | None:
    if not sorted_values:
        return None
    return round(float(np.percentile(np.asarray(sorted_values), q)), 2)
