"""Graph-native key joins: normalised names stored in the graph and joined in Cypher.

Exact-key signals (Agent-OM's lexical pre-match, EA's exact-name equality) are joins on a normalised string.
Python computes the keys with the matcher's own normaliser (one function, so the join means what it did
before) and writes them once as shared ``(:MatchKey {kind, text})`` nodes — unique on (kind, text), so the
text is indexed — linked from each node by ``[:HAS_KEY {kind, synonym}]``. Two nodes share a key when
they reach the same MatchKey node: the join is a two-hop traversal in the database, and only the joined
pairs come back. ``kind`` namespaces the normaliser (and anything else that must agree, e.g. the entity
kind); ``synonym`` records whether the key came from a synonym rather than a label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kgagents.candidates.scopes import resolve_keys
from kgagents.cypher import cypher
from kgagents.embeddings.index import Scope, render
from kgagents.graph.connection import Graph, Row

WRITE_BATCH = 5000
KeySpec = tuple[str, str, bool]  # (kind, text, synonym)


def key_rows(keyed: Mapping[str, Iterable[KeySpec]]) -> list[Row]:
    """``{node key: [(kind, text, synonym)]}`` → one write row per node with its distinct (kind, text) keys;
    a text that is both a label and a synonym counts as a label; empty texts are dropped."""
    rows = []
    for node, keys in keyed.items():
        best: dict[tuple[str, str], bool] = {}
        for kind, text, synonym in keys:
            if text:
                best[(kind, text)] = best.get((kind, text), True) and synonym
        rows.append({"key": node, "keys": [{"kind": k, "text": t, "synonym": s} for (k, t), s in sorted(best.items())]})
    return rows


def write_keys(graph: Graph, scope: Scope, keyed: Mapping[str, Iterable[KeySpec]], kinds: Sequence[str]) -> int:
    """Replace the ``kinds`` keys of the nodes of ``scope`` named in ``keyed``, in one transaction (a failure
    leaves the old keys); returns the number of links written.

    The keys are resolved to element ids in one pass over the scope first: a node key alone (an entity's ``id``
    without its ``kg``) is not indexed, and matching it row by row would scan the label once per row."""
    ids = resolve_keys(graph, scope, list(keyed))
    rows = [{"id": ids[row["key"]], "keys": row["keys"]} for row in key_rows(keyed) if row["key"] in ids]
    clear, write = cypher("candidates/clear_keys"), cypher("candidates/write_keys")
    with graph.transaction() as tx:
        for start in range(0, len(rows), WRITE_BATCH):
            chunk = rows[start:start + WRITE_BATCH]
            tx.run(clear, rows=chunk, kinds=list(kinds)).consume()
            tx.run(write, rows=chunk).consume()
    return sum(len(r["keys"]) for r in rows)


def shared_keys(graph: Graph, source: Scope, target: Scope, *, kinds: Sequence[str],
                sources: Sequence[str] | None = None, targets: Sequence[str] | None = None,
                exclude: Iterable[str] = ()) -> list[Row]:
    """Pairs (source key, target key) of the two scopes sharing a key of ``kinds``, with the key kind and whether
    each side holds it as a synonym; ``sources`` / ``targets`` (keys) limit the two sides, ``exclude`` drops
    target keys. A node in both scopes may pair with itself (the same resource in two ontologies)."""
    query = render("candidates/shared_keys", source_label=source.label, target_label=target.label)
    return graph.run_text(query, source=source.params(), target=target.params(), kinds=list(kinds),
                          sources=_key_set(sources), targets=_key_set(targets), exclude=_key_set(exclude) or {})


def _key_set(keys: Iterable[str] | None) -> dict[str, bool] | None:
    """Keys as a map, which the query tests in constant time (``$map[key] IS NULL``); None stays None."""
    return None if keys is None else {key: True for key in keys}
