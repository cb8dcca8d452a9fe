"""Plain ``head<sep>relation<sep>tail`` triple files (MetaQA ``kb.txt`` with ``|``, PathQuestion KBs with tabs).

These KBs name entities by their surface string and nothing else, so ``Entity.id`` = ``Entity.name`` = that
string, and a relation's id, name and relationship type are all the relation string (``directed_by``), so
``MATCH (m {kg: 'metaqa'})-[:directed_by]->(d)`` works as written. Repeated lines become one relationship.
"""

from __future__ import annotations

import time
from pathlib import Path

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress, write_kg
from kgagents.loaders.record import LoadRecord, file_sha256, record_load


def parse_triples(path: Path, *, kg: str, sep: str = "|") -> KGData:
    """Every line must be exactly three non-empty fields; blank lines are skipped."""
    data = KGData(kg, {"source": str(path), "format": "triples"})
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split(sep)]
            if len(fields) != 3 or not all(fields):
                raise ParseError(str(path), lineno,
                                 f"expected head{sep}relation{sep}tail with three non-empty fields, got {line!r}")
            head, rel, tail = fields
            data.entity(head)
            data.entity(tail)
            data.relation(rel, name=rel, type=rel)
            data.triple(head, rel, tail)
    return data


def load_triples(graph: Graph, path: Path | str, *, kg: str, sep: str = "|",
                 progress: Progress | None = None) -> KGLoadResult:
    """Parse the whole file, then write it as KG ``kg`` in one transaction and record the load."""
    start = time.perf_counter()
    path = Path(path)
    data = parse_triples(path, kg=kg, sep=sep)
    with graph.transaction() as tx:
        result = write_kg(graph, tx, data, progress)
        record_load(tx, LoadRecord(kind="kg_triples", target=kg, path=str(path), sha256=file_sha256(path),
                                   counts=data.counts(), seconds=time.perf_counter() - start))
    result.seconds = time.perf_counter() - start
    return result
