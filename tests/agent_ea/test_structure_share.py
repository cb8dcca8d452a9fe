"""The bootstrap share chosen on held-out pseudo-seeds by the structure channel alone, without a server: a share
that brings a held-out pair's neighbour in wins; when no share changes anything the starting share stays."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kgagents.agent.alignment.fusion import Weights
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairSignals, SignalCollector, Signals
from kgagents.agent.alignment.tuning import structure_share

NAMES = Weights(name=1.0, multilingual=0.0, exact=0.0, structure=0.0, attributes=0.0)


def _collector(edges1: list[tuple[str, str]], edges2: list[tuple[str, str]]) -> SignalCollector:
    """A collector over a hand-made view: two KGs given by their edges (only what the structure pass reads)."""
    def adjacency(edges: list[tuple[str, str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for h, t in edges:
            out.setdefault(h, []).append(t)
            out.setdefault(t, []).append(h)
        return out
    ids2 = ["A", "B", "C", "D"]
    view: Any = SimpleNamespace(ids2=ids2, row2={t: i for i, t in enumerate(ids2)}, neighbours1=adjacency(edges1),
                                neighbours2=adjacency(edges2))
    return SignalCollector(view, RetrievalSettings())


def _signals() -> Signals:
    """Names put every source's own target first; b's is the least certain pair, so only a share of 1.0 has it."""
    margin = {"a": 0.9, "b": 0.3, "c": 0.8, "d": 0.7}
    return {s: {t: PairSignals(name=margin[s] if t == s.upper() else 0.1) for t in "ABCD"} for s in "abcd"}


def test_the_share_that_gives_a_held_out_pair_its_aligned_neighbour_wins() -> None:
    collector = _collector([("a", "b"), ("c", "d")], [("A", "B"), ("C", "D")])
    share, trials = structure_share(collector, _signals(), {}, NAMES, None, [("a", "A")], prior=0.7)
    assert share == 1.0
    by_share = {t["share"]: t["scores"]["hits_at_1"] for t in trials}
    assert by_share[1.0] == 1.0 and by_share[0.5] == 0.0  # 0.5: b → B is not among the pseudo-seeds


def test_when_no_share_changes_the_structure_the_starting_share_stays() -> None:
    collector = _collector([("c", "d")], [("C", "D")])  # the held-out source has no neighbour at all
    share, trials = structure_share(collector, _signals(), {}, NAMES, None, [("a", "A")], prior=0.7)
    assert share == 0.7 and {t["scores"]["hits_at_1"] for t in trials} == {0.0}


def test_a_tie_keeps_the_settings_own_values_and_a_better_trial_wins() -> None:
    from kgagents.agent.alignment.tuning import best_trial

    def trial(share: float, hits: float) -> dict[str, object]:
        return {"share": share, "scores": {"hits_at_1": hits, "mrr": hits}}

    def own(t: dict[str, object]) -> bool:
        return t["share"] == 0.7

    tied = [trial(0.5, 0.99), trial(0.7, 0.99), trial(1.0, 0.99)]
    assert best_trial(tied, ("hits_at_1", "mrr"), own)["share"] == 0.7
    assert best_trial([*tied, trial(1.0, 0.995)], ("hits_at_1", "mrr"), own)["share"] == 1.0
    assert best_trial(tied, ("hits_at_1",), lambda t: False)["share"] == 0.5  # no prior among them: the first
