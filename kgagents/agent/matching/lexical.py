"""Cheap, offline lexical matches found before any embedding or LLM call.

Agent-OM notes that many anatomy matches are "trivial": the two entities share a label or synonym.
Spending the LLM on them is waste, so they are found here with three increasingly lenient keys over
every label and synonym of an entity:

1. ``exact``  — camelCase split, lowercase, punctuation and ``_`` to spaces (``AmountOfSubstance`` =
   ``Amount of substance``);
2. ``bag``    — the set of words without stop words, simple plural ``-s`` stripped, order ignored
   ("apex of the heart" = "heart apex");
3. ``stem``   — the bag of Snowball stems ("tracheal epithelium" = "trachea epithelium"); by default only for a
   stem bag of two or more words: one root's derivations often name different things ("Presentation" /
   "Presenter"), so one shared stem alone is no match.

A pair's tier is the most strict key they share (label-label before label-synonym before
synonym-synonym within a key). A pair is kept only if it is the unique best for *both* entities, so
the result is 1:1 and ambiguous synonyms (one synonym on several classes) do not produce matches.

The keys are computed here (:func:`key_of`) and stored in the graph as shared key nodes; the join runs in
Neo4j (:mod:`kgagents.candidates.keys`) and only the joined pairs come back, to be reduced to 1:1 here.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import snowballstemmer

from kgagents.agent.matching.text import split_camel
from kgagents.candidates.keys import KeySpec, shared_keys, write_keys
from kgagents.embeddings.index import Scope
from kgagents.graph.connection import Graph, Row
from kgagents.names import without_qualifier

STOP_WORDS = frozenset({"of", "the", "and", "or", "a", "an", "in", "to", "for", "on", "at", "by"})
_NON_WORD = re.compile(r"[\W_]+")
KEYS = ("exact", "bag", "stem")
ENTITY_KINDS = ("Class", "Relationship", "Property")
# MatchKey kinds: one per (normaliser, entity kind), so that only entities of one kind share a key.
KEY_KINDS = {f"lex_{key}_{kind}": k for k, key in enumerate(KEYS) for kind in ENTITY_KINDS}


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


def _keyed(entity: LexicalEntity, one_word_stems: bool) -> Iterable[tuple[int, int, str]]:
    """(key index, is-synonym, key text) for every label and synonym of the entity; a ``stem`` key of one stem only
    if ``one_word_stems``."""
    for k, key in enumerate(KEYS):
        for is_syn, texts in ((0, entity.labels), (1, entity.synonyms)):
            for text in texts:
                normalised = key_of(text, key)
                if normalised and (key != "stem" or one_word_stems or " " in normalised):
                    yield k, is_syn, normalised


def lexical_keys(entity: LexicalEntity, one_word_stems: bool = False) -> list[KeySpec]:
    """The entity's keys as stored in the graph: (``lex_<key>_<kind>``, text, is-synonym)."""
    return [(f"lex_{KEYS[k]}_{entity.kind}", text, bool(is_syn))
            for k, is_syn, text in _keyed(entity, one_word_stems)]


def best_tiers(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """source → target → the strictest tier of the keys they share (rows of :func:`shared_keys`)."""
    best: dict[str, dict[str, int]] = defaultdict(dict)
    for row in rows:
        tier = 3 * KEY_KINDS[row["kind"]] + int(row["source_synonym"]) + int(row["target_synonym"])
        if tier < best[row["source"]].get(row["target"], 99):
            best[row["source"]][row["target"]] = tier
    return best


def one_to_one(best: dict[str, dict[str, int]]) -> list[LexicalMatch]:
    """Pairs that are the unique best for both sides: a target may win for only one source at its own best tier."""
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


def _bags(entity: LexicalEntity, *, unqualified: bool = False) -> set[frozenset[str]]:
    """The entity's label and synonym word bags (the ``bag`` key, as sets). ``unqualified``: of the names less their
    parenthesised qualifiers, to learn from — a qualifier is no word of the name ("Cones (Eye)" beside "Cone Cell"
    would teach "eye" → "cell")."""
    return {frozenset(key.split()) for text in (*entity.labels, *entity.synonyms)
            if (key := key_of(without_qualifier(text) if unqualified else text, "bag"))}


def containment_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                        narrow: Narrow | None = None) -> list[LexicalMatch]:
    """Pairs whose label/synonym word bags are equal or differ by one extra word on one side ("Regular author" /
    "Author", "vomer bone" / "Vomer"), kept only where the pair is the only such pair of both entities (1:1).
    Meant for entities nothing else matched: a modifier often names the same concept in one ontology's usage."""
    whole: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)  # (kind, bag) → targets
    less_one: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)  # (kind, bag less one word) → targets
    for t in targets:
        for bag in _bags(t):
            whole[(t.kind, bag)].add(t.uri)
            for word in bag if len(bag) > 1 else ():
                less_one[(t.kind, bag - {word})].add(t.uri)
    found: dict[str, set[str]] = defaultdict(set)
    for e in sources:
        for bag in _bags(e):
            found[e.uri] |= whole.get((e.kind, bag), set()) | less_one.get((e.kind, bag), set())
            for word in bag if len(bag) > 1 else ():
                found[e.uri] |= whole.get((e.kind, bag - {word}), set())
    return _unique_both_ways(found, "contained", narrow)


def head_added(a: LexicalEntity, b: LexicalEntity) -> bool:
    """Whether, wherever a name of one entity is a name of the other plus one word, that word is the longer name's
    last: its head noun, in English's head-final compounds — a "Computer cart" is a cart, not a computer, and a
    "Refrigerant valve" a valve — where an added first word ("Regular author") only narrows the same head."""
    added = False
    for x in (*a.labels, *a.synonyms):
        for y in (*b.labels, *b.synonyms):
            wx, wy = _content_words(x), _content_words(y)
            for longer, shorter in ((wx, set(wy)), (wy, set(wx))):
                if longer and shorter < set(longer) and len(set(longer) - shorter) == 1:
                    if longer[-1] in shorter:
                        return False
                    added = True
    return added


def _content_words(text: str) -> list[str]:
    """A name's words in order as the ``bag`` key reads them (stop words out, singular)."""
    return [_singular(t) for t in words(text) if t not in STOP_WORDS]


def shorter_name(a: LexicalEntity, b: LexicalEntity) -> str | None:
    """The uri of the entity one of whose word bags the other's extends by one word (the more general name, as in
    "Author" / "Regular author"); None if their bags are equal or neither extends the other."""
    bags_a, bags_b = _bags(a), _bags(b)
    if not bags_a.isdisjoint(bags_b):
        return None
    for x in bags_a:
        for y in bags_b:
            if x < y and len(y - x) == 1:
                return a.uri
            if y < x and len(x - y) == 1:
                return b.uri
    return None


def every_best(best: dict[str, dict[str, int]]) -> list[LexicalMatch]:
    """Every pair at its source's or its target's strictest tier (ties kept): the one-to-many counterpart of
    :func:`one_to_one`, for alignments where an entity has several correct counterparts."""
    target_best: dict[str, int] = {}
    for cands in best.values():
        for target, tier in cands.items():
            target_best[target] = min(tier, target_best.get(target, 99))
    return sorted((LexicalMatch(source, target, KEYS[tier // 3], tier)
                   for source, cands in best.items() for target, tier in cands.items()
                   if tier == min(cands.values()) or tier == target_best[target]),
                  key=lambda m: (m.source, m.target))


def lexical_tiers(graph: Graph, source: Scope, target: Scope, sources: Iterable[LexicalEntity],
                  targets: Iterable[LexicalEntity], *, one_word_stems: bool = False) -> dict[str, dict[str, int]]:
    """source → target → strictest tier of the label/synonym keys they share.

    The keys of ``sources`` (nodes of ``source``) and ``targets`` (nodes of ``target``) are written to the graph,
    then joined there; only pairs among the given entities count. ``one_word_stems``: also match names whose stem
    bags are one stem ("Presentation" = "Presenter").
    """
    sources, targets = list(sources), list(targets)
    kinds = list(KEY_KINDS)
    write_keys(graph, source, {e.uri: lexical_keys(e, one_word_stems) for e in sources}, kinds)
    write_keys(graph, target, {e.uri: lexical_keys(e, one_word_stems) for e in targets}, kinds)
    rows = shared_keys(graph, source, target, kinds=kinds, sources=[e.uri for e in sources],
                       targets=[e.uri for e in targets])
    return best_tiers(rows)


def lexical_matches(graph: Graph, source: Scope, target: Scope, sources: Iterable[LexicalEntity],
                    targets: Iterable[LexicalEntity]) -> list[LexicalMatch]:
    """1:1 matches whose shared label/synonym key is the unique best for both sides (see :func:`lexical_tiers`)."""
    return one_to_one(lexical_tiers(graph, source, target, sources, targets))


def _one_word_swaps(a: Iterable[frozenset[str]], b: Iterable[frozenset[str]]) -> Iterable[tuple[str, str]]:
    """(word of a, word of b) for every pair of bags that share a word and differ by exactly one word each."""
    for x in a:
        for y in b:
            only_x, only_y = x - y, y - x
            if len(only_x) == 1 and len(only_y) == 1 and x & y:
                yield next(iter(only_x)), next(iter(only_y))


def learn_substitutions(matched: Iterable[tuple[LexicalEntity, LexicalEntity]],
                        entities: Iterable[LexicalEntity], min_support: int) -> dict[str, set[str]]:
    """Word substitutions the input itself teaches ("spleen" → "splenic", "tract" → "system"), each seen at least
    ``min_support`` times: between the word bags of pairs already matched (source word → target word), and between
    two names of one entity (its label and a synonym, both ways). No word list: everything comes from the data."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for s, t in matched:
        for swap in _one_word_swaps(_bags(s, unqualified=True), _bags(t, unqualified=True)):
            seen[swap] += 1
    for e in entities:
        bags = sorted(_bags(e, unqualified=True), key=sorted)
        for i, x in enumerate(bags):
            for y in bags[i + 1:]:
                for a, b in _one_word_swaps([x], [y]):
                    seen[(a, b)] += 1
                    seen[(b, a)] += 1
    rules: dict[str, set[str]] = defaultdict(set)
    for (a, b), n in seen.items():
        if n >= min_support:
            rules[a].add(b)
    return dict(rules)


def substitution_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                         rules: dict[str, set[str]], narrow: Narrow | None = None) -> list[LexicalMatch]:
    """Pairs whose word bags become equal when one source word is replaced by a learned substitute (see
    :func:`learn_substitutions`: lexical propagation from the matches to the words), 1:1 as in
    :func:`containment_matches`. Meant for entities nothing else matched."""
    index = _bag_index(targets, _bags)
    found: dict[str, set[str]] = defaultdict(set)
    for e in sources:
        for bag in _bags(e):
            found[e.uri] |= _after_one_swap(index, e.kind, bag, rules)
    return _unique_both_ways(found, "substituted", narrow)


def _after_one_swap(index: dict[tuple[str, frozenset[str]], set[str]], kind: str, bag: frozenset[str],
                    rules: dict[str, set[str]]) -> set[str]:
    """The entities of ``index`` whose bag is ``bag`` with one word replaced by a learned substitute."""
    return {uri for word in bag for substitute in rules.get(word, ())
            for uri in index.get((kind, (bag - {word}) | {substitute}), ())}


Phrase = tuple[frozenset[str], frozenset[str]]


def learn_phrases(matched: Iterable[tuple[LexicalEntity, LexicalEntity]], rules: dict[str, set[str]],
                  min_support: int) -> set[Phrase]:
    """Phrase substitutions the matched pairs teach, each seen at least ``min_support`` times: what is left of two
    matched names' differing words once the learned one-word swaps (``rules``) are taken out, one or two words on
    each side and three in all ("serosa" → "serosal surface" from *large intestine serosa* = *Large intestinal
    serosal surface*, with "intestine" → "intestinal" learned). No word list: everything comes from the data."""
    seen: dict[Phrase, int] = defaultdict(int)
    for s, t in matched:
        for x in _bags(s, unqualified=True):
            for y in _bags(t, unqualified=True):
                if not x & y:
                    continue
                only_x, only_y = set(x - y), set(y - x)
                for a in sorted(only_x):
                    b = next((w for w in sorted(only_y) if w in rules.get(a, ())), None)
                    if b is not None:
                        only_x.discard(a)
                        only_y.discard(b)
                if 1 <= len(only_x) <= 2 and 1 <= len(only_y) <= 2 and len(only_x) + len(only_y) >= 3:
                    seen[(frozenset(only_x), frozenset(only_y))] += 1
    return {phrase for phrase, n in seen.items() if n >= min_support}


def phrase_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity], phrases: set[Phrase],
                   rules: dict[str, set[str]], narrow: Narrow | None = None) -> list[LexicalMatch]:
    """Pairs whose word bags become equal when a learned phrase (:func:`learn_phrases`) replaces part of a source
    name — a word of it kept — and at most one learned word substitution follows; 1:1 as in
    :func:`containment_matches`. Meant for entities nothing else matched."""
    index = _bag_index(targets, _bags)
    found: dict[str, set[str]] = defaultdict(set)
    for e in sources:
        for bag in _bags(e):
            for old, new in phrases:
                if not old < bag:
                    continue
                swapped = (bag - old) | new
                found[e.uri] |= index.get((e.kind, swapped), set()) | _after_one_swap(index, e.kind, swapped, rules)
    return _unique_both_ways(found, "substituted", narrow)


def _bag_index(entities: Iterable[LexicalEntity], bags: Callable[[LexicalEntity], set[frozenset[str]]]) -> dict[
        tuple[str, frozenset[str]], set[str]]:
    """(kind, word bag) → the entities with that bag (as ``bags`` gives them)."""
    index: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)
    for e in entities:
        for bag in bags(e):
            index[(e.kind, bag)].add(e.uri)
    return index


def claimants(found: dict[str, set[str]]) -> dict[str, set[str]]:
    """target → the sources whose candidates (``found``: source → targets) hold it."""
    out: dict[str, set[str]] = defaultdict(set)
    for source, targets in found.items():
        for target in targets:
            out[target].add(source)
    return out


def tied(found: dict[str, set[str]]) -> set[str]:
    """The entities of ``found`` with more than one candidate: sources with several targets, targets several sources
    claim (the ones :func:`narrowed` asks about)."""
    return ({s for s, ts in found.items() if len(ts) > 1}
            | {t for t, ss in claimants(found).items() if len(ss) > 1})


def narrowed(found: dict[str, set[str]], supported: Callable[[str, str], bool]) -> dict[str, set[str]]:
    """``found`` (source → its candidate targets) where an entity with several candidates keeps only those
    ``supported`` accepts — all of them when it accepts none —, on the source side and then on the target side.

    Why: a lexical rule refuses a name that fits two entities ("upper lip": "External upper lip" and "Mucosa of the
    upper lip"); the structure often tells which one is meant (the candidate whose neighbour is matched to the
    source's neighbour), and a rule that stays 1:1 after the narrowing stays as precise."""
    out = {s: ({t for t in ts if supported(s, t)} or set(ts)) if len(ts) > 1 else set(ts) for s, ts in found.items()}
    for target, sources in claimants(out).items():
        keep = {s for s in sources if supported(s, target)} if len(sources) > 1 else sources
        for source in sources - keep if keep else ():
            out[source].discard(target)
    return out


#: a lexical rule's tie-break: its candidates (source → targets) narrowed (see :func:`narrowed`)
Narrow = Callable[[dict[str, set[str]]], dict[str, set[str]]]


def _unique_both_ways(found: dict[str, set[str]], key: str, narrow: Narrow | None = None) -> list[LexicalMatch]:
    """The (source, target) pairs where each is the other's only candidate (after ``narrow``, when given)."""
    if narrow is not None:
        found = narrow(found)
    claims = claimants(found)
    return sorted((LexicalMatch(source, next(iter(ts)), key, len(KEYS) * 3) for source, ts in found.items()
                   if len(ts) == 1 and len(claims[next(iter(ts))]) == 1), key=lambda m: (m.source, m.target))


_NUMBER = re.compile(r"^\d+$")
_HYPHEN = re.compile(r"-(\w)")  # joined in lower case, so that no camelCase boundary splits the compound again


def _variant_bags(entity: LexicalEntity) -> set[frozenset[str]]:
    """The entity's word bags and their spelling variants: compounds written as one word, whether hyphenated or
    spaced ("Fore-Brain", "Fore limb", "ForeLimb" = "forebrain", "forelimb"), and a word's initial fused with a
    number that follows it ("thoracic vertebra 1" = "T1 vertebra")."""
    bags = set(_bags(entity))
    for text in (*entity.labels, *entity.synonyms):
        if "-" in text and (key := key_of(_HYPHEN.sub(lambda m: m.group(1).lower(), text), "bag")):
            bags.add(frozenset(key.split()))
        tokens = words(text)
        for i in range(len(tokens) - 1):
            if key := key_of(" ".join([*tokens[:i], tokens[i] + tokens[i + 1], *tokens[i + 2:]]), "bag"):
                bags.add(frozenset(key.split()))
    for bag in list(bags):
        for number in (w for w in bag if _NUMBER.match(w)):
            for word in (w for w in bag if w != number and not _NUMBER.match(w)):
                bags.add((bag - {word, number}) | {word[0] + number})
    return bags


def variant_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                    narrow: Narrow | None = None) -> list[LexicalMatch]:
    """1:1 pairs that share a word bag once spelling variants are added on both sides (see :func:`_variant_bags`).
    Meant for entities nothing else matched."""
    index = _bag_index(targets, _variant_bags)
    found: dict[str, set[str]] = defaultdict(set)
    for e in sources:
        for bag in _variant_bags(e):
            found[e.uri] |= index.get((e.kind, bag), set())
    return _unique_both_ways(found, "variant", narrow)


_ACRONYM = re.compile(r"^[A-Z]{2,}$")


def _acronym_bags(entity: LexicalEntity) -> Iterable[tuple[frozenset[str], frozenset[str]]]:
    """(word bag, its acronyms) for every name of the entity written with an acronym: a word of two or more capitals
    ("Chair_PC", "OC_Member"; camelCase is split first, so "TPCMember" has "TPC")."""
    for text in (*entity.labels, *entity.synonyms):
        acronyms = {t.lower() for t in _NON_WORD.sub(" ", split_camel(text)).split() if _ACRONYM.match(t)}
        if acronyms and (key := key_of(text, "bag")):
            yield frozenset(key.split()), frozenset(acronyms)


def _collapsed_bags(entity: LexicalEntity) -> Iterable[tuple[frozenset[str], str]]:
    """(word bag, initials) for every run of two or more consecutive words of a name written as their initials
    ("Program Committee member" → {pc, member}, "pc")."""
    for text in (*entity.labels, *entity.synonyms):
        content = [_singular(t) for t in words(text) if t not in STOP_WORDS]
        for i in range(len(content)):
            for j in range(i + 2, len(content) + 1):
                initials = "".join(w[0] for w in content[i:j])
                yield frozenset(content[:i] + content[j:]) | {initials}, initials


def acronym_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                    narrow: Narrow | None = None) -> list[LexicalMatch]:
    """1:1 pairs where one entity's name holds an acronym that the other's name spells out, their words otherwise
    equal ("Chair_PC" / "ProgramCommitteeChair", "OC_Member" / "Organizing_Committee_member"). The acronym must be
    written in capitals on one side, so two spelled-out names never match by their initials alone. Meant for
    entities nothing else matched."""
    sources, targets = list(sources), list(targets)
    found: dict[str, set[str]] = defaultdict(set)
    for short, long, forward in ((targets, sources, True), (sources, targets, False)):
        index: dict[tuple[str, frozenset[str]], set[tuple[str, frozenset[str]]]] = defaultdict(set)
        for e in short:
            for bag, acronyms in _acronym_bags(e):
                index[(e.kind, bag)].add((e.uri, acronyms))
        for e in long:
            for bag, initials in _collapsed_bags(e):
                for uri, acronyms in index.get((e.kind, bag), ()):
                    if initials in acronyms:
                        source, target = (e.uri, uri) if forward else (uri, e.uri)
                        found[source].add(target)
    return _unique_both_ways(found, "acronym", narrow)


#: the shortest word a typo is looked for in: shorter words one letter apart are often other words ("lip" / "lid")
TYPO_MIN_LETTERS = 6


def one_typo(a: str, b: str) -> bool:
    """Whether two different words are one typo apart: a letter inserted, dropped or changed, or two neighbouring
    letters swapped (Damerau-Levenshtein distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _deletion_keys(entity: LexicalEntity) -> Iterable[tuple[tuple[str, frozenset[str], str], str]]:
    """((kind, bag less one long word, that word or it less one letter), the word) for the entity's word bags: two
    words one typo apart share one of these keys (a swap of neighbours too: each drops one of the two)."""
    for bag in _bags(entity):
        for word in bag:
            if len(word) >= TYPO_MIN_LETTERS:
                for variant in {word, *(word[:i] + word[i + 1:] for i in range(len(word)))}:
                    yield (entity.kind, bag - {word}, variant), word


def typo_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                 narrow: Narrow | None = None) -> list[LexicalMatch]:
    """1:1 pairs whose label/synonym word bags are equal but for one word of at least :data:`TYPO_MIN_LETTERS`
    letters that is one typo apart ("mammillary body" / "mamillary body", "tibilais cranialis" / "tibialis
    cranialis"). Candidates come from a deletion index (:func:`_deletion_keys`), so names that share no key are
    never compared. Meant for entities nothing else matched."""
    index: dict[tuple[str, frozenset[str], str], set[tuple[str, str]]] = defaultdict(set)
    for t in targets:
        for key, word in _deletion_keys(t):
            index[key].add((t.uri, word))
    found: dict[str, set[str]] = defaultdict(set)
    for e in sources:
        for key, word in _deletion_keys(e):
            found[e.uri] |= {uri for uri, other in index.get(key, ()) if one_typo(word, other)}
    return _unique_both_ways(found, "typo", narrow)


class Contrasts:
    """Words an ontology uses to tell otherwise equal names apart ("left" / "right", "anterior" / "posterior"),
    learned from its own names, no word list: two words contrast when at least ``min_support`` different word bags
    occur with each of them (names that differ only by that word: "left lung" / "right lung"). Two entities of
    different ontologies whose closest names differ by such a word on *both* sides ("ventral auricular vein" /
    "Posterior auricular vein") name different parts, however close their embeddings are."""

    def __init__(self, entities: Iterable[LexicalEntity], min_support: int) -> None:
        self.min_support = min_support
        self._groups: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)  # (kind, bag less w) → words w
        self._rests: dict[tuple[str, str], set[frozenset[str]]] = defaultdict(set)  # (kind, word) → bags less it
        for e in entities:
            for bag in _bags(e):
                for word in bag if len(bag) > 1 else ():
                    self._groups[(e.kind, bag - {word})].add(word)
                    self._rests[(e.kind, word)].add(bag - {word})
        self._known: dict[tuple[str, str], bool] = {}

    def contrasting(self, kind: str, word: str) -> bool:
        """Whether ``word`` contrasts with some other word of the ontology (computed once per word)."""
        key = (kind, word)
        if key not in self._known:
            shared: dict[str, int] = defaultdict(int)
            for rest in self._rests.get(key, ()):
                for other in self._groups[(kind, rest)] - {word}:
                    shared[other] += 1
            self._known[key] = max(shared.values(), default=0) >= self.min_support
        return self._known[key]


def contrast_conflict(a: LexicalEntity, b: LexicalEntity, contrasts: Sequence[Contrasts]) -> bool:
    """Whether the closest names of ``a`` and ``b`` (the two word bags with the fewest words not shared) differ on
    both sides by a word that ``contrasts`` (one per ontology) learned as contrasting."""
    pairs = [(x, y) for x in _bags(a) for y in _bags(b)]
    if not pairs:
        return False
    x, y = min(pairs, key=lambda p: (len(p[0] ^ p[1]), sorted(p[0]), sorted(p[1])))

    def varies(words: frozenset[str]) -> bool:
        return any(c.contrasting(a.kind, w) for w in words for c in contrasts)

    return varies(x - y) and varies(y - x)
