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

from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import EmbedStats, Pending, Scope, embed_nodes, embed_pending
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
            total.texts_embedded += stats.texts_embedded
            total.texts_cached += stats.texts_cached
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
    docstring); entities whose names and model are unchanged are skipped."""
    started = time.perf_counter()
    rows = graph.run("alignment_ea/entity_name_texts", kg=kg, vector_property=vector_property,
                     sha_property=f"{vector_property}_sha")
    pending = [Pending(row["node"], distinct_names(row["names"]), row["has_vector"], row["sha"]) for row in rows]
    return embed_pending(graph, embedder, pending, vector_property=vector_property, progress=progress,
                         started=started)
