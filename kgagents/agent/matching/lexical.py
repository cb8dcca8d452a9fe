"""Cheap, offline lexical matches found before any embedding or LLM call.

Agent-OM notes that many anatomy matches are "trivial": the two entities share a label or synonym.
Spending the LLM on them is waste, so they are found here with three increasingly lenient keys over
every label and synonym of an entity:

1. ``exact``  — camelCase split, lowercase, punctuation and ``_`` to spaces (``AmountOfSubstance`` =
   ``Amount of substance``);
2. ``bag``    — the set of words without stop words, simple plural ``-s`` stripped, order ignored
   ("apex of the heart" = "heart apex");
3. ``stem``   — the bag of Snowball stems ("tracheal epithelium" = "trachea epithelium").

A pair's tier is the most strict key they share (label-label before label-synonym before
synonym-synonym within a key). A pair is kept only if it is the unique best for *both* entities, so
the result is 1:1 and ambiguous synonyms (one synonym on several classes) do not produce matches.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import snowballstemmer

from kgagents.agent.matching.text import split_camel

STOP_WORDS = frozenset({"of", "the", "and", "or", "a", "an", "in", "to", "for", "on", "at", "by"})
_NON_WORD = re.compile(r"[\W_]+")
KEYS = ("exact", "bag", "stem")


@dataclass(frozen=True)
class LexicalEntity:
    """What the lexical matcher needs of one entity."""

    uri: str
    kind: str  # "Class" | "Relationship" | "Property": only equal kinds match
    labels: Sequence[str] = field(default_factory=tuple)
    synonyms: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class LexicalMatch:
    source: str
    target: str
    key: str  # which key matched: exact | bag | stem
    tier: int  # lower is stricter


def words(text: str) -> list[str]:
    """The lowercase words of a label, synonym or name: split at camelCase boundaries (first, while the case is
    still there), ``_``, whitespace and punctuation; letters of any script are kept."""
    return _NON_WORD.sub(" ", split_camel(text).lower()).split()


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def key_of(text: str, key: str) -> str:
    """The normalised form of ``text`` under one of :data:`KEYS`."""
    tokens = words(text)
    if key == "exact":
        return " ".join(tokens)
    content = [t for t in tokens if t not in STOP_WORDS]
    if key == "bag":
        return " ".join(sorted({_singular(t) for t in content}))
    if key == "stem":
        return " ".join(sorted(set(_stemmer().stemWords(content))))
    raise ValueError(f"unknown lexical key {key!r}; expected one of {KEYS}")


def _keyed(entity: LexicalEntity) -> Iterable[tuple[int, int, str]]:
    """(key index, is-synonym, key text) for every label and synonym of the entity."""
    for k, key in enumerate(KEYS):
        for is_syn, texts in ((0, entity.labels), (1, entity.synonyms)):
            for text in texts:
                normalised = key_of(text, key)
                if normalised:
                    yield k, is_syn, normalised


def lexical_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity]) -> list[LexicalMatch]:
    """1:1 matches whose shared label/synonym key is the unique best for both sides."""
    index: dict[tuple[str, int, str], list[tuple[int, str]]] = defaultdict(list)
    for target in targets:
        for k, is_syn, text in set(_keyed(target)):
            index[(target.kind, k, text)].append((is_syn, target.uri))
    best: dict[str, dict[str, int]] = defaultdict(dict)  # source -> target -> tier
    for source in sources:
        for k, is_syn, text in set(_keyed(source)):
            for t_syn, target in index.get((source.kind, k, text), ()):
                tier = 3 * k + is_syn + t_syn
                if tier < best[source.uri].get(target, 99):
                    best[source.uri][target] = tier
    # a target may win for only one source at its own best tier
    target_best: dict[str, int] = {}
    claims: dict[tuple[str, int], int] = defaultdict(int)
    for cands in best.values():
        top = min(cands.values())
        for target, tier in cands.items():
            target_best[target] = min(tier, target_best.get(target, 99))
            if tier == top:
                claims[(target, tier)] += 1
    matches = []
    for source, cands in best.items():
        top = min(cands.values())
        winners = [t for t, tier in cands.items() if tier == top]
        if len(winners) == 1 and target_best[winners[0]] == top and claims[(winners[0], top)] == 1:
            matches.append(LexicalMatch(source, winners[0], KEYS[top // 3], top))
    return sorted(matches, key=lambda m: (m.source, m.target))
