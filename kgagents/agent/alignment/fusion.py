"""Fusion of the retrieval signals into one score per (source, target) pair, and the ranking it gives."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import Signals

Ranking = dict[str, list[tuple[str, float]]]  # source -> [(target, fused score)], best first


@dataclass(frozen=True)
class Weights:
    """Weight of each signal in the fused score (computed by :func:`rank`); structure enters saturated,
    w / (1 + w)."""

    name: float
    multilingual: float
    exact: float
    structure: float
    attributes: float

    @classmethod
    def of(cls, settings: RetrievalSettings) -> Weights:
        return cls(settings.w_name, settings.w_multilingual, settings.w_exact, settings.w_structure,
                   settings.w_attributes)

    def without(self, signal: str) -> Weights:
        """These weights with one signal's set to 0 (an ablation)."""
        return Weights(**{**self.__dict__, signal: 0.0})

    @classmethod
    def only(cls, signal: str) -> Weights:
        """Weight 1 on one signal, 0 elsewhere (a single-signal row)."""
        return cls(**{name: float(name == signal) for name in SIGNALS})


SIGNALS = ("name", "multilingual", "exact", "structure", "attributes")


def rank(signals: Signals, weights: Weights, allowed: Collection[str] | None = None) -> Ranking:
    """Every source's candidates (only ``allowed`` targets when given) by fused score, best first (ties by id)."""
    out: Ranking = {}
    # the fused score, written out here (no call per pair): millions of pairs per bootstrap round
    wn, wm, we, ws, wa = weights.name, weights.multilingual, weights.exact, weights.structure, weights.attributes
    for s, targets in signals.items():
        scored = [(t, wn * p.name + wm * p.multilingual + we * p.exact + ws * p.structure / (1.0 + p.structure)
                   + wa * p.attributes) for t, p in targets.items() if allowed is None or t in allowed]
        scored.sort(key=lambda x: (-x[1], x[0]))
        out[s] = scored
    return out
