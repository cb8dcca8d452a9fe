"""What a run report shows, independent of how it is drawn: scored predictions, an optional reference, and the
time and LLM cost of each stage.

Every job's reader (:mod:`kgagents.report.jobs`) turns a stored ``(:Run)`` into a :class:`RunReport`; the
terminal (:mod:`kgagents.report.terminal`) and the PNG (:mod:`kgagents.report.plot`) draw the same object, so
the two never disagree.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgagents.llm.ledger import PurposeOutcomes

#: a numeric run property named ``<stage>_seconds`` is the time of that stage (``retrieval_seconds``)
_STAGE_PROPERTY = re.compile(r"^(?:timings?[._])?(?P<stage>.+?)_seconds$|^timings?[._](?P<bare>.+)$")


@dataclass(frozen=True)
class Prediction:
    """One pair a run proposed, with the score it can be thresholded on and where it came from."""

    source: str
    target: str
    score: float
    origin: str  # e.g. the matching channel group, or "top-1 candidate"


@dataclass(frozen=True)
class Reference:
    """The pairs a run is compared with, and where they come from (a file, a loaded alignment, gold links)."""

    name: str
    pairs: frozenset[tuple[str, str]]


@dataclass(frozen=True)
class CurvePoint:
    """Precision and recall of the predictions scoring at least ``threshold``."""

    threshold: float
    accepted: int
    true_positives: int
    precision: float
    recall: float

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


@dataclass
class StageRow:
    """Time and LLM use of one stage; ``seconds`` is None when the run did not record the stage's time."""

    stage: str
    seconds: float | None = None
    calls: int = 0
    failed: int = 0
    tokens: int = 0
    llm_seconds: float = 0.0
    cost: float = 0.0


@dataclass
class RunReport:
    """Everything ``kgagents report`` shows for one run."""

    run_id: str
    job: str
    title: str
    score_label: str
    predictions: list[Prediction] = field(default_factory=list)
    reference: Reference | None = None
    stages: list[StageRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    outputs: list[PurposeOutcomes] = field(default_factory=list)  # LLM output handling per purpose
    unit: str = "pairs"  # what one prediction is: pairs (matching, EA), questions (KGQA)
    scores: dict[str, float] = field(default_factory=dict)  # the scores the run stored, headline first

    def origins(self) -> list[str]:
        """Origins of the predictions, most frequent first."""
        return [o for o, _ in Counter(p.origin for p in self.predictions).most_common()]

    def curve(self) -> list[CurvePoint]:
        """Precision/recall at every distinct score, highest threshold first (needs a reference)."""
        if self.reference is None:
            return []
        gold = self.reference.pairs
        points: list[CurvePoint] = []
        accepted = tp = 0
        ordered = sorted(self.predictions, key=lambda p: -p.score)
        for i, p in enumerate(ordered):
            accepted += 1
            tp += (p.source, p.target) in gold
            if i + 1 == len(ordered) or ordered[i + 1].score < p.score:
                points.append(CurvePoint(p.score, accepted, tp, tp / accepted, tp / len(gold) if gold else 1.0))
        return points

    def best(self) -> CurvePoint | None:
        """The threshold with the highest F1 (the highest such threshold on ties)."""
        return max(self.curve(), key=lambda c: c.f1, default=None)


def stage_seconds(run: Mapping[str, Any]) -> dict[str, float]:
    """Stage → seconds as stored on a run: a ``timings`` map (or its JSON text), and numeric properties named
    ``<stage>_seconds`` or ``timings.<stage>`` / ``timings_<stage>`` (how flattened maps are stored)."""
    out: dict[str, float] = {}
    timings = run.get("timings")
    if isinstance(timings, str):
        try:
            timings = json.loads(timings)
        except json.JSONDecodeError:
            timings = None
    if isinstance(timings, Mapping):
        out.update({str(k): float(v) for k, v in timings.items() if isinstance(v, (int, float))})
    for key, value in run.items():
        match = _STAGE_PROPERTY.match(key)
        if match and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.setdefault(match.group("stage") or match.group("bare"), float(value))
    return out


def stage_rows(seconds: Mapping[str, float], llm: Sequence[Mapping[str, Any]],
               purpose_stage: Mapping[str, str], order: Sequence[str] = ()) -> list[StageRow]:
    """One row per stage, LLM calls added to the stage their purpose belongs to (a purpose the job does not map,
    e.g. a new one, gets a row of its own named after it). Rows follow ``order`` (the job's stages as they run;
    a run's properties come back in no particular order), then the rest by name."""
    rows = {stage: StageRow(stage, seconds=s) for stage, s in seconds.items()}
    for call in llm:
        purpose = str(call["purpose"])
        base = purpose.removesuffix(":repair")
        stage = purpose_stage.get(base, f"llm: {base}")
        row = rows.setdefault(stage, StageRow(stage))
        row.calls += int(call["calls"])
        row.failed += int(call["failed"] or 0)
        row.tokens += int(call["tokens"] or 0)
        row.llm_seconds += float(call["seconds"] or 0.0)
        row.cost += float(call["cost"] or 0.0)
    rank = {stage: i for i, stage in enumerate(order)}
    return sorted(rows.values(), key=lambda r: (rank.get(r.stage, len(rank)), r.stage))
