"""Global one-to-one assignment over the candidate lists.

EA benchmarks are one-to-one, and so are most real merges of two KGs: a target is the counterpart of at most one
source. Ranking each source on its own lets two sources take the same target; this pass resolves such conflicts
over all candidate lists at once. With one score per pair shared by both sides, deferred acceptance (stable
matching) reduces to a greedy pass: take the highest-scoring pair whose source and target are both still free,
repeat. The result is the unique stable matching when scores have no ties (ties are broken by ids, so runs repeat):
no source and target would both rather be matched to each other than to what they got.

The ranked lists stay as they are for the agent; the assigned target moves to the front of its source's list and,
with a taken penalty, targets other sources were assigned move down behind free ones (:func:`assigned_first`).

Before assigning, scores may be rescaled by CSLS (cross-domain similarity local scaling, Conneau et al. 2018):
``2·score − r_s − r_t``, where r_s is the mean of source s's ``k`` best scores and r_t the mean of the ``k`` best
scores any source gives target t. A "hub" target that scores well with many sources is discounted, and a source whose
candidates all score high is compared on their differences (:func:`csls`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

Ranking = Mapping[str, Sequence[tuple[str, float]]]


def csls(ranked: Ranking, k: int) -> dict[str, list[tuple[str, float]]]:
    """``ranked`` with CSLS-rescaled scores (see the module docstring), each list re-sorted (ties by id)."""
    by_target: dict[str, list[float]] = defaultdict(list)
    for ranking in ranked.values():
        for t, score in ranking:
            by_target[t].append(score)
    r_t = {t: sum(sorted(v, reverse=True)[:k]) / min(k, len(v)) for t, v in by_target.items()}
    out = {}
    for s, ranking in ranked.items():
        r_s = sum(score for _, score in ranking[:k]) / min(k, len(ranking)) if ranking else 0.0
        out[s] = sorted(((t, 2 * score - r_s - r_t[t]) for t, score in ranking), key=lambda x: (-x[1], x[0]))
    return out


def stable_assignment(ranked: Ranking) -> dict[str, str]:
    """Source → target, one-to-one, by the greedy stable matching over every (source, target, score) in ``ranked``."""
    # (−score, source, target) tuples sort in C in the order wanted; a key function per pair costs seconds
    pairs = [(-score, s, t) for s, ranking in ranked.items() for t, score in ranking]
    pairs.sort()
    assigned: dict[str, str] = {}
    used: set[str] = set()
    for _, s, t in pairs:
        if s not in assigned and t not in used:
            assigned[s] = t
            used.add(t)
    return assigned


def assigned_first(ranked: Ranking, assignment: Mapping[str, str],
                   taken_penalty: float = 0.0) -> dict[str, list[tuple[str, float]]]:
    """Each source's ranking with its assigned target (if any) moved to the front and the rest ordered by
    ``score − taken_penalty · max(0, owner's score − score)``, where the owner is the source the target was assigned
    to (free targets keep their score). In a one-to-one world a target its owner wants much more than this source does
    is unlikely to be this source's counterpart, so it yields its place to one no other source took; 0 keeps the
    fused order. Scores stay the fused ones: only the order changes."""
    owned = {t: score for s, t in assignment.items() for x, score in ranked.get(s, ()) if x == t}
    out = {}
    for s, ranking in ranked.items():
        t = assignment.get(s)
        rest = [x for x in ranking if x[0] != t]
        if taken_penalty:
            rest = sorted(rest, key=lambda x: -(x[1] - taken_penalty * max(0.0, owned.get(x[0], x[1]) - x[1])))
        out[s] = [x for x in ranking if x[0] == t] + rest
    return out
