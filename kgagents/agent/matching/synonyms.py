"""General-English synonyms as a matching key: two names that WordNet puts in one synset ("Windshield" /
"Windscreen", "Fire truck" / "Fire engine", "Movie" / "Film").

The lexicon shipped with the package (:data:`LEXICON_FILE`) is derived from Princeton WordNet 3.0's noun database
(its licence beside it, :data:`LICENSE_FILE`) by :func:`build_lexicon`: each noun lemma with its **first sense**
only, and only where that sense's synset has another lemma. The first sense is WordNet's most frequent one (senses
are ordered by their frequency in tagged text); a rarer sense is where an unrestricted lexicon goes wrong on a
domain's vocabulary ("Presenter" / "Sponsor", "Poster" / "Card"), which is why an unrestricted WordNet channel
lost on conference. Two words are synonyms here when their first senses are the same synset.

:func:`synonym_matches` is a lexical rule like the typos and acronyms (:mod:`~kgagents.agent.matching.lexical`):
among entities nothing else matched, 1:1 pairs of one kind whose names are synonyms as a whole ("French fries" /
"Chips") or whose word bags are equal but for one word and its synonym ("automobile maker" / "automobile
manufacturer"). The 1:1 rule (each the other's only candidate) and the later stages (the background's judgement, the
repair) gate it as they gate the other rules. No word list of any task is involved.

:func:`listed_name_matches` is the same rule for names a chat model lists (``llm_synonyms``: "Lorry" for *Truck*,
which WordNet's first senses do not make synonyms): a name listed for one entity that is a name of the other, by
its word bag; 1:1, then always validated (the deterministic rules only with ``validate_lexical_rules``).
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from kgagents.agent.matching.lexical import (
    STOP_WORDS,
    LexicalEntity,
    LexicalMatch,
    Narrow,
    _singular,
    _unique_both_ways,
    key_of,
    words,
)
from kgagents.errors import InputFileError, ParseError

LEXICON_FILE = Path(__file__).with_name("wordnet_first_senses.tsv.gz")
LICENSE_FILE = Path(__file__).with_name("WORDNET_LICENSE")


def build_lexicon(wordnet_dir: Path, out: Path) -> int:
    """Write the first-sense lexicon (``lemma<TAB>synset``, gzipped) from a WordNet database directory
    (``index.noun``, ``data.noun``); returns how many lemmas it holds."""
    index, data = wordnet_dir / "index.noun", wordnet_dir / "data.noun"
    for path in (index, data):
        if not path.is_file():
            raise InputFileError(f"{path}: not found; give a WordNet database directory (index.noun, data.noun)")
    lemma_counts: dict[str, int] = {}
    for number, line in enumerate(data.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if line.startswith(" "):  # the licence header
            continue
        fields = line.split()
        try:
            lemma_counts[fields[0]] = int(fields[3], 16)
        except (IndexError, ValueError) as e:
            raise ParseError(str(data), number, f"not a WordNet data line ({e})") from None
    first: dict[str, str] = {}
    for number, line in enumerate(index.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if line.startswith(" "):
            continue
        fields = line.split()
        try:
            pointers = int(fields[3])
            offset = fields[4 + pointers + 2]  # lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offsets…
        except (IndexError, ValueError) as e:
            raise ParseError(str(index), number, f"not a WordNet index line ({e})") from None
        if lemma_counts.get(offset, 0) > 1:
            first[fields[0]] = offset
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        for lemma in sorted(first):
            f.write(f"{lemma}\t{first[lemma]}\n")
    return len(first)


@lru_cache(maxsize=4)
def lexicon(path: Path = LEXICON_FILE) -> Mapping[str, str]:
    """lemma (lower case, words joined by ``_``) → its first sense's synset."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f if line.strip())


def _sense(text: str, senses: Mapping[str, str]) -> str | None:
    """The first sense of a word or phrase, also of its singular (WordNet's lemmas are singular)."""
    key = "_".join(text.split())
    found = senses.get(key)
    if found is None and key.endswith("s"):
        found = senses.get(key[:-1] if not key.endswith("ies") else key[:-3] + "y")
    return found


def _synonym_keys(entity: LexicalEntity, senses: Mapping[str, str]) -> Iterator[tuple[object, ...]]:
    """Keys two synonymous names share: (kind, the whole name's sense) and, per word, (kind, the other words' bag,
    that word's sense)."""
    for text in (*entity.labels, *entity.synonyms):
        tokens = words(text)
        if not tokens:
            continue
        if (whole := _sense(" ".join(tokens), senses)) is not None:
            yield entity.kind, "whole", whole
        content = [_singular(t) for t in tokens if t not in STOP_WORDS]
        bag = frozenset(content)
        if len(bag) < 2 or len(bag) != len(content):
            continue
        for word in bag:
            if (sense := _sense(word, senses)) is not None:
                yield entity.kind, bag - {word}, sense


def synonym_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                    senses: Mapping[str, str] | None = None, narrow: Narrow | None = None) -> list[LexicalMatch]:
    """1:1 pairs whose names are first-sense synonyms, as a whole or in one word (module docstring). Meant for
    entities nothing else matched."""
    senses = lexicon() if senses is None else senses
    targets = list(targets)
    index: dict[tuple[object, ...], set[str]] = defaultdict(set)
    for t in targets:
        for key in _synonym_keys(t, senses):
            index[key].add(t.uri)
    bags = {t.uri: _bags(t) for t in targets}
    found: dict[str, set[str]] = defaultdict(set)
    for s in sources:
        own = _bags(s)
        for key in _synonym_keys(s, senses):
            # a pair with one name in common is the pre-match's to decide (it declined it as ambiguous), not a synonym
            found[s.uri] |= {t for t in index.get(key, ()) if not own & bags[t]}
    return _unique_both_ways({s: ts for s, ts in found.items() if ts}, "synonym", narrow)


def _bags(entity: LexicalEntity) -> set[str]:
    """The pre-match's word-bag keys of every name of the entity."""
    return {key_of(text, "bag") for text in (*entity.labels, *entity.synonyms)}


def listed_name_matches(sources: Iterable[LexicalEntity], targets: Iterable[LexicalEntity],
                        listed: Mapping[str, Sequence[str]], narrow: Narrow | None = None) -> list[LexicalMatch]:
    """1:1 pairs of one kind where a name ``listed`` for one entity (uri → names, from a chat model) has the word
    bag of a name of the other (module docstring). Two entities that already share a name are the pre-match's to
    decide, as in :func:`synonym_matches`. Meant for entities nothing else matched."""
    sources, targets = list(sources), list(targets)
    bags = {e.uri: _bags(e) for e in (*sources, *targets)}

    def index(entities: list[LexicalEntity]) -> dict[tuple[str, str], set[str]]:
        out: dict[tuple[str, str], set[str]] = defaultdict(set)
        for e in entities:
            for bag in bags[e.uri] - {""}:
                out[e.kind, bag].add(e.uri)
        return out

    by_source, by_target = index(sources), index(targets)
    found: dict[str, set[str]] = defaultdict(set)
    for s in sources:
        for name in listed.get(s.uri, ()):
            found[s.uri] |= by_target.get((s.kind, key_of(name, "bag")), set())
    for t in targets:
        for name in listed.get(t.uri, ()):
            for s_uri in by_source.get((t.kind, key_of(name, "bag")), ()):
                found[s_uri].add(t.uri)
    found = {s: {t for t in ts if not bags[s] & bags[t]} for s, ts in found.items()}  # the indexes keep kinds apart
    return _unique_both_ways({s: ts for s, ts in found.items() if ts}, "llm-synonym", narrow)
