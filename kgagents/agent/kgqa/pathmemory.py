"""The path memory: answered questions teach the agent which relation paths their kind of question takes.

A labelled question ("what movies did [X] act in", answers {A, B, C}) is reduced by weak supervision
(:mod:`supervision`) to the relation path(s) leading from its topic entity to its answers; each becomes one
``(:PathExample)``, linked to the *phrasing* of its question — the question with its topic masked as ``X``, so it
says what is asked, not about whom — whose vector is in the vector index ``path_question_embedding``::

    (:PathExample {kg, id, question_key, question, masked, topic, path: ['starred_actors^-1'], reentry, weight,
                   f1, answers, source, split, learned_at})-[:PHRASED_AS]->(:PathQuestion {kg, key, masked, vector})

``reentry`` says the topic may walk back into the path (learned, see :mod:`supervision`). A new question looks up
the nearest phrasings; each votes for its examples' paths (:func:`vote`; phrasings below
``memory_min_similarity`` do not vote), and a path's *prior* is its share of the votes, shared among paths of one
length by how well their steps follow the question's words in order (:mod:`~kgagents.agent.kgqa.wording`: a
phrasing's vector barely knows word order). The prior joins the path's
score in the observation (and forces its prefixes to be expanded), and is shown to the LLM.

Nothing from a test split may enter the memory: :func:`refuse_test_split` runs before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgagents.agent.kgqa.paths import PathKey
from kgagents.agent.kgqa.wording import Wording
from kgagents.cypher import cypher
from kgagents.embeddings.index import ensure_vector_index
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph

INDEX = "path_question_embedding"
#: candidates asked of the vector index per wanted phrasing (the index holds every KG's phrasings)
SEARCH_FACTOR = 5
#: split names that mark held-out records (never learned from)
TEST_SPLITS = frozenset({"test"})
#: a similarity this close below a threshold still meets it (unit vectors' float rounding: a phrasing asked again)
ROUNDING = 1e-4


class TestSplitError(KgAgentsError):
    """A file given to ``learn`` holds records of a test split."""

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class Example:
    """One learned (question, path) pair, ready to write."""

    question_key: str
    question: str
    masked: str
    topic: str
    path: PathKey
    reentry: bool
    weight: float
    f1: float
    answers: int
    source: str
    split: str | None

    @property
    def id(self) -> str:
        return hashlib.sha256(f"{self.question_key}\x1f{json.dumps([list(self.path), self.reentry])}".encode()
                              ).hexdigest()[:24]


@dataclass
class Prior:
    """A question's memory lookup: the vote share of each path, and the examples that voted."""

    shares: dict[PathKey, float] = field(default_factory=dict)
    reentry: set[PathKey] = field(default_factory=set)
    neighbours: list[dict[str, Any]] = field(default_factory=list)
    #: (masked question, path, vote) of every phrasing path that voted
    voters: list[tuple[str, PathKey, float]] = field(default_factory=list)
    #: the memory had phrasings near the question, but none close enough to vote (see :mod:`calibration`)
    abstained: bool = False
    #: where the voting examples came from: 'labelled' and / or 'bootstrap'
    sources: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """What the memory did for this question: ``labelled`` / ``bootstrap`` / ``labelled+bootstrap`` (whose
        examples voted), ``abstained`` (none close enough), or ``''`` (nothing to ask)."""
        return "+".join(self.sources) if self.shares else ("abstained" if self.abstained else "")

    @property
    def best(self) -> tuple[PathKey, float] | None:
        return max(self.shares.items(), key=lambda kv: (kv[1], -len(kv[0]))) if self.shares else None

    def as_state(self) -> list[dict[str, Any]]:
        return [{"path": list(k), "share": round(v, 4), "reentry": k in self.reentry} for k, v in
                sorted(self.shares.items(), key=lambda kv: -kv[1])]


def phrasing_key(kg: str, masked: str) -> str:
    """One phrasing's identity: the same masked question in the same KG is one vector."""
    return hashlib.sha256(f"{kg}\x1f{masked}".encode()).hexdigest()[:24]


def question_key(kg: str, question: str, topic: str) -> str:
    """One learned question's identity: the same question about the same topic is learned once."""
    return hashlib.sha256(f"{kg}\x1f{question}\x1f{topic}".encode()).hexdigest()[:24]


def refuse_test_split(records: Sequence[tuple[str, str | None]], source: str) -> None:
    """Raise :class:`TestSplitError` if any record (id, split) is marked as a test split."""
    bad = [rid for rid, split in records if split is not None and split.lower() in TEST_SPLITS]
    if bad:
        raise TestSplitError(
            f"{source}: {len(bad)} record(s) are marked as a test split (first: {bad[0]}); the path memory learns "
            "from training / development questions only. Remove them (or learn from the training part only); "
            "nothing was written.")


class PathMemory:
    """The path examples of one KG in Neo4j."""

    def __init__(self, graph: Graph, kg: str) -> None:
        self.graph = graph
        self.kg = kg

    def ensure_index(self, dimensions: int) -> None:
        self.graph.run_script("kgqa/memory_constraints")
        ensure_vector_index(self.graph, name=INDEX, label="PathQuestion", property="vector", dimensions=dimensions)

    def count(self) -> int:
        """Path examples this KG has (0 when none were ever learned)."""
        return self.counts()["examples"]

    def counts(self) -> dict[str, int]:
        """Path examples this KG has: ``examples`` in all, of which ``bootstrap`` generated from the KG itself and
        ``labelled`` learned from answered questions."""
        row = self.graph.run("kgqa/memory_count", kg=self.kg)[0]
        return {"examples": int(row["examples"]), "labelled": int(row["examples"]) - int(row["bootstrap"]),
                "bootstrap": int(row["bootstrap"])}

    def forget_other_sources(self, source: str) -> int:
        """Remove every example of this KG not learned from ``source``; how many were removed."""
        if not self.count():
            return 0
        removed = int(self.graph.run("kgqa/memory_forget_sources", kg=self.kg, source=source)[0]["removed"])
        if removed:
            self.graph.run("kgqa/memory_calibration_clear", kg=self.kg)
        return removed

    def write(self, examples: Sequence[Example], vectors: Mapping[str, np.ndarray]) -> int:
        """Write ``examples`` in one transaction, each linked to the phrasing of its masked question (``vectors``:
        masked question → vector); a question learned before has its old examples replaced."""
        if not examples:
            return 0
        self.ensure_index(len(next(iter(vectors.values()))))
        rows = self._rows(examples, vectors)
        with self.graph.transaction() as tx:
            tx.run(cypher("kgqa/memory_forget"), kg=self.kg,
                   keys=sorted({x.question_key for x in examples})).consume()
            self.graph.write_rows(tx, "kgqa/memory_write", rows, batch_size=500, kg=self.kg)
            tx.run(cypher("kgqa/memory_calibration_clear"), kg=self.kg).consume()
        return len(rows)

    def _rows(self, examples: Sequence[Example], vectors: Mapping[str, np.ndarray],
              staged: str | None = None) -> list[dict[str, Any]]:
        """``kgqa/memory_write`` rows; ``staged`` (a bootstrap run id) marks examples not yet part of the memory,
        under ids of their own (a staged example never replaces a live one)."""
        return [{"id": x.id if staged is None else f"{x.id}-{staged}", "phrasing": phrasing_key(self.kg, x.masked),
                 "masked": x.masked, "vector": [float(v) for v in vectors[x.masked]],
                 "props": {"question_key": x.question_key, "question": x.question, "masked": x.masked,
                           "topic": x.topic, "path": list(x.path), "reentry": x.reentry, "weight": x.weight,
                           "f1": round(x.f1, 4), "answers": x.answers, "source": x.source, "split": x.split,
                           "staged": staged}}
                for x in examples]

    def write_staged(self, examples: Sequence[Example], vectors: Mapping[str, np.ndarray], run_id: str) -> int:
        """Write one batch of a bootstrap in one transaction, staged under ``run_id``: invisible to every reader
        until :meth:`commit_staged` (an interrupted bootstrap leaves no half-learned memory)."""
        if not examples:
            return 0
        self.ensure_index(len(next(iter(vectors.values()))))
        with self.graph.transaction() as tx:
            self.graph.write_rows(tx, "kgqa/memory_write", self._rows(examples, vectors, run_id), batch_size=500,
                                  kg=self.kg)
        return len(examples)

    def commit_staged(self, run_id: str, source: str, scorer: Mapping[str, Any] | None = None) -> None:
        """In one transaction: the examples of ``source`` learned before are removed, ``run_id``'s staged examples
        become the memory's, the calibrated vote threshold is dropped (the memory changed), and the scorer
        calibration the bootstrap learned (``scorer``: its node's properties, None: none) replaces the previous
        one (:mod:`~kgagents.agent.kgqa.scorer_calibration`), so memory and calibration change together."""
        with self.graph.transaction() as tx:
            tx.run(cypher("kgqa/memory_replace_source"), kg=self.kg, source=source, run_id=run_id).consume()
            tx.run(cypher("kgqa/memory_calibration_clear"), kg=self.kg).consume()
            tx.run(cypher("kgqa/scorer_calibration_write"), kg=self.kg, props=scorer).consume()

    def drop_staged(self, run_id: str | None = None) -> int:
        """Remove staged examples (of ``run_id``; None: of every run — leftovers of a killed bootstrap) and the
        phrasings left without examples; how many were removed."""
        return int(self.graph.run("kgqa/memory_drop_staged", kg=self.kg, run_id=run_id)[0]["removed"])

    def wording(self) -> Wording:
        """Which words name which step, learned from this KG's examples (:mod:`~kgagents.agent.kgqa.wording`)."""
        rows = self.graph.run("kgqa/memory_examples", kg=self.kg)
        return Wording.learn([(r["masked"], tuple(r["path"]), float(r["weight"])) for r in rows])

    def prior(self, vector: np.ndarray, *, k: int, pool: int, min_similarity: float, temperature: float,
              leave_out: str | None = None) -> Prior:
        """The vote of the ``k`` phrasings (distinct learned masked questions) nearest to a masked question's
        ``vector`` (the index asked for ``pool`` candidates over every KG). ``leave_out``: a learned question whose
        own examples do not vote (leave-one-out, to calibrate on questions the memory was taught)."""
        rows = self.graph.run("kgqa/memory_nearest", index=INDEX, kg=self.kg, k=k, search=pool,
                              vector=[float(x) for x in vector], leave_out=leave_out)
        return vote(rows, min_similarity=min_similarity, temperature=temperature)


def vote(rows: Sequence[Mapping[str, Any]], *, min_similarity: float, temperature: float) -> Prior:
    """Each phrasing votes with mass exp((similarity − best similarity) / temperature), so the closest phrasings
    dominate and a crowd of looser ones cannot outvote them; its mass goes to its examples' paths in proportion to
    their weight (a question learned with several equally good paths gives each a share). The prior is each path's
    share of all votes; a path is followed with re-entry when most of its vote was learned so."""
    votes: dict[PathKey, float] = {}
    reentering: dict[PathKey, float] = {}
    voters: list[tuple[str, PathKey, float]] = []
    kept = [r for r in rows if r["similarity"] >= min_similarity - ROUNDING]
    sources = sorted({r.get("source") or "labelled" for r in kept}, key=lambda s: s != "labelled")
    top = max((r["similarity"] for r in kept), default=0.0)
    for row in kept:
        key = tuple(row["path"])
        weight = math.exp((row["similarity"] - top) / temperature) * row["weight"] / max(row["questions"], 1)
        votes[key] = votes.get(key, 0.0) + weight
        voters.append((row["masked"], key, weight))
        if row.get("reentry"):
            reentering[key] = reentering.get(key, 0.0) + weight
    total = sum(votes.values())
    shares = {k: v / total for k, v in votes.items()} if total > 0 else {}
    nearest = list({r["phrasing"]: r for r in rows}.values())[:5]
    neighbours = [{"question": r["question"], "path": list(r["path"]), "similarity": round(r["similarity"], 4)}
                  for r in nearest]
    return Prior(shares, {k for k, v in reentering.items() if v > votes[k] / 2}, neighbours, voters,
                 abstained=bool(rows) and not kept, sources=sources if shares else [])
