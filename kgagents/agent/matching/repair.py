"""Alignment repair against the two ontologies' own hierarchy and disjointness (LogMap's and AML's check, greedy).

Read as equivalences, a set of pairs can make an ontology say something false about itself. Two kinds of conflict
are checked here, between a pair (s, t) and a pair (s', t') already kept, where s' is s or an ancestor or descendant
of s (and the same on the other side):

* **disjointness** — s and s' are comparable but t and t' are disjoint (some ancestor-or-self of t is declared
  ``owl:disjointWith`` some ancestor-or-self of t'), so one class becomes unsatisfiable; and the mirror case;
* **crossing** — s' is strictly above s but t' strictly below t (or the other way round), so the mapping collapses
  part of a hierarchy (it violates the conservativity principle LogMap checks);
* **domain / range** — two properties with one domain (range) class each, where a kept pair maps one's domain
  (range) to a class disjoint with the other's: the merged property could hold between nothing.

Last, :func:`unrelated_ends` checks every property pair against the final class pairs, the trusted ones too: two
equivalent properties hold between the same things, so where the alignment maps one property's domain (range) only to
classes unrelated to the other's — neither the same class nor above or below it — the pair goes ("hasPhone" of a
Person / "hasPhone" of a ContactInformation, when Person is matched to Person).

Pairs are taken most trusted first (the caller orders them); a pair conflicting with a kept one is dropped. The
lexical pre-match's pairs are trusted (kept unchecked, checked against): on OAEI anatomy the reference itself holds
label-identical pairs that conflict with the human ontology's disjointness axioms. No threshold: the only input is
what the ontologies assert (SCO / SPO and DISJOINT_WITH edges).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass
class Hierarchy:
    """One ontology's named-entity hierarchy (direct parents) and declared disjoint pairs."""

    parents: Mapping[str, Iterable[str]]
    disjoint: Mapping[str, Iterable[str]] = field(default_factory=dict)
    domains: Mapping[str, Iterable[str]] = field(default_factory=dict)  # property → its domain classes
    ranges: Mapping[str, Iterable[str]] = field(default_factory=dict)  # property → its range classes
    _up: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False)
    _down: dict[str, set[str]] | None = field(default=None, init=False, repr=False)
    _disjoint: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        """Disjointness is symmetric, whichever end declared it."""
        both: dict[str, set[str]] = defaultdict(set)
        for a, others in self.disjoint.items():
            for b in others:
                both[a].add(b)
                both[b].add(a)
        self._disjoint = dict(both)

    def ancestors(self, uri: str) -> frozenset[str]:
        """Strict ancestors (transitive; cycles, e.g. declared equivalent classes, are tolerated)."""
        if uri not in self._up:
            seen: set[str] = set()
            todo = list(self.parents.get(uri, ()))
            while todo:
                p = todo.pop()
                if p not in seen:
                    seen.add(p)
                    todo.extend(self._up.get(p, self.parents.get(p, ())))
            seen.discard(uri)
            self._up[uri] = frozenset(seen)
        return self._up[uri]

    def descendants(self, uri: str) -> set[str]:
        if self._down is None:
            down: dict[str, set[str]] = defaultdict(set)
            for child in list(self.parents):
                for a in self.ancestors(child):
                    down[a].add(child)
            self._down = down
        return self._down.get(uri, set())

    def has_children(self, uri: str) -> bool:
        return bool(self.descendants(uri))

    def are_disjoint(self, a: str, b: str) -> bool:
        """True if an ancestor-or-self of ``a`` is declared disjoint with an ancestor-or-self of ``b``."""
        if not self._disjoint:
            return False
        above_b = self.ancestors(b) | {b}
        return any(not above_b.isdisjoint(self._disjoint.get(x, ())) for x in self.ancestors(a) | {a})


def repair(trusted: Iterable[tuple[str, str]], pairs: Iterable[tuple[str, str]], source: Hierarchy,
           target: Hierarchy) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(kept, dropped) of ``pairs``, taken in the given order (most trusted first), each dropped if it conflicts with
    a ``trusted`` pair or one kept before it (see the module docstring). ``trusted`` pairs are kept unchecked."""
    kept: list[tuple[str, str]] = []
    dropped: list[tuple[str, str]] = []
    by_source: dict[str, set[str]] = defaultdict(set)
    by_target: dict[str, set[str]] = defaultdict(set)
    for s, t in trusted:
        by_source[s].add(t)
        by_target[t].add(s)
    for s, t in pairs:
        if (_conflicts(s, t, source, target, by_source) or _conflicts(t, s, target, source, by_target)
                or _ends_conflict(s, t, source, target, by_source, by_target)):
            dropped.append((s, t))
            continue
        kept.append((s, t))
        by_source[s].add(t)
        by_target[t].add(s)
    return kept, dropped


def _conflicts(s: str, t: str, mine: Hierarchy, theirs: Hierarchy, kept: Mapping[str, set[str]]) -> bool:
    """Whether (s, t) conflicts with a kept pair whose ``mine``-side entity is s or comparable with s."""
    above, below = mine.ancestors(s), mine.descendants(s)
    t_above: frozenset[str] | None = None
    t_below: set[str] | None = None
    for other, relation in ((s, "self"), *((a, "above") for a in above), *((d, "below") for d in below)):
        for t2 in kept.get(other, ()):
            if t2 == t:
                continue
            if theirs.are_disjoint(t, t2):
                return True
            if relation == "above":  # s' above s, so t' must not be strictly below t
                t_below = theirs.descendants(t) if t_below is None else t_below
                if t2 in t_below:
                    return True
            elif relation == "below":  # s' below s, so t' must not be strictly above t
                t_above = theirs.ancestors(t) if t_above is None else t_above
                if t2 in t_above:
                    return True
    return False


def _ends_conflict(p: str, q: str, source: Hierarchy, target: Hierarchy, by_source: Mapping[str, set[str]],
                   by_target: Mapping[str, set[str]]) -> bool:
    """Whether a kept pair maps the sole domain (range) of property ``p`` to a class disjoint with that of ``q``, or
    the other way round."""
    for ends in ("domains", "ranges"):
        d, e = _sole(getattr(source, ends), p), _sole(getattr(target, ends), q)
        if d is None or e is None:
            continue
        if any(target.are_disjoint(x, e) for x in by_source.get(d, ())):
            return True
        if any(source.are_disjoint(x, d) for x in by_target.get(e, ())):
            return True
    return False


def _sole(ends: Mapping[str, Iterable[str]], uri: str) -> str | None:
    """The property's only domain (or range) class; None for none or a union of several."""
    found = list(ends.get(uri, ()))
    return found[0] if len(found) == 1 else None


def unrelated_ends(pairs: Iterable[tuple[str, str]], source: Hierarchy,
                   target: Hierarchy) -> list[tuple[str, str]]:
    """The property pairs of ``pairs`` where the class pairs of ``pairs`` map one property's domain (or range)
    classes only to classes unrelated to the other property's (in either direction; see the module docstring).
    A property without declared ends, or ends the alignment does not map, is never dropped."""
    pairs = list(pairs)
    forward: dict[str, set[str]] = defaultdict(set)
    backward: dict[str, set[str]] = defaultdict(set)
    for s, t in pairs:
        forward[s].add(t)
        backward[t].add(s)
    dropped = []
    for s, t in pairs:
        for ends in ("domains", "ranges"):
            mine, theirs = set(getattr(source, ends).get(s, ())), set(getattr(target, ends).get(t, ()))
            if mine and theirs and (_unrelated(mine, theirs, forward, target)
                                    or _unrelated(theirs, mine, backward, source)):
                dropped.append((s, t))
                break
    return dropped


def _unrelated(ends: set[str], others: set[str], mapped: Mapping[str, set[str]], hierarchy: Hierarchy) -> bool:
    """Whether ``ends`` are mapped (some of them) and every class they map to is unrelated to each of ``others``
    in ``hierarchy``: not the same class, not above it, not below it."""
    images = {x for c in ends for x in mapped.get(c, ())}
    return bool(images) and not any(x == y or x in hierarchy.ancestors(y) or y in hierarchy.ancestors(x)
                                    for x in images for y in others)
