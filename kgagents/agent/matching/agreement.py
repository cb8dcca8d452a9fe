"""The background as a judge of the other stages' pairs: a veto where it places two entities apart, and a check of
each stage against it on the run's own data.

The pre-match and the background decide first; retrieval, structural propagation and the lexical rules then work
on the entities left, where the easy pairs are gone and a stage can be much less precise than on a task without
background. The background can judge many of their pairs, because it assigns entities to *mediators* (a bridge's
classes: an equivalence, or the entity stated below the mediator; a cross-reference assigns nothing). Distinct
identifiers of one vocabulary name distinct classes (the unique-name assumption a vocabulary of accession ids is
built on), so when the background assigns a source and a target entity to mediators of one vocabulary and no
background path relates the two (:mod:`~kgagents.agent.matching.background`: not one mediator,
not one below the other where a file states the mediators' hierarchy), it places them apart:

* the **veto** drops such a pair (:func:`judge_matches`);
* the **stage check** counts, per stage, the pairs the background judges — related (agree) or placed apart
  (disagree) — and when a stage disagrees with the background significantly more often than not (a one-sided
  binomial test of agreement against one half at the gates' 5 % level,
  :data:`~kgagents.agent.gating.SIGNIFICANCE`), the stage is not trusted on this task: its pairs the
  background does not relate are dropped too, not only those it contradicts.

A pair the veto or the stage check would drop is kept where the alignment corroborates it structurally
(:func:`corroborated`, setting ``background_corroboration``): at least :data:`CORROBORATION` pairs of its structural
neighbours (super/sub classes, part-of fillers) are matched among the pairs the judgement keeps. The background's
verdict is one piece of evidence against the pair; matched neighbour pairs are evidence for it that the background
did not object to. One matched neighbour pair is what the structural propagation already needs to accept a pair at
all, so only evidence beyond that overrides the background: two pairs. The bridges the veto relies on map
species-specific classes to their own choice among near-identical mediators ('brain meninx' / 'cerebral meninges'),
where the neighbourhood still lines up.

The lexical pre-match and the background's own pairs are not judged (they decide before the others; the repair
trusts them too). Without background, or with a background that ties only one side, nothing is judged and nothing
changes. No word, id prefix or threshold of any dataset is involved: the test's level is the conventional 5 %.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgagents.agent.gating import SIGNIFICANCE, chance

#: matched structural neighbour pairs that keep a pair the background's judgement would drop (module docstring)
CORROBORATION = 2
#: stages never judged: the lexical pre-match's keys (the repair trusts them too) and the background's own pairs
UNJUDGED_PREFIXES = ("lexical:exact", "lexical:bag", "lexical:stem", "background:")
#: a local name ``PREFIX_ACCESSION`` whose accession holds a digit (the background loader's identity rule)
_ACCESSION = re.compile(r"^([A-Za-z][A-Za-z0-9.\-]*)_[A-Za-z]*\d[\w.\-]*$")


def vocabulary(uri: str) -> str:
    """The vocabulary a mediator's identifier belongs to: an accession id's IRI up to its prefix
    (``…/obo/UBERON_0001062`` → ``…/obo/UBERON``), else the IRI's namespace (up to its last ``#`` or ``/``)."""
    cut = max(uri.rfind("#"), uri.rfind("/"))
    namespace, local = uri[: cut + 1], uri[cut + 1 :]
    found = _ACCESSION.match(local)
    return namespace + found.group(1) if found else namespace


def vocabularies(ties: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Entity → the vocabularies of the mediators the background ties it to, from rows ``{uri, mediators}``."""
    return {row["uri"]: sorted({vocabulary(m) for m in row["mediators"]}) for row in ties}


def stage_of(match: Mapping[str, Any]) -> str:
    """The stage that accepted a match: its first channel, the retrieval channels as one stage."""
    first = match["channels"][0] if match.get("channels") else ""
    return first if ":" in first or first == "structural" else "retrieval"


def judged(match: Mapping[str, Any]) -> bool:
    """Whether the background judges this match's stage (module docstring)."""
    return not stage_of(match).startswith(UNJUDGED_PREFIXES)


def below_half(agreed: int, judged_pairs: int) -> bool:
    """Whether ``agreed`` of ``judged_pairs`` is significantly below one half: chance alone, each pair placed apart
    with probability 1/2, gives that many disagreements less often than the 5 % level."""
    return chance(judged_pairs - agreed, agreed, 0.5) < SIGNIFICANCE


@dataclass(frozen=True)
class StageCheck:
    """One stage's pairs as the background judged them on this run, and what was dropped."""

    stage: str
    pairs: int
    agreed: int  # related by the background
    disagreed: int  # placed apart by the background: vetoed
    distrusted: bool  # significantly more disagreed than agreed: its unrelated pairs dropped too
    dropped: int
    corroborated: int = 0  # pairs the judgement would drop, kept for matched neighbour pairs (:func:`corroborated`)


def verdict(pair: tuple[str, str], related: Mapping[str, str], ties: Mapping[str, list[str]]) -> bool | None:
    """True: the background relates the pair; False: it places the two apart (tied to mediators of one
    vocabulary, and no path between them); None: it says nothing about the pair."""
    if f"{pair[0]}\t{pair[1]}" in related:
        return True
    if set(ties.get(pair[0], ())) & set(ties.get(pair[1], ())):
        return False
    return None


def corroborated(pair: tuple[str, str], anchors: Collection[tuple[str, str]],
                 neighbours: Mapping[str, Collection[str]], needed: int = CORROBORATION) -> bool:
    """Whether at least ``needed`` pairs of the two entities' structural neighbours are among ``anchors``."""
    s_near, t_near = neighbours.get(pair[0], ()), neighbours.get(pair[1], ())
    return sum((x, y) in anchors for x in s_near for y in t_near) >= needed


def judge_matches(
    matches: list[dict[str, Any]],
    related: Mapping[str, str],
    ties: Mapping[str, list[str]],
    *,
    veto: bool = True,
    stage_check: bool = True,
    neighbours: Mapping[str, Collection[str]] | None = None,
) -> tuple[list[dict[str, Any]], list[StageCheck]]:
    """The matches less those the background vetoes (``veto``) and, for a stage it distrusts (``stage_check``),
    less that stage's pairs it does not relate; with one :class:`StageCheck` per judged stage. With ``neighbours``
    (entity → its structural neighbours), a pair to drop is kept where it is :func:`corroborated` by the pairs
    kept otherwise."""
    verdicts = {i: verdict((m["source"], m["target"]), related, ties) for i, m in enumerate(matches) if judged(m)}
    stages: dict[str, list[int]] = {}
    for i in verdicts:
        stages.setdefault(stage_of(matches[i]), []).append(i)
    judgement: dict[str, tuple[int, int, bool, set[int]]] = {}
    for stage, members in sorted(stages.items()):
        agreed = sum(verdicts[i] is True for i in members)
        disagreed = sum(verdicts[i] is False for i in members)
        distrusted = stage_check and below_half(agreed, agreed + disagreed)
        dropped = {i for i in members if (veto and verdicts[i] is False) or (distrusted and verdicts[i] is not True)}
        judgement[stage] = (agreed, disagreed, distrusted, dropped)
    drop = {i for *_, dropped in judgement.values() for i in dropped}
    kept: set[int] = set()
    if neighbours is not None:
        anchors = {(m["source"], m["target"]) for i, m in enumerate(matches) if i not in drop}
        kept = {i for i in drop if corroborated((matches[i]["source"], matches[i]["target"]), anchors, neighbours)}
    checks = [StageCheck(stage, len(stages[stage]), agreed, disagreed, distrusted, len(dropped - kept),
                         len(dropped & kept))
              for stage, (agreed, disagreed, distrusted, dropped) in judgement.items()]
    return [m for i, m in enumerate(matches) if i not in drop - kept], checks


def blind_duplicates(candidates: Iterable[tuple[str, str]], matched: Iterable[tuple[str, str]],
                     ties: Mapping[str, list[str]], covered: tuple[set[str], set[str]],
                     defined: Collection[str] | None = None) -> list[tuple[str, str]]:
    """The one-to-many pairs the background is blind to, among ``candidates`` (source, target pairs sharing the
    pre-match's strictest label/synonym key): one entity already in ``matched`` and tied to a mediator vocabulary
    that also ties entities of the other ontology (``covered``: the vocabularies tying the source side, the target
    side), the other entity unmatched and tied to nothing. A bridge maps each of its classes to one class of an
    ontology, so an ontology's near-duplicate of a class ("Talus" / "Astragalus") is the one left untied while the
    background covers the rest of its ontology; the name it shares with the matched entity is then the evidence. An
    unmatched entity with two such candidates gets neither. With ``defined`` (the entities a file defines by a
    mediator: an equivalence, not only stated below one), the matched entity must be one of them: a defined entity
    has one identity to pass on, while one only placed below a mediator may list among its names a narrower class
    the other ontology keeps apart (NCIT lists "internal spermatic artery" as a name of *Spermatic_Artery*; MA has
    it as a class of its own). Without background nothing is tied and nothing found."""
    pairs = set(matched)
    taken = {s for s, _ in pairs} | {t for _, t in pairs}
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for s, t in candidates:
        for new, old, side in ((t, s, 1), (s, t, 0)):
            if (s, t) not in pairs and new not in taken and old in taken and not ties.get(new) \
                    and set(ties.get(old, ())) & covered[side] and (defined is None or old in defined):
                found[new].add((s, t))
    return sorted(next(iter(p)) for p in found.values() if len(p) == 1)
