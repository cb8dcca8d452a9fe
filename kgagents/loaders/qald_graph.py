"""A small Wikidata graph for the QALD-10 one-hop questions, built from their gold triples.

The Wikidata neighbourhoods of the QALD-10 questions are not available offline; what the shared data has is
``qald_10-en_onehop_gold_triples.json``: for 72 questions, the gold ``wdt:`` triples answering them and the English
labels of their entities. This module writes those as Wikidata truthy N-Triples (``wd:Q… wdt:P… wd:Q…`` plus
``rdfs:label …@en``) and loads them with the ordinary Wikidata loader, so the KGQA agent runs on them like on any
user subgraph. What the graph contains is exactly those triples: every topic entity's only neighbours are its
gold triples (plus any other question's triples that share an entity), so scores on it measure the loop's
mechanics, not retrieval in a real neighbourhood. Property labels are not in the file: relations stay bare PIDs.
"""

from __future__ import annotations

import json
from pathlib import Path

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.kg_common import KGLoadResult
from kgagents.loaders.wikidata import RDFS_LABEL, WD, WDT, load_wikidata_nt


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"@en'


def qald_onehop_ntriples(path: Path | str) -> list[str]:
    """N-Triples lines (gold triples, then entity labels) for the one-hop file at ``path``."""
    path = Path(path)
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from None
    triples: dict[str, None] = {}
    labels: dict[str, str] = {}
    for i, rec in enumerate(records):
        try:
            for head, prop, tail in rec["gold_triples"]:
                triples[f"<{WD}{head}> <{WDT}{prop}> <{WD}{tail}> ."] = None
            labels.update(rec.get("labels", {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise ParseError(str(path), None, f"record {i}: expected gold_triples as [head, property, tail] "
                             f"lists ({exc})") from None
    return [*triples, *(f"<{WD}{q}> <{RDFS_LABEL}> {_literal(label)} ." for q, label in sorted(labels.items()))]


def load_qald_onehop(graph: Graph, path: Path | str, *, kg: str, nt_path: Path) -> KGLoadResult:
    """Write the graph as N-Triples to ``nt_path`` (kept, so the load record points at a real file) and load it."""
    nt_path.parent.mkdir(parents=True, exist_ok=True)
    nt_path.write_text("\n".join(qald_onehop_ntriples(path)) + "\n", encoding="utf-8")
    return load_wikidata_nt(graph, nt_path, kg=kg)
