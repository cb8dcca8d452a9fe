"""Path-text vectors kept in the graph, so a KG's relation paths are embedded once, not once per run.

The path scorer compares a question with each observed path's text ("place of birth of the spouse of"), embedded
by two encoders (:mod:`scoring`). A KG has a bounded set of such texts, but a run meets them as it goes: on a
Wikidata subgraph with 51 properties the first questions spend nearly all their time embedding the texts of the
paths they observe (measured: 16 of 17 s over two questions, the encoders' share, on this shared machine). The
vectors are therefore stored as ``(:PathText {kg, space, key, text, vector})`` — ``space`` names the encoders and
their weights, so vectors of different path spaces never mix — read when a run begins and written after each
batch of questions; ``kgqa bootstrap`` stores those of the path types it found.

``kgqa prepare`` embeds the texts of every path type of one and two relations that exists in the KG
(:func:`prepare_path_texts`; a few thousand on a Wikidata subgraph of 51 properties, seconds to enumerate in
Cypher), so the questions of a new KG meet only their three-relation texts for the first time. Three-relation
types are not embedded ahead: CoDEx-M has ~61,000 of them and a run meets a spread of them (the 10,000 along which the
most walks run held 45 % of those 400 train questions met), ~15 ms a text with both encoders on this machine.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import Protocol

import numpy as np

from kgagents.agent.kgqa.paths import path_text, step
from kgagents.graph.connection import Graph

#: rows per write
BATCH = 500
#: texts embedded (and stored) at once by :func:`prepare_path_texts`
EMBED_BATCH = 1000


class PathSpace(Protocol):
    """What :func:`prepare_path_texts` needs of a path scorer: its space's name and its path-text vectors."""

    @property
    def space(self) -> str: ...

    def path_vectors(self, texts: list[str]) -> np.ndarray: ...


class PathTextStore:
    """The stored path-text vectors of one KG in one path space."""

    def __init__(self, graph: Graph, kg: str, space: str) -> None:
        self.graph = graph
        self.kg = kg
        self.space = space

    def load(self) -> dict[str, np.ndarray]:
        rows = self.graph.run("kgqa/path_texts_read", kg=self.kg, space=self.space)
        return {r["text"]: np.asarray(r["vector"], dtype=np.float32) for r in rows}

    def save(self, vectors: Mapping[str, np.ndarray]) -> int:
        """Store ``vectors`` (text → vector); how many."""
        if not vectors:
            return 0
        self.graph.run_script("kgqa/path_texts_constraints")
        rows = [{"key": hashlib.sha256(text.encode()).hexdigest()[:24], "text": text,
                 "vector": [float(x) for x in vector]} for text, vector in vectors.items()]
        for start in range(0, len(rows), BATCH):
            self.graph.run("kgqa/path_texts_write", kg=self.kg, space=self.space, rows=rows[start:start + BATCH])
        return len(rows)


def prepare_path_texts(graph: Graph, kg: str, scorer: PathSpace, names: Mapping[str, str], *, longest: int,
                       limit: int) -> dict[str, float]:
    """Embed and store the path texts of ``kg``'s relation path types of up to ``longest`` (≤ 2) relations
    (``kgqa/path_types``, most supported first, at most ``limit``) that are not stored yet in the scorer's space;
    ``names``: the KG's relation names. Returns how many types were found, were stored before, were embedded now,
    and the seconds."""
    started = time.perf_counter()
    if longest <= 0 or limit <= 0:
        return {"path_types": 0, "stored_before": 0, "embedded": 0, "seconds": 0.0}
    rows = graph.run("kgqa/path_types", kg=kg, types=sorted(names) or None, longest=longest)
    texts = list(dict.fromkeys(path_text(tuple(step(r, f) for r, f in row["steps"]), names)
                               for row in rows))[:limit]
    store = PathTextStore(graph, kg, scorer.space)
    known = {r["text"] for r in graph.run("kgqa/path_texts_known", kg=kg, space=scorer.space, texts=texts)}
    missing = [t for t in texts if t not in known]
    for start in range(0, len(missing), EMBED_BATCH):
        part = missing[start:start + EMBED_BATCH]
        store.save(dict(zip(part, scorer.path_vectors(part), strict=True)))
    return {"path_types": len(rows), "stored_before": len(known), "embedded": len(missing),
            "seconds": round(time.perf_counter() - started, 2)}
