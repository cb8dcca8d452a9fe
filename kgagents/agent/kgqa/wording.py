"""Which question words name which relation step, learned from the path memory — so the memory's vote can be put
in the order the question names its relations.

The memory finds a question's nearest learned phrasings by a sentence vector, and a sentence vector barely knows
word order: "the job of X's children's parents" and "the job of X's parents' children" are close neighbours, yet
their paths are ``children → parents → profession`` and ``parents → children → profession``. The order is in the
words, so it is read from them:

* **learned** (from the memory's examples, which come from train questions only): a table t(word | step) by IBM
  Model 1 EM over the (masked question, path) pairs, with a NULL step for words that name no relation — which
  words name which step, in which direction, whatever the KG's relations are called;
* **the reading order** is learned too: the question's words are read in one of a few orders (left to right, right
  to left, or *outward* — the words after the topic X left to right, then the words before it right to left, as
  in "the job of the parents of X's children"). Each learned phrasing reads in the order under which its own path
  fits its words best, and a question reads in the order of the phrasings that voted for it ("the films directed
  by X were written by who" reads left to right, "the job of X's children's parents" outward); the KG's order
  (the one most learned paths fit best) when none voted;
* **a path's fit** is how well it explains the words in that order: each word is emitted by the current step or
  by NULL, and the current step only moves forward along the path (a step may name no word, as in "grandfather"
  one word stands for two): the best such alignment's Σ log(½ t(word | step) + ½ t(word | NULL)), by dynamic
  programming. A path in the wrong order must emit a relation's word from another step, which costs.

:meth:`Wording.reweight` shares each path length's vote among its paths by fit: a path's share times
exp((fit − best fit of its length) / ``temperature``), renormalised so each length keeps its vote — the memory
says which relations (and how many) a question of this kind takes, the wording which order they come in. Paths of
different lengths are not compared (a shorter path has fewer terms to lose on).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from kgagents.agent.kgqa.paths import PathKey
from kgagents.agent.kgqa.questions import PLACEHOLDER

#: EM iterations (Model 1 converges in a handful)
ITERATIONS = 15
#: probability floor for a word neither its step nor NULL was seen to emit
FLOOR = 1e-6
#: what a step that emits no word of its own costs (a probability): rare, since each relation is usually named
SKIP = 1e-3
#: the source that emits the words naming no relation ("what", "the", "of")
NULL = "\x00null"
#: learned examples (distinct masked question and path) the reading order is chosen on
ORDER_SAMPLE = 2000

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(masked: str) -> tuple[list[str], int]:
    """The lower-cased words of a masked question and the index of its topic placeholder among them (−1 if none)."""
    tokens = _WORD.findall(masked)
    topic = next((i for i, t in enumerate(tokens) if t == PLACEHOLDER), -1)
    return [t.lower() for t in tokens if t != PLACEHOLDER], topic


def _forward(tokens: list[str], topic: int) -> list[str]:
    return tokens


def _backward(tokens: list[str], topic: int) -> list[str]:
    return tokens[::-1]


def _outward(tokens: list[str], topic: int) -> list[str]:
    if topic < 0:
        return tokens
    return tokens[topic:] + tokens[:topic][::-1]


#: the reading orders a KG's questions may follow (chosen by how well learned paths align under each)
ORDERS: dict[str, Callable[[list[str], int], list[str]]] = {"outward": _outward, "forward": _forward,
                                                            "backward": _backward}


def _named(steps: int, tokens: int) -> float:
    """The share of a question's words that name its steps (one word per step, at most all but one)."""
    return min(steps, max(tokens - 1, 1)) / max(tokens, 1)


class Wording:
    """t(word | step), with a NULL step for the words that name no relation, and the reading order, learned from
    (masked question, path, weight) examples."""

    def __init__(self, table: Mapping[str, Mapping[str, float]], order: str) -> None:
        self.table = table
        self.order = order
        self._orders: dict[tuple[str, PathKey], str] = {}

    @classmethod
    def learn(cls, examples: Sequence[tuple[str, PathKey, float]]) -> Wording:
        """Model 1 EM over ``examples`` (masked question, path, weight), then the best reading order. A word is
        aligned to NULL with prior probability 1 − m/n (m steps, n words: each step names about one word), so the
        words that name no relation go to NULL, not to whichever steps are frequent."""
        data = [(words(m), tuple(p), w) for m, p, w in examples if p]
        vocabulary = {t for (tokens, _), _, _ in data for t in tokens}
        uniform = 1.0 / max(len(vocabulary), 1)
        table: dict[str, dict[str, float]] = {}
        for _ in range(ITERATIONS):
            counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
            for (tokens, _), path, weight in data:
                steps = list(dict.fromkeys(path))
                named = _named(len(path), len(tokens))
                sources = [*steps, NULL]
                priors = [named / len(steps)] * len(steps) + [1.0 - named]
                for t in tokens:
                    emits = [p * (table[s].get(t, 0.0) if table else uniform) for s, p in zip(sources, priors,
                                                                                             strict=True)]
                    norm = sum(emits)
                    if norm <= 0:
                        continue
                    for s, e in zip(sources, emits, strict=True):
                        counts[s][t] += weight * e / norm
            table = {s: {t: c / sum(row.values()) for t, c in row.items()} for s, row in counts.items()}
        wording = cls(table, "outward")
        sample = data[:: max(1, len(data) // ORDER_SAMPLE)]
        fits = {name: sum(wording.fit(path, order(tokens, topic)) for (tokens, topic), path, _ in sample)
                for name, order in ORDERS.items()}
        wording.order = max(fits, key=lambda name: (fits[name], name == "outward"))
        return wording

    def fit(self, path: PathKey, sequence: Sequence[str]) -> float:
        """How well ``path`` explains ``sequence`` read in order (see the module docstring): each word emitted by
        the current step (log (m/n)·t(word | step)) or by NULL (log (1 − m/n)·t(word | NULL)); the current step
        moves only forward, and a step that emits no word of its own costs ``log SKIP``."""
        if not path or not sequence:
            return 0.0
        named = _named(len(path), len(sequence))
        null = self.table.get(NULL, {})
        skip = math.log(SKIP)
        m = len(path)
        # state (k, used): current step k, whether it has emitted a word of its own; start before step 0
        best = {(k, False): k * skip for k in range(m)}
        for word in sequence:
            by_null = math.log(max((1.0 - named) * null.get(word, 0.0), FLOOR))
            nxt: dict[tuple[int, bool], float] = {}
            for (k, used), score in best.items():
                for k2 in range(k, m):
                    moved = 0.0 if k2 == k else (0.0 if used else skip) + (k2 - k - 1) * skip
                    carried = used if k2 == k else False
                    by_step = math.log(max(named / m * self.table.get(path[k2], {}).get(word, 0.0), FLOOR))
                    for state, value in (((k2, True), score + moved + by_step),
                                         ((k2, carried), score + moved + by_null)):
                        if value > nxt.get(state, -math.inf):
                            nxt[state] = value
            best = nxt
        return max(score + (0.0 if used else skip) + (m - 1 - k) * skip for (k, used), score in best.items())

    def order_of(self, voters: Sequence[tuple[str, PathKey, float]]) -> str:
        """The reading order of the learned phrasings that voted (masked question, path, vote): each votes for
        the order under which its own path fits its words best."""
        votes: dict[str, float] = defaultdict(float)
        for masked, path, vote in voters:
            key = (masked, path)
            if key not in self._orders:
                tokens, topic = words(masked)
                fits = {name: self.fit(path, order(tokens, topic)) for name, order in ORDERS.items()}
                self._orders[key] = max(fits, key=lambda name: (fits[name], name == self.order))
            votes[self._orders[key]] += vote
        return max(votes, key=lambda name: (votes[name], name == self.order)) if votes else self.order

    def reweight(self, shares: Mapping[PathKey, float], masked: str, temperature: float,
                 voters: Sequence[tuple[str, PathKey, float]] = ()) -> dict[PathKey, float]:
        """Each length's vote shared among its paths by fit (see the module docstring), the question's words read
        in the order of the phrasings that ``voters`` (:meth:`order_of`; without them, the KG's order)."""
        out = dict(shares)
        tokens, topic = words(masked)
        sequence = ORDERS[self.order_of(voters) if voters else self.order](tokens, topic)
        for length in {len(k) for k in shares if k}:
            group = {k: v for k, v in shares.items() if len(k) == length}
            if len(group) < 2:
                continue
            fits = {k: self.fit(k, sequence) for k in group}
            top = max(fits.values())
            weighted = {k: v * math.exp((fits[k] - top) / temperature) for k, v in group.items()}
            total = sum(weighted.values())
            if total > 0:
                mass = sum(group.values())
                out.update({k: mass * v / total for k, v in weighted.items()})
        return out
