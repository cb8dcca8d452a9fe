"""The zero-shot scorer's length penalty, learned from the KG itself by ``kgqa bootstrap`` (no labelled question).

Why: the scorer's ``length_penalty`` (0.02 at ``length_words`` 10) was chosen on MetaQA and PathQuestion train
questions. How much a longer path gains from its extra relation words depends on the KG's relation labels and on
how its paths branch, so on another KG the default can let longer paths win too often (SimpleQuestions over
CoDEx-M: most misses were a longer path winning by 0.01–0.04 similarity). The bootstrap already has questions with
answers computed in Cypher, so it can measure the penalty on the KG's own questions:

1. **held-out questions** (:func:`held_out`): for a seeded sample of the bootstrap's path types, one template
   question about a topic the memory's examples are not about (another sampled instance of the type), its answers
   that instance's end set;
2. **observed once** zero-shot (no memory, no model; :func:`observe`): each observed path keeps its similarity,
   length, end-name fit, and whether its first end is an answer. The observation expands each level's best paths,
   and every path of a level has the same length, so the penalty does not change which paths are observed: each
   grid value re-ranks the same paths exactly (:func:`hits`);
3. **chosen** (:func:`choose`) by Hits@1 averaged over hop counts: the best penalty of :data:`GRID`, but only when
   it beats the default by more than one standard error of that gain (:func:`gain`, paired over the same
   questions); otherwise the default is kept. Why
   not simply the best: template questions are worded from the relation labels, as the path texts are, so they
   are closer to their paths than people's questions are; a difference they show within their own noise says
   little about people's questions, and the default was chosen on people's questions (MetaQA, PathQuestion
   train). The first rule tried, the largest penalty within one standard error of the best (to lean away from
   longer paths), chose 0.03 on MetaQA where the default 0.02 was best, and lost 0.5 point on its held-out
   questions (1-hop +7, 2-hop −3.7, 3-hop −4.7): it was replaced by this one (first with the standard error of
   the best value's own rate, which is 0 when it answers every question right, so one question could decide).

The result (:class:`ScorerCalibration`) is stored with the bootstrap memory (``(:ScorerCalibration {kg})``,
written in the transaction that makes the memory live); an agent that uses that memory reads it as the *learned*
layer of its settings (:func:`stored`), below anything given explicitly (``--set length_penalty=…`` wins), and
only with the scorer settings it was learned with.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from kgagents.agent.kgqa.bootstrap import PathType, template_questions
from kgagents.agent.kgqa.paths import ObservedPath, PathKey
from kgagents.agent.kgqa.scoring import Query
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.graph.connection import Graph

#: the length penalties searched
GRID: tuple[float, ...] = (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.1)
#: the scorer settings a calibration holds for (a run with other values of these does not use it)
LEARNED_WITH: tuple[str, ...] = ("length_words", "type_weight", "e5_weight")
RULE = ("Hits@1 averaged over hop counts on held-out bootstrap questions; the best length_penalty when its gain over "
        "the default (paired, same questions) exceeds one standard error, else the default")


@dataclass(frozen=True)
class Asked:
    """One held-out bootstrap question: its masked text, topic, answer set and path length."""

    masked: str
    topic: str
    answers: frozenset[str]
    hops: int


@dataclass(frozen=True)
class Observed:
    """One observed question: per path (rows, best first) its similarity, length, end-name fit and rightness."""

    hops: int
    words: int
    paths: np.ndarray


@dataclass(frozen=True)
class ScorerCalibration:
    """The learned values and the record they came from: the bootstrap run, how many questions (by hop count),
    the settings it holds for, and per grid value its objective, standard error and Hits@1 by hop count."""

    values: dict[str, float]
    run_id: str
    questions: int
    questions_by_hops: dict[str, int]
    learned_with: dict[str, Any]
    grid: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, float] = field(default_factory=dict)
    rule: str = RULE

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """What a run records as the learned layer's source."""
        chosen = ", ".join(f"{k}={v}" for k, v in self.values.items())
        return f"kgqa bootstrap {self.run_id}: {chosen} on {self.questions} held-out bootstrap questions"


def held_out(chosen: Sequence[PathType], names: Mapping[str, str], memory_topic: Callable[[PathType], str], *,
             count: int, seed: int) -> list[Asked]:
    """Up to ``count`` questions: one for each of a seeded sample of the path types, about a topic other than the
    memory's example of that type (``memory_topic``) where the type has one, in a seeded template shape; when the
    KG has fewer path types than ``count``, more rounds ask about further topics of each type (a small KG's few
    path types would otherwise give too few questions to tell penalties apart)."""
    rng = random.Random(f"{seed}:scorer-calibration")
    order = rng.sample(list(chosen), min(count, len(chosen)))
    out: list[Asked] = []
    asked: set[tuple[PathKey, str]] = set()
    for round_ in range(count):
        before = len(out)
        for path_type in order[: count - len(out)]:
            others = [i for i in path_type.instances if i.topic != memory_topic(path_type)
                      and (path_type.path, i.topic) not in asked]
            if not others and round_ == 0:
                others = path_type.instances
            if not others:
                continue
            instance = rng.choice(others)
            asked.add((path_type.path, instance.topic))
            text = rng.choice(template_questions(path_type.path, names))
            out.append(Asked(text, instance.topic, frozenset(instance.answers), len(path_type.path)))
        if len(out) in (before, count):
            break
    return out


def observe(asked: Sequence[Asked], query: Callable[[Sequence[str]], list[Query]],
            paths: Callable[[Query, str], list[ObservedPath]], workers: int = 2) -> list[Observed]:
    """Each question observed once (``paths``: the zero-shot observation of a query from a topic), its paths'
    terms kept for :func:`hits`."""
    queries = query([a.masked for a in asked])

    def one(i: int) -> Observed:
        found = paths(queries[i], asked[i].topic)
        rows = [[p.similarity, p.length, p.type_score, bool(p.ends) and p.ends[0] in asked[i].answers]
                for p in found]
        return Observed(asked[i].hops, queries[i].words, np.asarray(rows, dtype=np.float64).reshape(-1, 4))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, range(len(asked))))


def hits(observed: Sequence[Observed], settings: KGQASettings, length_penalty: float) -> dict[int, list[bool]]:
    """Per hop count, whether each question's best path under ``length_penalty`` (the other weights from
    ``settings``, as :meth:`~kgagents.agent.kgqa.scoring.PathScorer.score` adds them) answers it."""
    out: dict[int, list[bool]] = {}
    for o in observed:
        right = False
        if len(o.paths):
            scale = settings.length_words / o.words if settings.length_words else 1.0
            score = o.paths[:, 0] - length_penalty * scale * o.paths[:, 1] + settings.type_weight * o.paths[:, 2]
            right = bool(o.paths[int(np.argmax(score)), 3])
        out.setdefault(o.hops, []).append(right)
    return out


def objective(by_hops: Mapping[int, Sequence[bool]]) -> float:
    """Hits@1 averaged over hop counts, in %."""
    rates = [float(np.mean(v)) for v in by_hops.values() if v]
    return round(100 * sum(rates) / len(rates), 2) if rates else 0.0


def gain(by_hops: Mapping[int, Sequence[bool]], default: Mapping[int, Sequence[bool]]) -> tuple[float, float]:
    """(How much ``by_hops`` beats ``default`` on the same questions, its standard error), in % of the objective:
    per hop count the mean of the per-question differences (+1, 0, −1) and its standard error, averaged (errors
    combined) over hop counts. Paired, because both answer the same questions: only the questions on which they
    differ count, and a penalty that answers every question right still has an error (unlike its own rate's)."""
    means, variances = [], []
    for hops, answers in by_hops.items():
        d = np.asarray(answers, dtype=np.float64) - np.asarray(default[hops], dtype=np.float64)
        means.append(float(d.mean()))
        variances.append(float(d.var(ddof=1)) / len(d) if len(d) > 1 else 1.0)
    if not means:
        return 0.0, 0.0
    return round(100 * sum(means) / len(means), 2), round(100 * math.sqrt(sum(variances)) / len(means), 2)


def choose(observed: Sequence[Observed], settings: KGQASettings, run_id: str,
           grid: Sequence[float] = GRID) -> ScorerCalibration:
    """The length penalty chosen on ``observed`` (see the module docstring: the best, when it beats the default by
    more than the standard error of its gain), with its record."""
    default_hits = hits(observed, settings, settings.length_penalty)
    rows: list[dict[str, Any]] = []
    for penalty in sorted({*grid, settings.length_penalty}):
        by_hops = hits(observed, settings, penalty)
        better, error = gain(by_hops, default_hits)
        rows.append({"length_penalty": penalty, "objective": objective(by_hops), "gain": better,
                     "gain_standard_error": error, "hits_at_1_by_hops": {
                         str(h): round(100 * float(np.mean(v)), 1) for h, v in sorted(by_hops.items())}})
    default = next(r for r in rows if r["length_penalty"] == settings.length_penalty)
    best = max(rows, key=lambda r: (r["objective"], -abs(r["length_penalty"] - settings.length_penalty)))
    chosen = best if best["gain"] > best["gain_standard_error"] else default
    hops: dict[str, int] = {}
    for o in observed:
        hops[str(o.hops)] = hops.get(str(o.hops), 0) + 1
    return ScorerCalibration({"length_penalty": chosen["length_penalty"]}, run_id, len(observed), dict(sorted(
        hops.items())), {k: getattr(settings, k) for k in LEARNED_WITH}, rows,
        {"length_penalty": settings.length_penalty, "objective": default["objective"]})


def stored(graph: Graph, kg: str, settings: KGQASettings) -> ScorerCalibration | None:
    """The calibration stored with ``kg``'s bootstrap memory, if it was learned with ``settings``' other scorer
    values (:data:`LEARNED_WITH`), else None."""
    rows = graph.run("kgqa/scorer_calibration_read", kg=kg)
    if not rows:
        return None
    found = ScorerCalibration(**{k: (json.loads(rows[0][k]) if k in _JSON else rows[0][k])
                                 for k in ScorerCalibration.__dataclass_fields__})
    if any(found.learned_with.get(k) != getattr(settings, k) for k in LEARNED_WITH):
        return None
    return found


#: fields stored as JSON text (Neo4j properties hold no maps)
_JSON = ("values", "questions_by_hops", "learned_with", "grid", "default")


def stored_props(calibration: ScorerCalibration) -> dict[str, Any]:
    """The calibration as the properties of its ``(:ScorerCalibration)`` node."""
    return {k: (json.dumps(v) if k in _JSON else v) for k, v in calibration.as_dict().items()}
