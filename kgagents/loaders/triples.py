"""Plain ``head<sep>relation<sep>tail`` triple files (MetaQA ``kb.txt`` with ``|``, PathQuestion KBs with tabs).

These KBs name entities by their surface string and nothing else, so ``Entity.id`` = ``Entity.name`` = that
string, and a relation's id, name and relationship type are all the relation string (``directed_by``), so
``MATCH (m {kg: 'metaqa'})-[:directed_by]->(d)`` works as written. Repeated lines become one relationship.

The separator is given, or detected from the first non-blank line (tab when it splits that line into exactly
three fields, else ``|``; see :func:`detect_separator`) and stored on the ``(:KG)`` node, so a file is never
silently read with the wrong one. Lines are decoded one by one, so a byte that is not UTF-8 is reported with
its line number before anything is written.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress, write_kg
from kgagents.loaders.record import LoadRecord, file_sha256, record_load
from kgagents.paths import require_file

#: the separators a triple file may use, in detection order
SEPARATORS = {"\t": "tab", "|": "'|'"}


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text without line end) for every non-blank line; a non-UTF-8 line is a ParseError."""
    require_file(path, "triple file")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise ParseError(str(path), lineno, f"not UTF-8: byte 0x{raw[exc.start]:02x} at column "
                                 f"{exc.start + 1}; re-encode the file as UTF-8") from None
            if line.strip():
                yield lineno, line


def detect_separator(path: Path | str) -> str:
    """The separator of a triple file, judged by its first non-blank line: tab if that line has exactly two
    tabs, else ``|`` (MetaQA's). A file whose first line fits neither fails later with its line number."""
    for _, line in _lines(Path(path)):
        return "\t" if line.count("\t") == 2 else "|"
    return "|"


def iter_triples(path: Path, sep: str | None = None) -> Iterator[tuple[str, str, str]]:
    """(head, relation, tail) of every line, checked as it is read (``sep=None``: detected); streams the file."""
    sep = sep if sep is not None else detect_separator(path)
    shown = SEPARATORS.get(sep, repr(sep))
    empty = True
    for lineno, line in _lines(path):
        fields = [f.strip() for f in line.split(sep)]
        if len(fields) != 3 or not all(fields):
            raise ParseError(str(path), lineno,
                             f"expected head, relation and tail separated by {shown} (three non-empty fields), "
                             f"got {line!r}")
        empty = False
        yield fields[0], fields[1], fields[2]
    if empty:
        raise ParseError(str(path), None, "has no triples (the file is empty or holds only blank lines); "
                                          "a KG needs at least one head, relation and tail line")


def add_triple(data: KGData, head: str, rel: str, tail: str) -> None:
    """One head|relation|tail triple into ``data`` (the relation's name and type are its string)."""
    data.entity(head)
    data.entity(tail)
    if rel not in data.relations:
        data.relation(rel, name=rel, type=rel)
    data.triple(head, rel, tail)


def parse_triples(path: Path, *, kg: str, sep: str | None = None) -> KGData:
    """Every line must be exactly three non-empty fields; blank lines are skipped. ``sep=None`` detects it."""
    sep = sep if sep is not None else detect_separator(path)
    data = KGData(kg, {"source": str(path), "format": "triples", "separator": sep})
    for head, rel, tail in iter_triples(path, sep):
        add_triple(data, head, rel, tail)
    return data


def load_triples(graph: Graph, path: Path | str, *, kg: str, sep: str | None = None,
                 progress: Progress | None = None) -> KGLoadResult:
    """Parse the whole file, then write it as KG ``kg`` in one transaction and record the load."""
    start = time.perf_counter()
    path = Path(path)
    data = parse_triples(path, kg=kg, sep=sep)
    ensure_schema(graph)
    with graph.transaction() as tx:
        result = write_kg(graph, tx, data, progress)
        record_load(tx, LoadRecord(kind="kg_triples", target=kg, path=str(path), sha256=file_sha256(path),
                                   counts=data.counts(), seconds=time.perf_counter() - start))
    result.seconds = time.perf_counter() - start
    return result
