"""A Wikidata subgraph as id triple tables with separate label tables (the shape CoDEx and many dumps come in).

    head<TAB>property<TAB>tail        one or more files (Q…<TAB>P…<TAB>Q…), read as one KG
    relation labels                   {"P19": {"label": "place of birth", "description": …}} or {"P19": "…"}
                                      (JSON), or ``P19<TAB>place of birth[<TAB>description]`` lines (TSV)
    entity labels (optional)          the same shapes, keyed by entity id
    entity types (optional)           {"Q42": ["Q5", …]} (JSON), with type labels in the label shapes

What becomes what: entities and relations as every KG loader writes them (:mod:`kg_common`); an entity's ``name``
is its label (its id without one), ``description`` its description, ``types`` the labels of its types (ids
without labels) — what ``kgqa prepare`` embeds beside the name, so the answer type of a path can be read from
its end entities' types when they have no labels; a relation's ``name`` is its label. A KG whose relations have
no labels says so (:attr:`TablesLoadResult.unlabelled_relations`): their ids are their names, and KGQA reads them
as written.

Every file is read and checked before anything is written (a bad line names its file and line); the KG is written
in one transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgagents.errors import InputFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress, write_kg
from kgagents.loaders.record import LoadRecord, file_sha256, record_load
from kgagents.loaders.triples import iter_triples

Labels = dict[str, dict[str, str]]  # id -> {"label": …, "description"?: …}


class TablesLoadResult(KGLoadResult):
    """A load's counts, and which relations have no label (their ids are their names)."""

    unlabelled_relations: list[str] = []
    labelled_entities: int = 0
    typed_entities: int = 0


def read_labels(path: Path) -> Labels:
    """A label table: JSON ``{id: label}`` / ``{id: {"label", "description"?}}``, or TSV ``id<TAB>label
    [<TAB>description]`` lines (blank lines and ``#`` comments skipped)."""
    if not path.is_file():
        raise InputFileError(f"label file not found: {path}")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise ParseError(str(path), None, "expected a JSON object {id: label} or {id: {\"label\": …}}")
        out: Labels = {}
        for key, value in data.items():
            if isinstance(value, str):
                out[key] = {"label": value}
            elif isinstance(value, dict) and isinstance(value.get("label"), str):
                out[key] = {k: v for k, v in value.items() if k in ("label", "description") and isinstance(v, str)}
            else:
                raise ParseError(str(path), None, f"{key}: expected a label text or an object with a 'label' "
                                                  f"text, got {str(value)[:80]!r}")
        return out
    labels: Labels = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) not in (2, 3) or not fields[0] or not fields[1]:
            raise ParseError(str(path), lineno, f"expected 'id<TAB>label[<TAB>description]', got {line[:120]!r}")
        labels[fields[0]] = {"label": fields[1], **({"description": fields[2]} if len(fields) == 3 else {})}
    return labels


def read_types(path: Path) -> dict[str, list[str]]:
    """An entity-type table: JSON ``{entity id: [type id, …]}``."""
    if not path.is_file():
        raise InputFileError(f"entity-type file not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ParseError(str(path), None, "expected a JSON object {entity id: [type id, …]}")
    return {k: [str(t) for t in v] for k, v in data.items()}


def parse_tables(paths: Sequence[Path], *, kg: str, relation_labels: Labels | None = None,
                 entity_labels: Labels | None = None, entity_types: Mapping[str, list[str]] | None = None,
                 type_labels: Labels | None = None) -> KGData:
    """The triple files and label tables as one :class:`KGData` (see the module docstring)."""
    data = KGData(kg, {"source": ", ".join(str(p) for p in paths), "format": "wikidata-tables"})
    relation_labels = relation_labels or {}
    for path in paths:
        for head, rel, tail in iter_triples(path, "\t"):
            data.entity(head)
            data.entity(tail)
            if rel not in data.relations:
                texts = relation_labels.get(rel, {})
                data.relation(rel, name=texts.get("label") or rel, type=rel, description=texts.get("description"))
            data.triple(head, rel, tail)
    entity_labels, entity_types, type_labels = entity_labels or {}, entity_types or {}, type_labels or {}
    for eid in data.entity_index:
        texts = entity_labels.get(eid, {})
        types = [type_labels.get(t, {}).get("label") or t for t in entity_types.get(eid, [])]
        if texts or types:
            data.entity(eid, name=texts.get("label"), description=texts.get("description"),
                        types=list(dict.fromkeys(types)) or None,
                        type_names=", ".join(dict.fromkeys(types)) or None)
    return data


def load_tables(graph: Graph, paths: Sequence[Path | str], *, kg: str, relation_labels: Path | None = None,
                entity_labels: Path | None = None, entity_types: Path | None = None, type_labels: Path | None = None,
                progress: Progress | None = None) -> TablesLoadResult:
    """Read every file (nothing is written if one is bad), then write the KG in one transaction and record the
    load."""
    start = time.perf_counter()
    files = [Path(p) for p in paths]
    for path in files:
        if not path.is_file():
            raise InputFileError(f"triple file not found: {path}")
    if entity_types is None and type_labels is not None:
        raise InputFileError("type labels were given without entity types (--entity-types FILE)")
    relations = read_labels(relation_labels) if relation_labels else None
    data = parse_tables(files, kg=kg, relation_labels=relations,
                        entity_labels=read_labels(entity_labels) if entity_labels else None,
                        entity_types=read_types(entity_types) if entity_types else None,
                        type_labels=read_labels(type_labels) if type_labels else None)
    extra = [p for p in (relation_labels, entity_labels, entity_types, type_labels) if p is not None]
    ensure_schema(graph)
    with graph.transaction() as tx:
        written = write_kg(graph, tx, data, progress)
        record_load(tx, LoadRecord(kind="kg_wikidata_tables", target=kg, path=str(files[0]),
                                   sha256=file_sha256(*files, *extra), counts=data.counts(),
                                   seconds=time.perf_counter() - start))
    result = TablesLoadResult(**written.model_dump(), **_label_counts(data))
    result.seconds = time.perf_counter() - start
    return result


def _label_counts(data: KGData) -> dict[str, Any]:
    return {"unlabelled_relations": sorted(k for k, v in data.relations.items() if v["name"] == v["type"]),
            "labelled_entities": sum(1 for k in data.entity_index if data.entity_props(k)["name"] != k),
            "typed_entities": sum(1 for k in data.entity_index if data.entity_props(k).get("types"))}
