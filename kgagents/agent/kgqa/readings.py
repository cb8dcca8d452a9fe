"""Triple *readings*: the text of a triple as seen from one of its ends, and their stored vectors.

ODA scores a neighbouring triple by cosine(question, embedding of "relation tail"). An entity meets a triple from
either end, so every relation triple has two readings — the triple with the observing entity left out:

* seen from the head (outgoing): ``"<relation> <tail>"`` → ``directed by William Dieterle``
* seen from the tail (incoming): ``"<head> <relation>"`` → ``Kismet directed by``

Why stored, and why on the relationship: the observation scores hundreds to thousands of triples per question
and depth, and recomputing text embeddings per query would cost ~2 ms each on this CPU. Each reading's vector is
computed once per KG (``kgagents embed --kg <name> --triples``) and stored as a float32 vector property on the
relationship itself (``kgqa_out_vec`` / ``kgqa_in_vec``), so the candidate engine's ``exact`` back-end scores
exactly the neighbour triples' relationship ids in Cypher, one query per depth. Identical texts are embedded once
(MetaQA: 259,320 readings but 110,678 distinct texts, because "has genre Drama" is the same text for every
drama), and each vector is written with the hash of its text, so re-running after a reload embeds only what
changed, like :func:`kgagents.embeddings.index.embed_nodes`. A pass that wrote vectors records its cost on the
``(:KG)`` node (``kgqa_readings_*``), so benchmarks report the one-time cost where it was measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import text_sha
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph

OUT_VECTOR = "kgqa_out_vec"
IN_VECTOR = "kgqa_in_vec"
#: distinct texts embedded and written per transaction
WRITE_BATCH = 2000


def readable(relation: str) -> str:
    """A relation name as words: ``directed_by`` → ``directed by`` (Wikidata labels pass unchanged)."""
    return " ".join(relation.replace("_", " ").split())


def out_reading(relation: str, tail: str) -> str:
    """The triple seen from its head."""
    return f"{readable(relation)} {tail}"


def in_reading(head: str, relation: str) -> str:
    """The triple seen from its tail."""
    return f"{head} {readable(relation)}"


@dataclass
class ReadingStats:
    """What :func:`embed_triples` did. ``texts`` counts distinct texts embedded (≤ readings written)."""

    triples: int = 0
    readings_written: int = 0
    unchanged: int = 0
    texts: int = 0
    seconds: float = 0.0


def embed_triples(graph: Graph, embedder: Embedder, kg: str,
                  progress: Callable[[int], None] | None = None) -> ReadingStats:
    """Embed both readings of every relation triple of ``kg`` that has no vector for its current text."""
    started = time.perf_counter()
    rows = graph.run("kgqa/triple_texts", kg=kg, out_property=OUT_VECTOR, out_sha=f"{OUT_VECTOR}_sha",
                     in_property=IN_VECTOR, in_sha=f"{IN_VECTOR}_sha")
    if not rows:
        raise KgAgentsError(f"KG '{kg}' has no relation triples to embed; load it first (kgagents load kg …)")
    stats = ReadingStats(triples=len(rows))
    # per vector property: text → relationship ids needing it
    todo: dict[str, dict[str, list[str]]] = {OUT_VECTOR: {}, IN_VECTOR: {}}
    for row in rows:
        for prop, text, has, sha in ((OUT_VECTOR, out_reading(row["relation"], row["tail"]), row["has_out"],
                                      row["out_sha"]),
                                     (IN_VECTOR, in_reading(row["head"], row["relation"]), row["has_in"],
                                      row["in_sha"])):
            if has and sha == text_sha(embedder.name, text):
                stats.unchanged += 1
            else:
                todo[prop].setdefault(text, []).append(row["rid"])
    if progress is not None:
        progress(stats.unchanged)
    texts = sorted({t for per_prop in todo.values() for t in per_prop})
    stats.texts = len(texts)
    for start in range(0, len(texts), WRITE_BATCH):
        batch = texts[start:start + WRITE_BATCH]
        vectors = dict(zip(batch, embedder.embed(batch)))
        with graph.transaction() as tx:
            for prop, wanted in todo.items():
                payload = [{"ids": wanted[t], "vector": vectors[t].tolist(), "sha": text_sha(embedder.name, t)}
                           for t in batch if t in wanted]
                graph.write_rows(tx, "kgqa/write_triple_vectors", payload, batch_size=500,
                                 vector_property=prop, sha_property=f"{prop}_sha")
                written = sum(len(p["ids"]) for p in payload)
                stats.readings_written += written
                if progress is not None:
                    progress(written)
    stats.seconds = time.perf_counter() - started
    if stats.readings_written:
        graph.run("kgqa/record_readings", kg=kg, seconds=round(stats.seconds, 2), texts=stats.texts,
                  written=stats.readings_written, embedder=embedder.name,
                  at=datetime.now(timezone.utc).isoformat())
    return stats


def readings_record(graph: Graph, kg: str) -> dict[str, object] | None:
    """The recorded cost of the last pass that embedded readings of ``kg`` (seconds, texts, written, embedder)."""
    rows = graph.run("kgqa/readings_record", kg=kg)
    return rows[0] if rows and rows[0]["seconds"] is not None else None


def require_triple_vectors(graph: Graph, kg: str) -> int:
    """The number of relation triples of ``kg``; an error telling what to run if any lacks its readings."""
    row = graph.run("kgqa/count_triple_vectors", kg=kg, out_property=OUT_VECTOR, in_property=IN_VECTOR)[0]
    if row["triples"] == 0:
        raise KgAgentsError(f"KG '{kg}' is not loaded (no relation triples); load it with `kgagents load kg`")
    if row["embedded"] < row["triples"]:
        raise KgAgentsError(f"KG '{kg}': {row['triples'] - row['embedded']} of {row['triples']} triples have no "
                            f"reading vectors; run `kgagents embed --kg {kg} --triples` first")
    return row["triples"]
