"""How well a confidence means what it says: per confidence band, the pairs, their mean confidence and the share
that was right, and the expected calibration error (the pair-weighted mean gap between the two).

Why one scorer for both jobs: matching's confidence table (``kgagents bench om-calibrate``) and entity alignment's
margin calibration (``kgagents align`` against reference links) are checked by the same bands, so their figures read
alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

#: lower ends of the confidence bands a reliability table reports
BANDS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99)


def reliability(scored: Iterable[tuple[float, bool]], bands: Sequence[float] = BANDS) -> dict[str, Any]:
    """``scored``: (confidence, right) per decided pair. Per band (the highest lower end at or below the
    confidence): pairs, mean confidence, precision; and the expected calibration error."""
    items = list(scored)
    rows: dict[float, list[tuple[float, bool]]] = {}
    for confidence, right in items:
        band = max((b for b in bands if confidence >= b), default=min(bands))
        rows.setdefault(band, []).append((confidence, right))
    out = []
    for band in sorted(rows):
        xs = rows[band]
        mean = sum(c for c, _ in xs) / len(xs)
        precision = sum(r for _, r in xs) / len(xs)
        out.append({"from": band, "pairs": len(xs), "mean_confidence": round(mean, 4),
                    "precision": round(precision, 4)})
    ece = sum(b["pairs"] * abs(b["mean_confidence"] - b["precision"]) for b in out) / max(1, len(items))
    return {"pairs": len(items), "bands": out, "expected_calibration_error": round(ece, 4)}
