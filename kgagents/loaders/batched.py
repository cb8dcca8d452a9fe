"""``kgagents load kg --batched``: a KG larger than one transaction, written in committed batches, still
all-or-nothing for the user.

The three ways to load a KG:

* **transactional** (default): the whole file in one transaction. Simplest guarantees, but the file must fit the
  server's transaction memory (about 500k statements with a 1.5 GB heap).
* **batched** (this module): the file is streamed and written ``batch_size`` statements per committed
  transaction, so neither Python's nor the server's memory grows with the file.
* **bulk**: Neo4j's offline importer; fastest on big machines, but it replaces the whole database.

How a batched load stays all-or-nothing:

1. A guard transaction is opened and stays open for the whole load with ``kgagents_load: <id>`` in its metadata,
   so ``SHOW TRANSACTIONS`` tells a live load from a dead one without clocks or timeouts: the server ends the
   guard when the process dies (kill -9 included). Only then is a ``(:Load {id, status: 'loading', kgs, pid,
   host})`` record committed; its id is that of a transactional load of the same files (kind, target, file hash).
   (This order keeps a concurrent load from taking this one for dead: :mod:`kgagents.loaders.unfinished`.)
2. Every node the load *creates* carries ``load: <id>``; nodes it only matches (an entity an earlier load
   created) keep theirs. A relationship it creates carries ``load: <id>`` too when the KG held entities before
   the load; into a fresh KG (the usual case) it does not need to, since one of its ends is a node the load
   created (and removing that node removes it) — that saves a property on every statement. The ``(:KG)`` node
   is written only at the end.
3. When the last batch is in, repeats are removed (:file:`cypher/batched/dedup_triples.cypher`, statement by
   statement among those a Bloom filter could not rule out), the ``(:KG)`` nodes are
   written and the record becomes ``complete`` with the KG's counts.
4. A load that fails (Ctrl-C included) removes what it created at once, saying how far it got, and is marked
   ``failed``; a second Ctrl-C stops that removal and says what is left (:class:`LoadAbandonedError`).
5. A load that died (killed, the server down) stays ``loading`` with no guard: every reader of its KGs refuses
   them (:func:`kgagents.loaders.unfinished.refuse_unfinished`) until ``kgagents load repair``, ``kgagents neo4j
   start`` or the next batched load removes its data.

A KG that only an incomplete load wrote has no ``(:KG)`` node. The ``load`` property stays after completion as
provenance (which load created the element).

Where the time goes, and what is done about it (measured in ``kgagents bench load``; README, "Batched loads"):
the server's commit path (turning a transaction's state into store records, applying them, index updates) is
most of the work, so each chunk is written as two transactions — its entities, one chunk at a time and in order,
then its statements, up to ``parallel`` chunks at once, so both server cores write — while Python reads the
next chunk. An entity never met before in a fresh KG is CREATEd (a Bloom filter says so; no index lookup or
lock), one met before is found in an in-memory memo of node ids (no query at all; a fixed-size memo, so an entity
it has forgotten is MERGEd), and statements go to the server as node-id pairs grouped by relationship type. No
plan that writes a batch has an Eager operator. 5,000 statements per batch: larger transactions cost the server's
garbage collector more than they save. Python's memory is fixed (the memo, two Bloom filters, one batch at a time),
whatever the file's size; the possible repeats the Bloom filter cannot rule out are spooled to a temporary file.

Idempotent like the transactional load: loading the same files into the same KG again is a no-op once complete;
another file into an existing KG MERGEs its entities and relations and leaves out the statements already stored.
Limits: property changes a batched load makes on nodes it did not create (a name given to an entity another load
created) are not undone when it fails, and no other process may delete the KG while it loads.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import Transaction
from pydantic import BaseModel

from kgagents.cypher import cypher
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph, Tx, batched
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress
from kgagents.loaders.record import LoadRecord
from kgagents.loaders.unfinished import Say, left_behind, remove_load, repair_loads, unfinished_loads

#: statements per committed batch. Measured on 2 cores (generated 1M, server heap 1.5 GB): 5,000 spent 2 s of
#: server CPU in garbage collection, 10,000 and 20,000 about 20 s (a larger transaction's state outlives the young
#: generation), while 2,500 added per-transaction work; see README, "Batched loads".
BATCH_SIZE = 5_000
#: entity id -> node id memo, shared by the load's KGs: at most this many entities (two generations of half this
#: each, in two tables of 2**22 slots of 20 bytes allocated once: 160 MiB), so Python's memory is the same however
#: large the file; an entity it has forgotten is MERGEd. Counted by replaying the generated 10M file (2M entities,
#: all labelled before any statement, 2,401 batches): generations of 2M entries MERGE none, of 1.5M 246k, of 1M
#: 1.3M (13 % of the statements).
NODE_CACHE = 4_000_000
_DEDUP_ROWS = 5_000  # possible repeats checked per dedup transaction
_SPOOL_BLOCK = 1_000_000  # possible repeats read back at once by the dedup pass (40 bytes each)
#: statement transactions in flight at once (one per server core of the reference machine)
PARALLEL = 2


class BatchedLoadError(KgAgentsError):
    """A batched load failed; what it had written was removed."""


class LoadAbandonedError(KgAgentsError):
    """A second Ctrl-C stopped the removal of a failed batched load's data: part of it is still in the graph."""


class LoadRolledBack(KeyboardInterrupt):  # noqa: N818 - it is the user's interrupt, carrying what was undone
    """Ctrl-C stopped a batched load, and what it had written was removed."""


class BatchedLoadResult(BaseModel):
    """What a batched load wrote (per KG), how long it took and where the time went."""

    load_id: str
    kgs: list[KGLoadResult]
    gold_links: dict[str, int] = {}
    batches: int = 0
    statements: int = 0
    skipped: bool = False  # the same files were already completely loaded: nothing was written
    cleaned: list[str] = []  # dead loads removed before this one started
    cleaned_lines: list[str] = []  # what was removed of each, in words
    parse_seconds: float = 0.0  # Python: reading the file and building the batches
    write_seconds: float = 0.0  # waiting for the server's batch transactions
    dedup_seconds: float = 0.0
    entities_merged: int = 0  # entity rows MERGEd (met before but not in the node-id memo, or the KG held entities)
    possible_repeats: int = 0  # statements the dedup pass checked (the Bloom filter could not rule them out)
    seconds: float = 0.0


@dataclass
class Chunk:
    """One batch: a small :class:`KGData` of one KG, plus names (Wikidata) and gold links (JAPE) met in it."""

    data: KGData
    names: list[dict[str, Any]] = field(default_factory=list)
    gold: list[dict[str, str]] = field(default_factory=list)  # rows a, b, split (side-1 id, side-2 id)

    @property
    def size(self) -> int:
        counts = self.data.counts()
        return max(counts["triples"] + counts["literals"] + len(self.gold), len(self.data.entity_index), 1)


@dataclass
class BatchedSource:
    """What a batched load reads: the load record it makes, the KG nodes it writes at the end, and its chunks."""

    record: LoadRecord
    kgs: list[tuple[str, dict[str, Any]]]  # (KG name, properties of its (:KG) node)
    chunks: Callable[[int], Iterator[Chunk]]  # batch size -> chunks, read lazily
    dataset: str | None = None  # JAPE: the gold links' dataset
    relation_props: dict[str, dict[str, str]] = field(default_factory=dict)  # relation id -> name, … (Wikidata)
    before: Callable[[Graph], None] | None = None  # runs before the load record (a JAPE pair replacing itself)


# -- readers --------------------------------------------------------------------------------------------------
def triples_source(path: Path | str, *, kg: str, sep: str | None = None) -> BatchedSource:
    """A head|relation|tail file, streamed (validation as in :func:`kgagents.loaders.triples.parse_triples`)."""
    from kgagents.loaders.record import file_sha256
    from kgagents.loaders.triples import add_triple, detect_separator, iter_triples

    path = Path(path)
    sep = sep if sep is not None else detect_separator(path)
    props = {"source": str(path), "format": "triples", "separator": sep}

    def chunks(size: int) -> Iterator[Chunk]:
        for rows in batched(iter_triples(path, sep), size):
            data = KGData(kg, props)
            for head, rel, tail in rows:
                add_triple(data, head, rel, tail)
            yield Chunk(data)

    record = LoadRecord(kind="kg_triples", target=kg, path=str(path), sha256=file_sha256(path))
    return BatchedSource(record, [(kg, props)], chunks)


def wikidata_source(path: Path | str, *, kg: str = "wikidata", property_labels: Path | None = None) -> BatchedSource:
    """Wikidata truthy N-Triples, streamed. Property labels come from a first pass over the ``wd:P…`` lines (and
    ``property_labels``), so every relationship gets its property's name however late the label line comes."""
    from kgagents.loaders.wikidata import WDT, iter_wikidata_chunks, property_names, wikidata_load_record

    path = Path(path)
    props = {"source": str(path), "format": "wikidata-truthy-nt"}
    labels = property_names(path, property_labels)  # also fails early (with its line) on a bad label line

    def chunks(size: int) -> Iterator[Chunk]:
        seen = False
        for data, names, aliases in iter_wikidata_chunks(path, kg=kg, lines=size):
            seen = seen or bool(data.entity_index) or any(not i.startswith("P") for i in names)
            rows = []
            for eid in set(names) | set(aliases):
                if eid.startswith("P") and eid not in data.entity_index:
                    continue  # a property's own labels name its relation (first pass), not an entity
                texts = names.get(eid, {})
                plain = {k: v for k, v in (("name", texts.get("label")), ("description", texts.get("description")))
                         if v is not None}
                if plain:
                    data.entity(eid, **plain)  # written with the entity itself
                if ("name" in texts and "label" not in texts) or eid in aliases:
                    rows.append({"id": eid, "label": None, "schema_name": texts.get("name"), "description": None,
                                 "aliases": list(dict.fromkeys(aliases[eid])) if eid in aliases else None})
            yield Chunk(data, rows)
        if not seen:
            from kgagents.errors import ParseError
            raise ParseError(str(path), None, "holds no Wikidata item (no wd: entity with a wdt: statement or an "
                                              "English label); is it empty, or not a truthy dump?")

    record = wikidata_load_record(KGData(kg, props), path, property_labels, 0.0)
    record.counts = {}  # known once the load is in (an empty probe's zeros are not the dump's counts)
    return BatchedSource(record, [(kg, props)], chunks,
                         relation_props={WDT + pid: texts for pid, texts in labels.items()})


def jape_source(directory: Path | str, *, name: str | None = None, langs: tuple[str, str] | None = None,
                train_ratio: float | None = None, split_seed: int = 0) -> BatchedSource:
    """A JAPE pair: parsed whole (its id tables are needed anyway; pairs are thousands of entities, not
    millions), then written in batches: each side's entities, its triples, then the gold links."""
    from kgagents.loaders.jape import parse_jape_pair, replace_previous_sides

    parsed = parse_jape_pair(directory, name=name, langs=langs, train_ratio=train_ratio, split_seed=split_seed)
    sides = parsed.sides

    def chunks(size: int) -> Iterator[Chunk]:
        for side in sides:
            yield from _slices(side, size)
        gold = [{"a": a, "b": b, "split": split} for a, b, split in parsed.gold_uris()]
        for rows in batched(gold, size):
            yield Chunk(KGData(sides[0].name, {}), gold=rows)

    record = LoadRecord(kind="ea_pair", target=parsed.pair.name, path=str(parsed.pair.dir), sha256=parsed.sha256,
                        counts=parsed.counts())
    return BatchedSource(record, [(side.name, side.props) for side in sides], chunks, dataset=parsed.pair.name,
                         before=lambda graph: replace_previous_sides(graph, parsed.pair.name, sides))


def _slices(data: KGData, size: int) -> Iterator[Chunk]:
    """A whole parsed KG as chunks: its entities (with their properties) and relations, then its triples."""
    keys = list(data.entity_index)
    for lo in range(0, max(len(keys), 1), size):
        part = KGData(data.name, data.props)
        if lo == 0:
            for rid, rprops in data.relations.items():
                part.relation(rid, **rprops)
        for key in keys[lo:lo + size]:
            part.entity(key, **data.entity_props(key))
        yield Chunk(part)
    relations = list(data.relations.items())
    heads, rels, tails = (a.tolist() for a in data.triple_arrays())
    for lo in range(0, len(heads), size):
        part = KGData(data.name, data.props)
        for h, r, t in zip(heads[lo:lo + size], rels[lo:lo + size], tails[lo:lo + size], strict=True):
            head, tail = keys[h], keys[t]
            rid, rprops = relations[r]
            part.entity(head)
            part.entity(tail)
            if rid not in part.relations:
                part.relation(rid, **rprops)
            part.triple(head, rid, tail)
        yield Chunk(part)


# -- the load -------------------------------------------------------------------------------------------------
def incomplete_loads(graph: Graph) -> list[str]:
    """Ids of loads not marked complete (running, failed or killed); readers skip elements whose ``load`` is one."""
    return [row["id"] for row in graph.run("batched/incomplete")]


def load_batched(graph: Graph, source: BatchedSource, *, batch_size: int = BATCH_SIZE, parallel: int = PARALLEL,
                 progress: Progress | None = None, say: Say | None = None) -> BatchedLoadResult:
    """Write ``source`` in committed batches of ``batch_size`` statements (see the module docstring). ``say`` hears
    what else happens: dead loads removed first, and the removal of this load's data when it fails."""
    start = time.perf_counter()
    record = source.record
    kg_names = [name for name, _ in source.kgs]
    done = graph.run("batched/done", id=record.id, kgs=kg_names)[0]
    if done["done"]:
        return BatchedLoadResult(load_id=record.id, kgs=_results(graph, kg_names, 0.0, {}), skipped=True,
                                 seconds=time.perf_counter() - start)
    repaired = repair_loads(graph, say=say)
    same = [load for load in unfinished_loads(graph) if load.id == record.id and load.alive]
    if same:
        raise BatchedLoadError(f"{same[0].describe()} is loading these same files right now; wait until it finishes")
    if source.before is not None:
        source.before(graph)
    writer = _Writer(graph, record.id, source, parallel)
    with graph.driver.session(database=graph.settings.database) as guard_session:
        # The guard is open before the record is committed (kgagents/loaders/unfinished.py says why).
        guard = guard_session.begin_transaction(metadata={"kgagents_load": record.id})
        guard.run("RETURN 1").consume()  # the server now lists the guard: the load is alive
        try:
            graph.run("batched/begin", id=record.id, kind=record.kind, target=record.target, path=record.path,
                      sha256=record.sha256, kgs=kg_names, pid=os.getpid(), host=socket.gethostname())
            writer.run(source.chunks(batch_size), progress)
            dedup_start = time.perf_counter()
            removed = writer.dedup()
            dedup_seconds = time.perf_counter() - dedup_start
            seconds = time.perf_counter() - start
            results = _results(graph, kg_names, time.perf_counter() - start, removed)
            graph.run("batched/complete", id=record.id, seconds=seconds,
                      kgs=[{"name": n, "props": p} for n, p in source.kgs],
                      counts={f"count_{k}": v for k, v in _counts(source, results).items()})
        except BaseException as exc:  # Ctrl-C included: what was written must go
            try:
                _roll_back(graph, record, kg_names, exc, say)
            finally:
                _end(guard)
            if isinstance(exc, KgAgentsError):
                raise
            if isinstance(exc, Exception):
                raise BatchedLoadError(f"the batched load of {record.path} failed ({type(exc).__name__}: "
                                       f"{' '.join(str(exc).split())[:300]}); what it had written was removed") from exc
            raise
        _end(guard)
    return BatchedLoadResult(
        load_id=record.id, kgs=results, batches=writer.batches,
        statements=writer.statements, gold_links=writer.gold_splits(), cleaned=[r.load.id for r in repaired],
        cleaned_lines=[r.line() for r in repaired],
        parse_seconds=round(writer.parse_seconds, 3), write_seconds=round(writer.write_seconds, 3),
        dedup_seconds=round(dedup_seconds, 3), seconds=round(seconds, 3), entities_merged=writer.entities_merged,
        possible_repeats=writer.possible_repeats)


def _counts(source: BatchedSource, results: list[KGLoadResult]) -> dict[str, int]:
    """The ``(:Load)`` record's counts: a JAPE pair's from its parse (per side, gold links per split); a single KG's
    as stored once the load is in (its entities, relations, triples and literals)."""
    if source.record.counts:
        return source.record.counts
    return {k: getattr(results[0], k) for k in ("entities", "relations", "triples", "literals")}


def _roll_back(graph: Graph, record: LoadRecord, kgs: list[str], exc: BaseException, say: Say | None) -> None:
    """Remove what the failed load wrote. Interrupted (Ctrl-C) it says what was removed; interrupted again while
    removing, it stops and says exactly what it left and how to remove it."""
    if say is not None:
        say(f"the batched load of {record.path} stopped ({type(exc).__name__}); removing what it wrote…")
    try:
        statements, nodes = remove_load(graph, record.id, kgs, f"{type(exc).__name__}: {exc}", say)
    except KeyboardInterrupt:
        try:
            left = left_behind(graph, record.id, kgs)
            what = f"{left['entities']:,} entities and {left['relations']:,} relations (with their statements)"
        except Exception:  # the connection may be unusable after the second interrupt
            what = "part of its data"
        raise LoadAbandonedError(
            f"interrupted again while removing what the batched load of {record.path} had written: {what} of load "
            f"{record.id} are still in KG {', '.join(kgs)}, marked 'loading'. Every reader refuses that KG until "
            f"`kgagents load repair {record.target}` (or `kgagents neo4j start`) removes them") from None
    except Exception as failed:  # the server went away, most likely: what the load wrote stays until a repair
        raise LoadAbandonedError(
            f"the batched load of {record.path} stopped ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}) "
            f"and removing what it had written failed too ({type(failed).__name__}: "
            f"{' '.join(str(failed).split())[:200]}). Load {record.id} is left 'loading' in KG {', '.join(kgs)}; "
            f"every reader refuses that KG until `kgagents load repair {record.target}` (or `kgagents neo4j "
            "start`) removes it") from failed
    if isinstance(exc, KeyboardInterrupt):
        raise LoadRolledBack(f"the batched load of {record.path} was rolled back: removed the {nodes:,} nodes and "
                             f"{statements:,} statements it had written") from None


def _end(guard: Transaction) -> None:
    """Roll the guard transaction back (the load is over); a connection already gone has ended it anyway."""
    try:
        guard.rollback()
    except Exception:  # noqa: BLE001 - the server ends the guard with the connection
        pass


def _results(graph: Graph, kgs: list[str], seconds: float, removed: dict[str, int]) -> list[KGLoadResult]:
    out = []
    for kg in kgs:
        stats = graph.run("kg/stats", kg=kg)[0]
        out.append(KGLoadResult(kg=kg, entities=stats["entities"], relations=stats["relations"],
                                triples=stats["triples"], literals=stats["literals"],
                                duplicate_triples=removed.get(kg, 0), seconds=seconds))
    return out


def _slices_of(rows: list[list[int]]) -> Iterator[list[list[int]]]:
    for lo in range(0, len(rows), _DEDUP_ROWS):
        yield rows[lo:lo + _DEDUP_ROWS]


class _Seen:
    """A fixed-size Bloom filter of the rows (statements, entities) written so far: a row it has not seen cannot
    repeat one, so only possible repeats go to the dedup pass and an entity never seen is CREATEd. 2**28 bits
    (32 MiB; 2**26 for entities) whatever the file's size; false positives only cost work (a MERGE instead of a
    CREATE, a statement to check in the dedup pass: about 0.04 % of statements at 10M)."""

    _MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))

    def __init__(self, bits: int = 1 << 28) -> None:
        self.BITS = bits
        self.bits = np.zeros(bits // 8, dtype=np.uint8)

    def add(self, *columns: np.ndarray, peek: bool = False) -> np.ndarray:
        """Record the rows of ``columns`` (integer arrays; ``peek``: only look); True where a row may have been
        recorded before."""
        key = np.zeros(len(columns[0]), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for column, mix in zip(columns, self._MIX, strict=False):
                key = (key ^ column.astype(np.uint64)) * mix
                key ^= key >> np.uint64(31)
            seen = np.ones(len(key), dtype=bool)
            for k in range(4):
                h = (key * np.uint64(2 * k + 1) + np.uint64(k)) * self._MIX[k % 3]
                h = (h ^ (h >> np.uint64(29))) % np.uint64(self.BITS)
                byte, bit = (h >> np.uint64(3)).astype(np.int64), (h & np.uint64(7)).astype(np.uint8)
                seen &= (self.bits[byte] >> bit) & 1 == 1
                if not peek:
                    np.bitwise_or.at(self.bits, byte, np.left_shift(np.uint8(1), bit))
        return seen


class _HashTable:
    """Open addressing in numpy: 96-bit keys (two hashes of an entity id) -> node id. Its size is fixed when it is
    made (``slots``, a power of two, 20 bytes each); it is filled to at most half (:class:`_NodeMemo` swaps
    generations before that), so probes stay short and memory never grows."""

    def __init__(self, slots: int) -> None:
        self.mask = slots - 1
        self.k1 = np.zeros(slots, dtype=np.int64)
        self.k2 = np.zeros(slots, dtype=np.uint32)
        self.node = np.full(slots, -1, dtype=np.int64)  # -1: an empty slot
        self.count = 0

    def clear(self) -> None:
        self.node.fill(-1)
        self.count = 0

    def get(self, h1: np.ndarray, h2: np.ndarray) -> np.ndarray:
        """The node id of each key, -1 where it is not in the table."""
        out = np.full(len(h1), -1, dtype=np.int64)
        todo = np.arange(len(h1))
        slot = h1 & self.mask
        while len(todo):
            at = slot[todo]
            node = self.node[at]
            hit = (node >= 0) & (self.k1[at] == h1[todo]) & (self.k2[at] == h2[todo])
            out[todo[hit]] = node[hit]
            todo = todo[(node >= 0) & ~hit]  # an occupied slot of another key: probe the next one
            slot[todo] = (slot[todo] + 1) & self.mask
        return out

    def put(self, h1: np.ndarray, h2: np.ndarray, nodes: np.ndarray) -> None:
        """Insert keys that are not in the table (each at most once; the table must keep a free slot)."""
        todo = np.arange(len(h1))
        slot = h1 & self.mask
        while len(todo):
            at = slot[todo]
            free = self.node[at] < 0
            _, first = np.unique(at[free], return_index=True)  # two keys probing one free slot: the first wins
            won = todo[free][first]
            self.k1[slot[won]], self.k2[slot[won]], self.node[slot[won]] = h1[won], h2[won], nodes[won]
            placed = np.zeros(len(h1), dtype=bool)
            placed[won] = True
            blocked = todo[~free]
            slot[blocked] = (slot[blocked] + 1) & self.mask
            todo = todo[~placed[todo]]
        self.count += len(h1)


class _NodeMemo:
    """Entity id -> node id of the entities this load wrote or met, so later batches' statements find their ends by
    node id without asking the server; an entity it has forgotten is MERGEd again (one index seek on the server).
    Two generations of ``size`` entries each, in two tables allocated once (``2 * size`` slots each, 20 bytes a
    slot): a hit in the old one moves the entry to the young one, and when the young one is full the old one is
    emptied and becomes the young one, so the hubs a power-law KG keeps referring to stay while memory stays
    fixed however large the file. Keys are 96 bits of hash (Python's hash of the id and of the id with a suffix):
    a collision between two ids, which would give one the other's node, has odds of about n^2 / 2^97 (1e-16 for
    100 million entities)."""

    def __init__(self, size: int) -> None:
        self.size = size
        slots = 1 << (2 * size - 1).bit_length()
        self.young = _HashTable(slots)
        self.old = _HashTable(slots)

    @staticmethod
    def keys(ids: list[str], salt: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The two hashes of each id; ``salt`` (one per KG) keeps the same id in two KGs apart."""
        h1 = np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)) ^ np.int64(salt)
        h2 = np.fromiter((hash(i + "\x1f") & 0xFFFFFFFF for i in ids), dtype=np.uint32, count=len(ids))
        return h1, h2

    def get(self, h1: np.ndarray, h2: np.ndarray) -> np.ndarray:
        """Node ids, -1 for the ids not remembered."""
        nodes = self.young.get(h1, h2)
        missing = np.flatnonzero(nodes < 0)
        if len(missing) and self.old.count:
            old = self.old.get(h1[missing], h2[missing])
            found = missing[old >= 0]
            if len(found):
                nodes[found] = old[old >= 0]
                self.put(h1[found], h2[found], nodes[found])
        return nodes

    def put(self, h1: np.ndarray, h2: np.ndarray, nodes: np.ndarray) -> None:
        """Remember ids that :meth:`get` did not find (at most ``size`` at once)."""
        if self.young.count + len(h1) > self.size:
            self.old, self.young = self.young, self.old
            self.young.clear()
        self.young.put(h1, h2, nodes)


@dataclass
class _EntityRows:
    """A chunk's entities: node ids by entity index (filled from the memo, then by the writes), rows to CREATE
    ([position, id, name]) and to MERGE ([position, id]), and properties to set by node id."""

    nodes: np.ndarray
    create: list[list[Any]] = field(default_factory=list)
    merge: list[list[Any]] = field(default_factory=list)
    extra: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


@dataclass
class _Statements:
    """One chunk's statements, ready to send once its entities are committed: triples grouped by relation, literal
    rows, gold links, and what they count for."""

    kg: str
    groups: list[dict[str, Any]]
    literals: list[dict[str, Any]]  # groups by relation, like the triples
    gold: list[dict[str, str]]
    size: int  # for the progress bar
    duplicates: int  # repeats inside the chunk (left out before writing)


class _Writer:
    """Writes a chunk in two committed transactions: its entities (one at a time, in order: a chunk's entity ids
    are known to every later chunk), then its statements (up to ``parallel`` chunks at once, on the server's
    cores), while the main thread reads the next chunk. Statements of different chunks never wait on each other's
    entities, so parallel statement transactions do not deadlock on the entity locks; a deadlock the server
    detects anyway (relationship chains of shared nodes) is retried."""

    def __init__(self, graph: Graph, load_id: str, source: BatchedSource, parallel: int) -> None:
        self.graph, self.load, self.source, self.parallel = graph, load_id, source, parallel
        self.nodes = _NodeMemo(NODE_CACHE // 2)
        self.salts = {kg: hash(kg) for kg, _ in source.kgs}  # one memo for the load's KGs
        self.relations: set[tuple[str, str]] = set()  # (kg, relation id) written
        self.suspects = tempfile.TemporaryFile()  # statements that may repeat one written before: the dedup pass
        self.seen = _Seen()  # statements written
        # A KG without entities when the load starts gets only nodes this load creates: an entity never met before
        # in this load is CREATEd (no lookup, no lock), and its statements need no tag of their own (removing the
        # load's nodes removes them). Into a KG that held entities, entities are MERGEd and statements tagged.
        self.fresh = {kg: not graph.run("kg/has_entities", kg=kg)[0]["found"] for kg, _ in source.kgs}
        self.met = {kg: _Seen(1 << 26) for kg, fresh in self.fresh.items() if fresh}  # entities written
        self.relation_ids: dict[str, int] = {}  # relation id -> its index in relation_rows
        self.relation_rows: list[tuple[str, str]] = []  # (type, relation id)
        self.kg_index = {kg: i for i, (kg, _) in enumerate(source.kgs)}
        self.batches = self.statements = self.entities_merged = self.possible_repeats = 0
        self.parse_seconds = self.write_seconds = 0.0
        self.duplicates: dict[str, int] = {}
        self.splits: dict[str, int] = {}

    # -- the pipeline ---------------------------------------------------------------------------------
    def run(self, chunks: Iterator[Chunk], progress: Progress | None) -> None:
        """Read chunk k+1 while chunk k's entities and up to ``parallel`` chunks' statements are written. Returns
        when everything is committed; on an error, only after every transaction in flight has ended."""
        entities = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgagents-batched-entities")
        statements = ThreadPoolExecutor(max_workers=self.parallel, thread_name_prefix="kgagents-batched-statements")
        pending: Future[_Statements] | None = None
        in_flight: deque[Future[_Statements]] = deque()
        try:
            while True:
                t0 = time.perf_counter()
                chunk = next(chunks, None)
                self.parse_seconds += time.perf_counter() - t0
                if pending is not None:
                    t1 = time.perf_counter()
                    ready = pending.result()
                    while len(in_flight) >= self.parallel:
                        self._count(in_flight.popleft().result(), progress)
                    self.write_seconds += time.perf_counter() - t1
                    in_flight.append(statements.submit(self._write_statements, ready))
                if chunk is None:
                    break
                pending = entities.submit(self._write_entities_of, chunk)
            t1 = time.perf_counter()
            while in_flight:
                self._count(in_flight.popleft().result(), progress)
            self.write_seconds += time.perf_counter() - t1
        except BaseException:
            for future in in_flight:  # let the transactions in flight end (counting those that committed)
                if future.cancel() or future.exception() is not None:
                    continue
                self._count(future.result(), progress)
            raise
        finally:
            entities.shutdown(wait=True, cancel_futures=True)
            statements.shutdown(wait=True, cancel_futures=True)

    def _count(self, done: _Statements, progress: Progress | None) -> None:
        self.batches += 1
        self.statements += (sum(len(g["heads"]) for g in done.groups) + sum(len(g["nodes"]) for g in done.literals)
                            + len(done.gold))
        self.duplicates[done.kg] = self.duplicates.get(done.kg, 0) + done.duplicates
        for row in done.gold:
            self.splits[row["split"]] = self.splits.get(row["split"], 0) + 1
        if progress is not None:
            progress(done.size)

    # -- stage 1: entities (in chunk order) -----------------------------------------------------------
    def _write_entities_of(self, chunk: Chunk) -> _Statements:
        """Commit the chunk's new relations and entities (no transaction when there are none); return its
        statements between the entities' node ids."""
        data = chunk.data
        keys = list(data.entity_index)
        relations = [rid for rid in data.relations if (data.name, rid) not in self.relations]
        met = self.met.get(data.name)
        h1, h2 = _NodeMemo.keys(keys, self.salts[data.name])
        rows = self._entity_rows(data, keys, self.nodes.get(h1, h2),
                                 met.add(h1, h2, peek=True) if met is not None else None)
        created: list[tuple[np.ndarray, np.ndarray]] = []  # (entity positions, node ids) per query

        def work(tx: Tx) -> None:
            created.clear()
            self._write_relations(tx, data, relations)
            self._write_entities(tx, data.name, rows, created)
            if chunk.names:
                tx.run(cypher("batched/merge_names"), rows=chunk.names, kg=data.name, load=self.load).consume()

        self.entities_merged += len(rows.merge)
        if relations or chunk.names or rows.create or rows.merge or rows.extra:
            self.graph.in_transaction(work)  # what it wrote is remembered once it is committed:
        self.relations.update((data.name, rid) for rid in relations)
        if created:
            index, node = (np.concatenate(parts) for parts in zip(*created, strict=True))
            self.nodes.put(h1[index], h2[index], node)
        if met is not None:
            met.add(h1, h2)
        statements = _Statements(data.name, self._triples(data, rows.nodes), self._literals(data, rows.nodes),
                                 chunk.gold, chunk.size, data.duplicate_triples)
        data.close()
        return statements

    def _write_relations(self, tx: Tx, data: KGData, relations: list[str]) -> None:
        """The relation catalogue rows first met in this chunk (with the dump's names, when known)."""
        if relations:
            known = self.source.relation_props
            rows = [{"id": rid, "props": {**data.relations[rid], **known.get(rid, {})}} for rid in relations]
            tx.run(cypher("batched/merge_relations"), rows=rows, kg=data.name, load=self.load).consume()

    @staticmethod
    def _entity_rows(data: KGData, keys: list[str], known: np.ndarray, maybe: np.ndarray | None) -> _EntityRows:
        """What the chunk's entities need: node ids the memo ``known`` (-1: not known); rows to CREATE (``maybe``
        False: never met, in a fresh KG) or MERGE; properties beyond the name to set by node id."""
        rows = _EntityRows(known)
        fresh = maybe.tolist() if maybe is not None else None
        props_of = data.entities
        for i in (np.flatnonzero(known >= 0).tolist() if props_of else []):
            if keys[i] in props_of:
                rows.extra.append((i, props_of[keys[i]]))
        for i in np.flatnonzero(known < 0).tolist():
            key = keys[i]
            props = props_of.get(key)
            rest = props
            if fresh is not None and not fresh[i]:
                rows.create.append([i, key, props.get("name", key) if props else key])
                rest = {k: v for k, v in props.items() if k != "name"} if props else None
            else:
                rows.merge.append([i, key])
            if rest:
                rows.extra.append((i, rest))
        return rows

    def _write_entities(self, tx: Tx, kg: str, rows: _EntityRows,
                        created: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """CREATE and MERGE ``rows``' entities (filling in their node ids), then set the extra properties."""
        for query, part in (("batched/create_entities", rows.create), ("batched/merge_entities", rows.merge)):
            if part:
                written = tx.run(cypher(query), rows=part, kg=kg, load=self.load).single(strict=True)
                index, node = np.array(written["i"], dtype=np.int64), np.array(written["node"], dtype=np.int64)
                rows.nodes[index] = node
                created.append((index, node))
        if rows.extra:
            tx.run(cypher("batched/set_entities"),
                   rows=[[int(rows.nodes[i]), props] for i, props in rows.extra]).consume()

    def _triples(self, data: KGData, nodes: np.ndarray) -> list[dict[str, Any]]:
        """The chunk's triples as groups by relation (type, rel and name once per group), between node ids."""
        heads, rels, tails = data.triple_arrays()
        if not len(heads):
            return []
        order = np.argsort(rels, kind="stable")
        rels = rels[order]
        pairs = np.stack([nodes[heads[order]], nodes[tails[order]]], axis=1)
        relations = list(data.relations.items())
        names = self._names(relations)
        cuts = (np.flatnonzero(np.diff(rels)) + 1).tolist()
        groups = []
        for a, b in zip([0, *cuts], [*cuts, len(rels)], strict=True):
            key, props = relations[rels[a]]
            groups.append({"type": props["type"], "rel": key, "name": names[rels[a]],
                           "heads": pairs[a:b, 0].tolist(), "tails": pairs[a:b, 1].tolist()})
        ids = np.array([self._relation_index(key, props["type"]) for key, props in relations], dtype=np.int64)
        self._spool(data.name, pairs[:, 0], pairs[:, 1], ids[rels], np.full(len(rels), -1, dtype=np.int64),
                    literal=False)
        return groups

    def _literals(self, data: KGData, nodes: np.ndarray) -> list[dict[str, Any]]:
        if not data.counts()["literals"]:
            return []
        """The chunk's literal statements as groups by relation, in columns (node ids, literal ids, values,
        datatypes, languages), like :meth:`_triples`."""
        relations = list(data.relations.items())
        names = self._names(relations)
        heads, rels, ids, values, datatypes, langs = zip(*data.literal_rows(), strict=True)
        node = nodes[np.array(heads, dtype=np.int64)]
        rel = np.array(rels, dtype=np.int64)
        keys = np.fromiter((int(i[:16], 16) for i in ids), dtype=np.uint64, count=len(ids))
        low = np.fromiter((int(i[16:], 16) for i in ids), dtype=np.int64, count=len(ids))
        index = np.array([self._relation_index(key, props["type"]) for key, props in relations], dtype=np.int64)
        self._spool(data.name, node, keys.view(np.int64), index[rel], low, literal=True)
        groups = []
        for r in np.unique(rel).tolist():
            at = np.flatnonzero(rel == r).tolist()
            key, props = relations[r]
            groups.append({"type": props["type"], "rel": key, "name": names[r], "nodes": node[at].tolist(),
                           "ids": [ids[i] for i in at], "values": [values[i] for i in at],
                           "datatypes": [datatypes[i] for i in at], "langs": [langs[i] for i in at]})
        return groups

    # -- stage 2: statements (several chunks at once) -------------------------------------------------
    def _write_statements(self, chunk: _Statements) -> _Statements:
        tag = None if self.fresh[chunk.kg] else self.load  # a fresh KG's statements: one end carries the tag

        def work(tx: Tx) -> None:
            if chunk.groups:
                tx.run(cypher("batched/create_triples"), rows=chunk.groups, load=tag).consume()
            if chunk.literals:
                tx.run(cypher("batched/create_literals"), rows=chunk.literals, kg=chunk.kg, load=self.load,
                       tag=tag).consume()
            if chunk.gold:
                tx.run(cypher("batched/merge_gold_links"), rows=chunk.gold, kg1=self.source.kgs[0][0],
                       kg2=self.source.kgs[1][0], dataset=self.source.dataset, load=self.load).consume()

        if chunk.groups or chunk.literals or chunk.gold:
            self.graph.in_transaction(work)
        return chunk

    def _names(self, relations: list[tuple[str, dict[str, Any]]]) -> list[str]:
        """The readable name of each relation (by relation index): the dump's label when known, else its own."""
        known = self.source.relation_props
        return [known.get(rid, props)["name"] for rid, props in relations]

    def _relation_index(self, rel: str, type_: str) -> int:
        index = self.relation_ids.get(rel)
        if index is None:
            index = self.relation_ids[rel] = len(self.relation_rows)
            self.relation_rows.append((type_, rel))
        return index

    def _spool(self, kg: str, heads: np.ndarray, other: np.ndarray, rels: np.ndarray, low: np.ndarray, *,
               literal: bool) -> None:
        """Remember the statements that may repeat one written before (all of them when the KG held statements
        before this load), as rows [head node, tail node | literal id's first 64 bits, relation index, -1 | the
        literal id's last 16 bits, KG index]: the Bloom filter ``seen`` rules out the others."""
        maybe = self.seen.add(heads, other, low if literal else rels)
        if not self.fresh[kg]:
            maybe[:] = True
        if not maybe.any():
            return
        self.possible_repeats += int(maybe.sum())
        rows = np.stack([heads[maybe], other[maybe], rels[maybe], low[maybe],
                         np.full(int(maybe.sum()), self.kg_index[kg], dtype=np.int64)], axis=1)
        self.suspects.write(rows.astype(np.int64).tobytes())

    def dedup(self) -> dict[str, int]:
        """Remove repeated statements (across batches, or of statements stored before) among the spooled possible
        repeats, a few thousand per transaction; returns removed counts by KG (plus in-batch repeats)."""
        self.suspects.seek(0)
        removed = dict(self.duplicates)
        kgs = [kg for kg, _ in self.source.kgs]
        while block := self.suspects.read(40 * _SPOOL_BLOCK):
            rows = np.unique(np.frombuffer(block, dtype=np.int64).reshape(-1, 5), axis=0)
            for kg_index, kg in enumerate(kgs):
                mine = rows[rows[:, 4] == kg_index]
                triples, literals = mine[mine[:, 3] < 0], mine[mine[:, 3] >= 0]
                parts = [("batched/dedup_triples", [[h, t, *self.relation_rows[r]] for h, t, r, _, _ in part])
                         for part in _slices_of(triples.tolist())]
                parts += [("batched/dedup_literals",
                           [[h, *self.relation_rows[r], f"{k & 0xFFFFFFFFFFFFFFFF:016x}{low:04x}"]
                            for h, k, r, low, _ in part]) for part in _slices_of(literals.tolist())]
                for query, part_rows in parts:
                    with self.graph.transaction() as tx:
                        deleted = tx.run(cypher(query), rows=part_rows, load=self.load).single(strict=True)["deleted"]
                    if deleted:
                        removed[kg] = removed.get(kg, 0) + deleted
        self.suspects.close()
        return removed

    def gold_splits(self) -> dict[str, int]:
        return dict(sorted(self.splits.items()))
