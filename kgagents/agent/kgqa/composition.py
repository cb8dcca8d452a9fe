"""A question worded as nested noun phrases, read as its relation chain without a model.

Why: English composes a relation chain in two ways, "the place of birth of the father of X" (``of`` nests outwards:
the last relation is named first) and "X's father's place of birth" (possessives run forwards from X), and mixes
them: "the place of birth of X's other half's father" is ``spouse → parents → place of birth``. The path scorer
compares a question with each path's text as one sentence vector, which keeps little of this order, and on a
family KG, where every path takes the same few relations, order is what tells the paths apart (the local 1.5B
model writes such a chain in the right order for about one question in five).

:func:`pieces` splits a question (its topic masked) at ``of`` and ``'s`` into the relation mentions in the order
the chain takes them, or returns None when the question is not such a noun phrase (a mention holding a verb's
function word — "the films directed by the director of X" — or a topic not at the end of an ``of`` nest or the
start of a possessive run). :func:`parsed_chain` names each mention's relation: the KG relation whose label is
closest to it (cosine in the path scorer's space). A mention with a "co-" word ("co-stars", "film co-writers")
takes its relation there and back: the people who share it with X. Where ``of`` may sit inside a label ("place of
birth"), the split whose mentions come closest to labels on average is taken. Only English's question frames,
determiners and closed-class words are known here; nothing names a dataset's relations.

:func:`shares_a_value` reads the other English cue the sentence vector misses: "the same director as X", "films
that share actors with X", "co-starred with X" ask for the things that share a value with X, a relation taken there
and back (:func:`there_and_back`), which the one-relation path to the value itself outscores.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kgagents.agent.kgqa.paths import PathKey, readable, split_step
from kgagents.agent.kgqa.questions import PLACEHOLDER

#: a question's frame before the noun phrase it asks about ("what is the", "who was", "what is the name of")
_FRAME = re.compile(r"^(?:(?:what|who|whom|which)\s+(?:is|are|was|were)\s+)?(?:(?:the|a|an)\s+)?"
                    r"(?:names?\s+of\s+)?")
#: "which nationality is X's spouse": the frame names the last relation
_WHICH = re.compile(r"^(?:what|which)\s+(?!is\b|are\b|was\b|were\b)(.+?)\s+(?:is|are|was|were)\s+(.+)$")
_DETERMINER = re.compile(r"^(?:the|a|an)\s+")
#: "co-stars of X": the people who share the relation with X (the relation there and back)
_CO = re.compile(r"\bco-")
#: English closed-class words no relation mention holds: a question with one in a mention is not a noun phrase
#: chain ("the films directed by", "who acted in")
FUNCTION_WORDS = frozenset(
    "a an and are as at be been by can could did do does for from had has have how in into is on or that to was "
    "were what when where which who whom whose why will with would".split())


@dataclass(frozen=True)
class Pieces:
    """A question split at ``'s`` and ``of`` around its topic, in chain order: ``possessive``, the pieces after the
    topic ("X's father's place of birth": father, place of birth); ``nested``, the ``of`` pieces before it,
    innermost first ("the place of birth of the father of X": father, birth, place — where ``of`` may sit inside a
    label, :func:`segmentations` joins them)."""

    possessive: tuple[str, ...]
    nested: tuple[str, ...]


def _normalised(masked_question: str) -> str:
    """Lowercase, one space between words, no "?", a typographic apostrophe plain and "'s" its own word."""
    text = " ".join(masked_question.replace("?", " ").replace("\u2019", "'").lower().split())
    return re.sub(r"\s*'s\b", " 's", text)


def pieces(masked_question: str, placeholder: str = PLACEHOLDER) -> Pieces | None:
    """The question's pieces (see :class:`Pieces`); None when it is not a nested noun phrase around its topic."""
    text = _normalised(masked_question)
    topic = placeholder.lower()
    which = _WHICH.match(text)
    if which and topic not in which.group(1).split() and " of " not in f" {which.group(1)} ":
        text = f"{which.group(1)} of {which.group(2)}"
    elif which:
        return None  # "what sort of film is X": the frame's noun is a kind, not a relation
    else:
        text = _FRAME.sub("", text, count=1)
    words = text.split()
    if words.count(topic) != 1:
        return None
    at = words.index(topic)
    left = re.sub(r"\s+(?:the|a|an)$", "", " ".join(words[:at]))  # "the X's father"
    right = " ".join(words[at + 1:])
    if (left and not re.search(r"(?:^|\s)of$", left)) or (right and not right.startswith("'s")):
        return None
    nested = [_DETERMINER.sub("", p.strip()) for p in re.split(r"\bof\b", left)][:-1] if left else []
    possessive = [p.strip() for p in right.split("'s")][1:] if right else []
    found = Pieces(tuple(possessive), tuple(reversed(nested)))
    every = [*found.possessive, *found.nested]
    if not every or any(not p or FUNCTION_WORDS & set(p.split()) for p in every):
        return None
    return found


#: what separates a clause reading's mentions besides :data:`FUNCTION_WORDS`: determiners, "of", possessives
_SEPARATORS = FUNCTION_WORDS | {"the", "of", "'s", "their", "its"}
#: words that open a relative clause ("the films that", "films whose directors") or follow a participle ("directed by")
_RELATIVE = frozenset({"that", "whose", "which", "who", "whom"})
_CLAUSE = _RELATIVE | {"by", "for"}


def clause_pieces(masked_question: str, placeholder: str = PLACEHOLDER) -> Pieces | None:
    """A question whose relations are named by clauses around its topic, read as mentions in chain order: the runs
    of words between closed-class words, those before the topic from the topic outwards, then those after it
    ("who acted in the films directed by the director of X": director, films directed, acted; "the films directed
    by the director of X starred who": director, films directed, starred). None unless a clause opens before
    the topic with a relation's words between them, and at least two runs precede the topic: "films directed by X"
    and "what films did X direct" name one relation, and their noun is the answer's type."""
    tokens = re.findall(r"[a-z][a-z-]*|'s", _normalised(masked_question))
    topic = placeholder.lower()
    if tokens.count(topic) != 1:
        return None
    at = tokens.index(topic)
    # nested: a clause opens before the topic with a relation's words between it and the topic ("the films
    # directed by | the director of X"); a clause on the topic itself ("films directed by X") names one relation
    opens = [i for i in range(1, at) if tokens[i] in _CLAUSE]
    if not any(w not in _SEPARATORS for i in opens for w in tokens[i + 1:at]):
        return None

    def runs(words: list[str], heads: bool = False) -> list[str]:
        out: list[list[str]] = [[]]
        for w in words:
            if w in _SEPARATORS:
                # "the films that ...": one noun a relative clause describes is the things asked for, no relation
                if heads and w in _RELATIVE and len(out[-1]) == 1:
                    out[-1] = []
                out.append([])
            else:
                out[-1].append(w)
        return [" ".join(r) for r in out if r]

    # "the film X": the noun naming the topic's type is no relation ("also directed X" keeps its verb)
    typed = at >= 2 and tokens[at - 1] not in _SEPARATORS and tokens[at - 2] in {"the", "a", "an"}
    before = runs(tokens[:at - 1] if typed else tokens[:at], heads=True)
    after = runs(tokens[at + 1:])
    if len(before) < 2:
        return None
    return Pieces(tuple([*reversed(before), *after]), ())


def segmentations(found: Pieces) -> list[list[str]]:
    """Every way of reading ``found`` as mentions in chain order: the possessive pieces each one mention, and
    adjacent ``of`` pieces either apart or one mention ("birth", "place" → "place of birth")."""
    nested = list(found.nested)
    if not nested:
        return [list(found.possessive)]
    out = []
    for joins in itertools.product((False, True), repeat=len(nested) - 1):
        groups, current = [], [nested[0]]
        for join, piece in zip(joins, nested[1:], strict=True):
            if join:
                current.insert(0, piece)  # chain order is inner first; the words read outer first
            else:
                groups.append(" of ".join(current))
                current = [piece]
        groups.append(" of ".join(current))
        out.append([*found.possessive, *groups])
    return out


@dataclass(frozen=True)
class ParsedChain:
    """A question read as a relation chain: its mentions in chain order, each mention's relation (a relationship
    type of the KG) and cosine with that relation's label."""

    mentions: tuple[str, ...]
    chain: tuple[str, ...]
    similarities: tuple[float, ...]
    directed: bool = True  # the reading says each step's direction ("the R of Y": R from Y); a clause's does not


def parsed_chain(masked_question: str, relations: Mapping[str, str], vectors: Callable[[Sequence[str]], np.ndarray],
                 *, depth: int, clauses: bool = False, placeholder: str = PLACEHOLDER) -> ParsedChain | None:
    """The question's chain (see the module), at most ``depth`` relations; ``relations`` maps each relationship type
    to its label, ``vectors`` gives unit vectors of texts (the path scorer's). ``clauses``: a question that is not
    a nested noun phrase is read by :func:`clause_pieces`. None: neither reading, or more mentions than
    ``depth``."""
    found = pieces(masked_question, placeholder)
    directed = found is not None
    if found is None and clauses:
        found = clause_pieces(masked_question, placeholder)
    if found is None or not relations:
        return None
    types = sorted(relations)
    labels = vectors([readable(relations[t]) for t in types])
    best: ParsedChain | None = None
    best_mean = -np.inf
    for said in segmentations(found):
        shared = [any(w.startswith("co-") for w in m.split()) for m in said]
        if len(said) + sum(shared) > depth:
            continue
        similarity = vectors([_CO.sub("", m) for m in said]) @ labels.T
        chosen = similarity.argmax(axis=1)
        mean = float(similarity.max(axis=1).mean())
        if mean > best_mean:
            best_mean = mean
            twice = [n for n, j in enumerate(chosen) for _ in range(1 + shared[n])]
            best = ParsedChain(tuple(said[n] for n in twice), tuple(types[chosen[n]] for n in twice),
                               tuple(round(float(similarity[n, chosen[n]]), 4) for n in twice), directed)
    return best


#: English words that ask for the things sharing a value with the topic: "the same director as X", "films that
#: share actors with X", "who starred together with X", "the director of X also directed", and any "co-" word
SHARING = frozenset("same share shares shared sharing together also fellow".split())


def shares_a_value(masked_question: str) -> bool:
    """Whether the question asks for things that share a value with its topic (:data:`SHARING`)."""
    words = re.findall(r"[a-z][a-z-]*", masked_question.lower())
    return any(w in SHARING or w.startswith("co-") for w in words)


def question_windows(masked_question: str, placeholder: str = PLACEHOLDER) -> list[str]:
    """The words and adjacent word pairs the naming check reads (:func:`named_relations`): each word that is not a
    closed-class word, each pair not of two closed-class words; the topic and its possessive are not words."""
    topic = placeholder.lower()
    tokens = [topic if w.split("'")[0] == topic else w  # "X's": the topic
              for w in re.findall(r"[a-z][a-z'-]*", masked_question.lower().replace("\u2019", "'"))]
    windows = [w for w in tokens if w not in FUNCTION_WORDS and w != topic]
    windows += [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)
                if topic not in (a, b) and not (a in FUNCTION_WORDS and b in FUNCTION_WORDS)]
    return list(dict.fromkeys(windows))


def named_relations(masked_question: str, relations: Mapping[str, str],
                    vectors: Callable[[Sequence[str]], np.ndarray], *, margin: float,
                    placeholder: str = PLACEHOLDER) -> frozenset[str] | None:
    """The relations the question's words name (None: no word to read, or no relation label): for each of its
    :func:`question_windows`, the relation whose label is closest (cosine by ``vectors``), and any within ``margin``
    of it.

    Why: the path scorer compares the question with a path's text as one sentence vector, and a longer path wins by
    the words its extra relation adds ("who wrote the film X" meets "written by → starred actors (inverse)" better
    than "written by"); a relation no word of the question comes closest to is rarely asked about."""
    windows = question_windows(masked_question, placeholder)
    if not relations or not windows:
        return None
    types = sorted(relations)
    similarity = vectors(windows) @ vectors([readable(relations[t]) for t in types]).T
    close = similarity >= similarity.max(axis=1, keepdims=True) - margin
    return frozenset(types[j] for j in np.flatnonzero(close.any(axis=0)))


def unnamed(path: PathKey, named: frozenset[str]) -> int:
    """How many of the path's distinct relations are not in ``named`` (:func:`named_relations`)."""
    return len({split_step(s)[0] for s in path} - named)


def forwards(path: PathKey) -> bool:
    """Whether the path takes every step forwards, as "the R of Y" reads: (Y, R, ?)."""
    return all(split_step(s)[1] for s in path)


def there_and_back(path: PathKey) -> bool:
    """Whether the path takes a relation and at once comes back along it (to the other things with that value:
    ``directed_by → directed_by^-1`` from a film reaches the films with its director)."""
    steps = [split_step(s) for s in path]
    return any(a[0] == b[0] and a[1] != b[1] for a, b in zip(steps, steps[1:], strict=False))
