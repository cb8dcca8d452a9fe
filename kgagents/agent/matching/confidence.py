"""One confidence in [0, 1] per matched pair: how often pairs with the same evidence were right on tuning data.

A pair's evidence is the stage that accepted it (the lexical pre-match's key, the background's path kind, the
retrieval's best cosine band, the structural propagation, a lexical rule) and, where the background also relates it,
that background kind (:func:`evidence`). Each piece of evidence has a calibrated precision — right / accepted among
the tuning runs' pairs with that evidence, with one right and one wrong pair added as a prior so that a rare piece
says little — and a pair's confidence combines its pieces as independent votes (noisy-OR): ``1 - Π (1 - p)``.
Where a background file states a confidence below 1 for the pair (an SSSOM row's ``confidence``), the background
piece's precision is scaled by it: a mapping its own authors give 0.6 is weaker evidence than one they give 1.

The table (:data:`CALIBRATION_FILE`) is written by ``kgagents bench om-calibrate`` from the tuning split only, which
its results file names; a piece the table has not seen gets the table's overall precision. The same number is
written to the graph (``MATCHES.confidence``), the Alignment API ``<measure>``, SSSOM's ``confidence`` and the
report, so a user can threshold it anywhere.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
#: the retrieval's cosine bands (a merged pair's best channel cosine is at least the band's lower end)
COSINE_BANDS = (0.95, 0.90, 0.85, 0.80)
#: the prior every piece of evidence starts from: one right and one wrong pair
PRIOR_RIGHT, PRIOR_TOTAL = 1, 2


def evidence(match: Mapping[str, Any]) -> list[str]:
    """The pieces of evidence of one match: its first channel's (the accepting stage), retrieval by cosine band,
    and the background's kind when it is not the accepting stage."""
    channels = list(match.get("channels") or [])
    first = channels[0] if channels else "unknown"
    if ":" not in first and first != "structural":  # a retrieval pair: its channel names, told by cosine
        similarity = float(match.get("similarity") or 0.0)
        band = next((b for b in COSINE_BANDS if similarity >= b), 0.0)
        first = f"retrieval@{band:.2f}"
    pieces = [first]
    pieces += [c for c in channels[1:] if c.startswith("background:") and c != first]
    return pieces


@dataclass
class Calibration:
    """Right and accepted counts per piece of evidence (the table a tuning run learned)."""

    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    source: str = ""  # what it was learned on (the results file and split)

    @property
    def overall(self) -> float:
        right = sum(r for r, _ in self.counts.values())
        total = sum(t for _, t in self.counts.values())
        return (right + PRIOR_RIGHT) / (total + PRIOR_TOTAL)

    def precision(self, piece: str) -> float:
        if piece not in self.counts:
            return self.overall
        right, total = self.counts[piece]
        return (right + PRIOR_RIGHT) / (total + PRIOR_TOTAL)

    def confidence(self, match: Mapping[str, Any]) -> float:
        """Noisy-OR of the match's pieces of evidence (a background piece scaled by the files' stated
        ``background_confidence``), rounded to 4 places."""
        stated = float(match.get("background_confidence", 1.0))
        wrong = 1.0
        for piece in evidence(match):
            wrong *= 1.0 - self.precision(piece) * (stated if piece.startswith("background:") else 1.0)
        return round(1.0 - wrong, 4)

    @classmethod
    def learn(cls, decided: Iterable[tuple[Mapping[str, Any], bool]], source: str) -> Calibration:
        """Count, for every piece of evidence, how many of the matches holding it were right."""
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for match, right in decided:
            for piece in evidence(match):
                counts[piece][0] += int(right)
                counts[piece][1] += 1
        return cls({k: (v[0], v[1]) for k, v in sorted(counts.items())}, source)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "prior": {"right": PRIOR_RIGHT, "total": PRIOR_TOTAL},
                "counts": {k: {"right": r, "total": t, "precision": round(self.precision(k), 4)}
                           for k, (r, t) in self.counts.items()}}

    def save(self, path: Path = CALIBRATION_FILE) -> None:
        path.write_text(json.dumps(self.as_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path = CALIBRATION_FILE) -> Calibration:
        """The table at ``path``; an empty one (every pair gets the prior's 0.5) when none was learned yet."""
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls({k: (int(v["right"]), int(v["total"])) for k, v in data.get("counts", {}).items()},
                   str(data.get("source", "")))


@lru_cache(maxsize=1)
def default_calibration() -> Calibration:
    """The shipped table (read once per process)."""
    return Calibration.load()


def with_confidence(matches: Iterable[Mapping[str, Any]], calibration: Calibration | None = None,
                    ) -> list[dict[str, Any]]:
    """The matches, each with its ``confidence``."""
    table = calibration or default_calibration()
    return [{**m, "confidence": table.confidence(m)} for m in matches]
