"""Entity names as vectors and keys: what the name signals of retrieval compare.

Two vectors per entity, because the data gives names in more than one language:

* ``name_vec`` — the English name (translated ``name_en``, else ``name``) with the English embedder (MiniLM by
  default): the channel of the original EA-Agent retriever, strong when a good translation exists;
* ``name_ml`` — every name the dataset gives the entity (URI name, translations, labels in any language) with a
  multilingual embedder (multilingual-e5-small), each name embedded on its own and the normalised mean stored:
  one vector that sits near every language's spelling, so a Chinese label, its English translation and the English
  target's own label reinforce one another (the UDCEA recipe: translated names plus a multilingual encoder). No
  language is special: whatever ``name``/``name_*``/``label``/``label_*`` properties a loader wrote are used.

Both are incremental: a vector is stored with the hash of the model and its texts and recomputed only when they
change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.embeddings.index import WRITE_BATCH, EmbedStats, Scope, embed_nodes, text_sha
from kgagents.graph.connection import Graph
from kgagents.names import name_key

Progress = Callable[[int], None]


def embed_names(graph: Graph, embedder: Embedder, kgs: Iterable[str], settings: RetrievalSettings,
                progress: Progress | None = None, multilingual: Embedder | None = None) -> EmbedStats:
    """Embed the English name of every entity of ``kgs`` (name_en, else name) and, with a ``multilingual``
    embedder, the name-variant vectors (:func:`embed_name_variants`)."""
    total = EmbedStats()
    for kg in kgs:
        parts = [embed_nodes(graph, embedder, scope=Scope.kg(kg), text_properties=[("name_en", "name")],
                             vector_property=settings.vector_property, progress=progress)]
        if multilingual is not None:
            parts.append(embed_name_variants(graph, multilingual, kg, settings.multilingual_vector_property,
                                             progress))
        for stats in parts:
            total.embedded += stats.embedded
            total.unchanged += stats.unchanged
            total.empty += stats.empty
            total.seconds += stats.seconds
    return total


def distinct_names(names: Iterable[str | None]) -> list[str]:
    """The names of one entity that differ after :func:`name_key` (first spelling kept), sorted: the texts the
    name-variant vector is the mean of."""
    seen: dict[str, str] = {}
    for name in sorted(n.strip() for n in names if n and n.strip()):
        seen.setdefault(name_key(name) or name, name)
    return sorted(seen.values())


def embed_name_variants(graph: Graph, embedder: Embedder, kg: str, vector_property: str,
                        progress: Progress | None = None) -> EmbedStats:
    """Store on every entity of ``kg`` the normalised mean of the vectors of its distinct names (see the module
    docstring); entities whose names and model are unchanged are skipped, a text shared by several entities of one
    write batch is embedded once."""
    started = time.perf_counter()
    sha_property = f"{vector_property}_sha"
    stats = EmbedStats()
    todo: list[tuple[str, list[str], str]] = []
    for row in graph.run("alignment_ea/entity_name_texts", kg=kg, vector_property=vector_property,
                         sha_property=sha_property):
        texts = distinct_names(row["names"])
        if not texts:
            stats.empty += 1
            continue
        sha = text_sha(embedder.name, "\x1f".join(texts))
        if row["has_vector"] and row["sha"] == sha:
            stats.unchanged += 1
        else:
            todo.append((row["node"], texts, sha))
    if progress is not None and stats.total:
        progress(stats.total)
    for start in range(0, len(todo), WRITE_BATCH):
        batch = todo[start:start + WRITE_BATCH]
        unique = list(dict.fromkeys(t for _, texts, _ in batch for t in texts))
        position = {t: i for i, t in enumerate(unique)}
        vectors = embedder.embed(unique)
        means = l2_normalise(np.stack([vectors[[position[t] for t in texts]].mean(axis=0) for _, texts, _ in batch]))
        payload = [{"id": node, "vector": v.tolist(), "sha": sha}
                   for (node, _, sha), v in zip(batch, means, strict=True)]
        with graph.transaction() as tx:
            graph.write_rows(tx, "embeddings/write_vectors", payload,
                             vector_property=vector_property, sha_property=sha_property)
        stats.embedded += len(batch)
        if progress is not None:
            progress(len(batch))
    stats.seconds = time.perf_counter() - started
    return stats
