"""Node vectors in Neo4j: computing them incrementally and indexing them.

Why it is shaped this way:

* A :class:`Scope` names the nodes an operation covers — one label, optionally narrowed to one
  ontology (``$value IN n.ontologies``, since a :Resource may belong to several) or one KG
  (``n.kg = $value``). Every function here takes scopes, so the matching agents say "classes of
  ontology A against classes of ontology B" the same way for ontologies and KGs.
* Each vector is stored with the SHA-256 of the model name and the text it came from, so
  re-embedding after a reload only computes what changed; vectors are written per batch in their
  own transaction, so an interrupted run resumes where it stopped.
* Nearest-neighbour search over these vectors is the candidate engine's job
  (:mod:`kgagents.candidates`): a vector index per searched scope, exact Cypher cosine or GDS KNN.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kgagents.cypher import cypher
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.embeddings.cache import VectorCache, default_cache, embed_cached
from kgagents.errors import KgAgentsError, VectorIndexError
from kgagents.graph.connection import Graph

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
# Vectors embedded and written per transaction.
WRITE_BATCH = 1000
INDEX_TIMEOUT_S = 300


def identifier(value: str, what: str) -> str:
    """``value`` if it is a plain Neo4j identifier (safe to place in query text), else an error."""
    if not _IDENTIFIER.match(value):
        raise KgAgentsError(f"'{value}' is not a usable {what} name (letters, digits and _, not starting with a digit)")
    return value


def render(name: str, **identifiers: str) -> str:
    """The named query with its ``{{placeholder}}`` identifiers filled in, each validated first."""
    text = cypher(name)
    wanted = set(_PLACEHOLDER.findall(text))
    if wanted != set(identifiers):
        raise KgAgentsError(f"query '{name}' needs identifiers {sorted(wanted)}, got {sorted(identifiers)}")
    return _PLACEHOLDER.sub(lambda m: identifier(identifiers[m.group(1)], m.group(1)), text)


@dataclass(frozen=True)
class Scope:
    """Which nodes: every node with ``label``, or only those whose ``key`` property equals (or, when
    ``many``, is a list containing) ``value``. Use :meth:`ontology` or :meth:`kg` for the usual two."""

    label: str
    key: str | None = None
    value: str | None = None
    many: bool = False

    def __post_init__(self) -> None:
        identifier(self.label, "label")
        if self.key is not None:
            identifier(self.key, "property")
            if self.value is None:
                raise KgAgentsError(f"scope on '{self.key}' needs a value")

    @classmethod
    def ontology(cls, name: str, label: str = "Resource") -> Scope:
        """Nodes of one ontology (n10s model: ``n.ontologies`` lists every ontology mentioning the node)."""
        return cls(label, "ontologies", name, many=True)

    @classmethod
    def kg(cls, name: str, label: str = "Entity") -> Scope:
        """Nodes of one knowledge graph (``n.kg``)."""
        return cls(label, "kg", name)

    def params(self) -> dict[str, Any]:
        return {"label": self.label, "key": self.key, "value": self.value, "many": self.many}


@dataclass(frozen=True)
class VectorIndex:
    name: str
    label: str
    property: str
    dimensions: int
    similarity: str
    state: str


@dataclass
class EmbedStats:
    """What :func:`embed_nodes` did: nodes in scope = embedded + unchanged + empty; of the distinct texts of the
    embedded nodes, how many the model embedded and how many the vector cache gave."""

    embedded: int = 0
    unchanged: int = 0
    empty: int = 0
    seconds: float = 0.0
    texts_embedded: int = 0
    texts_cached: int = 0

    @property
    def total(self) -> int:
        return self.embedded + self.unchanged + self.empty


# -- indexes --------------------------------------------------------------------------------------
def vector_indexes(graph: Graph) -> list[VectorIndex]:
    """Every node vector index in the database."""
    return [VectorIndex(**row) for row in graph.run("embeddings/vector_indexes")]


def vector_index(graph: Graph, name: str) -> VectorIndex:
    """The named vector index, or an error telling how to create it."""
    for index in vector_indexes(graph):
        if index.name == name:
            return index
    raise VectorIndexError(f"No vector index named '{name}'. Create it with ensure_vector_index() after embedding.")


def ensure_vector_index(graph: Graph, *, name: str, label: str, property: str, dimensions: int,
                        m: int | None = None, ef_construction: int | None = None,
                        timeout_s: float = INDEX_TIMEOUT_S) -> VectorIndex:
    """Create (if missing) a cosine vector index and wait until it is ONLINE.

    An existing index of that name must match label, property, dimension and similarity: a silent
    mismatch would leave every vector of the wrong length out of the index. ``m`` / ``ef_construction``
    set the HNSW build parameters of a new index (server defaults 16 / 100 when not given).
    """
    identifier(name, "index")
    existing = {index.name: index for index in vector_indexes(graph)}
    index = existing.get(name)
    if index is None:
        for other in existing.values():
            if (other.label, other.property) == (label, property):
                raise VectorIndexError(
                    f"Vector index '{other.name}' already covers :{label}({property}); use that name or drop it "
                    f"(DROP INDEX {other.name}) before creating '{name}'."
                )
        options = {"indexConfig": {
            "vector.dimensions": dimensions,
            "vector.similarity_function": "cosine",
            # Full-precision vectors: scores must agree with exact cosine (and GDS) for matching thresholds.
            "vector.quantization.enabled": False,
        }}
        if m is not None:
            options["indexConfig"]["vector.hnsw.m"] = m
        if ef_construction is not None:
            options["indexConfig"]["vector.hnsw.ef_construction"] = ef_construction
        graph.run_text(render("embeddings/create_vector_index", label=label, property=property),
                       index_name=name, options=options)
        index = vector_index(graph, name)
    wanted = (label, property, dimensions, "cosine")
    found = (index.label, index.property, index.dimensions, index.similarity)
    if found != wanted:
        raise VectorIndexError(
            f"Vector index '{name}' exists for :{index.label}({index.property}) with {index.dimensions} dimensions "
            f"and {index.similarity} similarity, but :{label}({property}) with {dimensions} dimensions and cosine "
            f"was asked for (another embedding model?). Drop it (DROP INDEX {name}) or use another index name."
        )
    graph.run("embeddings/await_index", index_name=name, timeout_s=timeout_s)
    return vector_index(graph, name)


def drop_vector_index(graph: Graph, name: str) -> None:
    """Remove the named index if present; the vectors stay on the nodes."""
    graph.run("embeddings/drop_index", index_name=name)


# -- embedding ------------------------------------------------------------------------------------
TextSpec = str | Sequence[str | Sequence[str]]


def text_groups(spec: TextSpec) -> list[tuple[str, ...]]:
    """``"label"`` → ``[("label",)]``; ``[("label", "name"), "comment"]`` → first non-empty of label/name, then
    comment."""
    groups = [spec] if isinstance(spec, str) else list(spec)
    out = [(g,) if isinstance(g, str) else tuple(g) for g in groups]
    for group in out:
        if not group:
            raise KgAgentsError("empty group in text_properties")
        for p in group:
            identifier(p, "property")
    return out


def _clean(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v).strip() for v in value if v is not None and str(v).strip())
    return "" if value is None else str(value).strip()


def text_of(values: dict[str, Any], groups: Sequence[tuple[str, ...]]) -> str:
    """The text embedded for a node: per group the first non-empty property (lists joined by ', '),
    groups joined by '. '."""
    pieces = (next((t for t in (_clean(values.get(p)) for p in group) if t), "") for group in groups)
    return ". ".join(p for p in pieces if p)


def text_sha(model: str, text: str) -> str:
    """Hash stored beside a vector: a new text or a new model both mean a new vector."""
    return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()


def _unknown_scope(graph: Graph, scope: Scope) -> KgAgentsError:
    """No node is in ``scope``: name the values that do exist (a misspelt KG or ontology name is the usual cause)."""
    known = [r["value"] for r in graph.run_text(render("embeddings/scope_values", label=scope.label),
                                                 key=scope.key, many=scope.many)]
    what, plural = {"kg": ("KG", "KGs"), "ontologies": ("ontology", "ontologies")}.get(
        scope.key or "", (f"{scope.key} value", f"{scope.key} values"))
    loaded = ", ".join(map(str, known[:20])) + (f" … ({len(known)} in all)" if len(known) > 20 else "")
    return KgAgentsError(f"no {what} named '{scope.value}' (no :{scope.label} node has it); "
                         + (f"the {plural} loaded: {loaded}" if known else f"no {what} is loaded")
                         + ". Nothing was embedded.")


def embed_nodes(
    graph: Graph,
    embedder: Embedder,
    *,
    scope: Scope,
    text_properties: TextSpec,
    vector_property: str,
    progress: Callable[[int], None] | None = None,
) -> EmbedStats:
    """Embed the text of every node in ``scope`` into ``vector_property``, skipping unchanged texts.

    ``text_properties`` is one property, or a list whose items are properties or groups of
    alternatives (see :func:`text_of`): ``[("label", "name"), "comment"]`` embeds the label (the local
    name when there is none) followed by the comment. The hash goes into ``<vector_property>_sha``.
    Nodes without any text are left alone (counted as ``empty``). ``progress`` receives node
    counts: the skipped ones first, then each written batch.
    """
    started = time.perf_counter()
    groups = text_groups(text_properties)
    props = list(dict.fromkeys(p for group in groups for p in group))
    sha_property = f"{identifier(vector_property, 'property')}_sha"
    rows = graph.run_text(
        render("embeddings/read_texts", label=scope.label),
        scope=scope.params(), text_properties=props, sha_property=sha_property, vector_property=vector_property,
    )
    if not rows and scope.key is not None:
        raise _unknown_scope(graph, scope)
    pending = [Pending(row["id"], [text] if (text := text_of(dict(zip(props, row["parts"], strict=True)), groups))
                       else [], row["has_vector"], row["sha"]) for row in rows]
    return embed_pending(graph, embedder, pending, vector_property=vector_property, progress=progress,
                         started=started)


@dataclass(frozen=True)
class Pending:
    """A node that may need a vector: its element id, the texts its vector is the (normalised) mean of, and what is
    stored now (a vector? the hash it was made from)."""

    node: str
    texts: Sequence[str]
    has_vector: bool
    stored_sha: str | None


def embed_pending(graph: Graph, embedder: Embedder, pending: Sequence[Pending], *, vector_property: str,
                  progress: Callable[[int], None] | None = None, started: float | None = None,
                  cache: VectorCache | None | Literal["default"] = "default") -> EmbedStats:
    """Embed and store the vectors of ``pending`` nodes whose texts or model changed (hash in
    ``<vector_property>_sha``), one transaction per :data:`WRITE_BATCH` nodes; a node with several texts gets the
    normalised mean of their vectors, and a text shared by nodes of one batch is embedded once, a text the vector
    ``cache`` holds (default: :func:`~kgagents.embeddings.cache.default_cache`) not at all. Nodes without text are
    left alone (``empty``). ``progress`` receives node counts: the skipped ones first, then each batch."""
    started = time.perf_counter() if started is None else started
    cache = default_cache() if cache == "default" else cache
    sha_property = f"{identifier(vector_property, 'property')}_sha"
    stats = EmbedStats()
    todo: list[tuple[str, Sequence[str], str]] = []
    for item in pending:
        if not item.texts:
            stats.empty += 1
            continue
        sha = text_sha(embedder.name, "\x1f".join(item.texts))
        if item.has_vector and item.stored_sha == sha:
            stats.unchanged += 1
        else:
            todo.append((item.node, item.texts, sha))
    if progress is not None and stats.total:
        progress(stats.total)
    for start in range(0, len(todo), WRITE_BATCH):
        batch = todo[start : start + WRITE_BATCH]
        unique = list(dict.fromkeys(t for _, texts, _ in batch for t in texts))
        position = {t: i for i, t in enumerate(unique)}
        vectors, embedded = embed_cached(embedder, unique, [text_sha(embedder.name, t) for t in unique], cache)
        stats.texts_embedded += embedded
        stats.texts_cached += len(unique) - embedded
        means = [vectors[position[texts[0]]] if len(texts) == 1
                 else l2_normalise(vectors[[position[t] for t in texts]].mean(axis=0, keepdims=True))[0]
                 for _, texts, _ in batch]
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
