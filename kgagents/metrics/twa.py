"""The World Avatar (MOPs) slot scorer: records matched one-to-one maximising exact slots; micro and macro P/R/F1.

A ground-truth file (``steps``, ``chemicals``, ``characterisation``, ``cbu``) is one category; its
records are the items of its top-level list (``synthesisProcedures``, ``Synthesis``, or the
``Characterisation`` lists under ``Devices``). A record is flattened into slots ``(path, value)``:
nested objects and lists of objects keep their position in the path (``steps[2].HeatChill.duration``),
while the items of a list of plain values are each a slot of the list's path (so a name list is
compared as a multiset). Values are compared after the seed's fingerprint normalisation (trimmed,
whitespace collapsed, lower case, Unicode sub/superscripts as digits, placeholders such as ``N/A`` or
``-1`` treated as empty, and empty slots not counted).

Per category, predicted records are matched one-to-one to ground-truth records so that the total
number of exactly equal slots is maximal (Hungarian algorithm); matched equal slots are true
positives, every other predicted slot a false positive, every other ground-truth slot a false
negative. Micro scores pool the counts of all categories; macro scores are the means of the
per-category scores (macro F1 = mean of per-category F1).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from pydantic import BaseModel

Slot = tuple[str, str]
_PLACEHOLDERS = {"", "n/a", "na", "-1", "-1.0", "-1e+00", "-1e+0", "-1.00"}
_CHARS = str.maketrans({**{chr(0x2080 + i): str(i) for i in range(10)},
                        **dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")),
                        "·": ".", "•": ".", "⋅": ".", "×": "x", "÷": "/", "′": "'", "″": '"', "‴": '"', "’": "'",
                        "”": '"'})
_RECORD_LISTS = ("synthesisProcedures", "Synthesis", "Characterisation")


class Counts(BaseModel):
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def scores(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def fingerprint(value: Any) -> str:
    """The seed's value normalisation (empty string for placeholders)."""
    s = "" if value is None else str(value).strip()
    if s.lower() in _PLACEHOLDERS:
        return ""
    return " ".join(s.translate(_CHARS).split()).lower()


def records(document: Any) -> list[Any]:
    """The records of a ground-truth (or predicted) category file."""
    if isinstance(document, list):
        return document
    if isinstance(document, Mapping):
        for key in _RECORD_LISTS:
            if isinstance(document.get(key), list):
                return document[key]
        for value in document.values():  # e.g. Devices[*].Characterisation
            if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                return [r for v in value for r in records(v)]
    return [document]


def slots(record: Any, path: str = "") -> Counter[Slot]:
    """The non-empty ``(path, normalised value)`` slots of a record, as a multiset."""
    out: Counter[Slot] = Counter()
    if isinstance(record, Mapping):
        for key, value in record.items():
            out += slots(value, f"{path}.{key}" if path else str(key))
    elif isinstance(record, list):
        for i, item in enumerate(record):
            out += slots(item, f"{path}[{i}]" if isinstance(item, (Mapping, list)) else path)
    else:
        value = fingerprint(record)
        if value:
            out[(path, value)] += 1
    return out


def _max_assignment(weights: list[list[int]]) -> list[tuple[int, int]]:
    """Row → column pairs maximising the summed weight (Hungarian algorithm on the padded square matrix)."""
    n = max(len(weights), max((len(r) for r in weights), default=0))
    if n == 0:
        return []
    big = max((w for r in weights for w in r), default=0)
    cost = [[big - (weights[i][j] if i < len(weights) and j < len(weights[i]) else 0) for j in range(n)]
            for i in range(n)]
    u, v, p, way = [0] * (n + 1), [0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = [float("inf")] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], float("inf"), 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta  # type: ignore[call-overload]
                    v[j] -= delta  # type: ignore[call-overload]
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return [(p[j] - 1, j - 1) for j in range(1, n + 1)
            if p[j] - 1 < len(weights) and j - 1 < len(weights[p[j] - 1])]


def score_category(truth: Sequence[Any], predicted: Sequence[Any]) -> Counts:
    """TP/FP/FN of one category after the one-to-one record matching."""
    gt, pr = [slots(r) for r in truth], [slots(r) for r in predicted]
    overlap = [[sum((g & p).values()) for p in pr] for g in gt]
    tp = sum(overlap[i][j] for i, j in _max_assignment(overlap))
    return Counts(tp=tp, fp=sum(sum(p.values()) for p in pr) - tp, fn=sum(sum(g.values()) for g in gt) - tp)


def score(truth: Mapping[str, Any], predicted: Mapping[str, Any]) -> dict[str, Any]:
    """Per-category counts and scores, micro (pooled counts) and macro (mean of per-category scores)."""
    per = {c: score_category(records(truth[c]), records(predicted.get(c, []))) for c in sorted(truth)}
    pooled = Counts(tp=sum(c.tp for c in per.values()), fp=sum(c.fp for c in per.values()),
                    fn=sum(c.fn for c in per.values()))
    macro = {m: fmean(c.scores()[m] for c in per.values()) for m in ("precision", "recall", "f1")} if per else {}
    return {"categories": {c: {**v.model_dump(), **v.scores()} for c, v in per.items()},
            "micro": pooled.scores(), "macro": macro}


def load_ground_truth(directory: Path) -> dict[str, Any]:
    """Category name (file stem) → parsed JSON, for every ``*.json`` in ``directory``."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))}
