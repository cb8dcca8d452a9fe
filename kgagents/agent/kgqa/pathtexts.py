"""Path-text vectors kept in the graph, so a KG's relation paths are embedded once, not once per run.

The path scorer compares a question with each observed path's text ("place of birth of the spouse of"), embedded
by two encoders (:mod:`scoring`). A KG has a bounded set of such texts, but a run meets them as it goes: on a
Wikidata subgraph with 51 properties the first questions spend nearly all their time embedding the texts of the
paths they observe (measured: 16 of 17 s over two questions, the encoders' share, on this shared machine). The
vectors are therefore stored as ``(:PathText {kg, space, key, text, vector})`` — ``space`` names the encoders and
their weights, so vectors of different path spaces never mix — read when a run begins and written after each
batch of questions; ``kgqa bootstrap`` stores those of the path types it found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np

from kgagents.graph.connection import Graph

#: rows per write
BATCH = 500


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
