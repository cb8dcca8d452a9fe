"""Load RDF/OWL ontologies into Neo4j in the neosemantics (n10s) ontology graph model.

Nodes: ``(:Resource:Class)``, ``(:Resource:Relationship)`` (object properties), ``(:Resource:Property)``
(datatype properties), one per URI however many ontologies mention it, each with ``ontologies`` listing
them and a ``DEFINED_IN`` edge to every ``(:Ontology)``. Edges: SCO, SPO, DOMAIN, RANGE,
EQUIVALENT_CLASS, DISJOINT_WITH and RESTRICTION {property, kind}. A file is parsed completely first
(see :mod:`kgagents.loaders.ontology_model`), then written in one transaction, so a bad file writes
nothing.

Loading a file under a name that is already loaded *replaces* that ontology: what a file says about a
resource is kept on its ``DEFINED_IN`` edge and every edge lists the ontologies asserting it, so a
reload first takes the old file's contribution back (edges, memberships, resources no other ontology
defines) and the node properties are derived again from every ontology that still defines the
resource. A re-load of an edited file therefore equals a fresh load of it, and reloading an unchanged
file changes nothing.

Ontologies are named by the file stem (lower case) unless a name is given. A default name already
used by an ontology from another file is refused (:class:`OntologyNameClashError`): two OAEI tasks
both shipping ``source.xml`` must not silently become one ontology.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from kgagents.cypher import cypher
from kgagents.errors import OntologyNameClashError, ParseError, ValueTooLargeError
from kgagents.graph.connection import Graph, Tx
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.ontology_model import (
    EdgeType,
    OntologyEdge,
    OntologyResource,
    ParsedOntology,
    ResourceKind,
    Restriction,
    default_name,
    parse_ontology,
)
from kgagents.loaders.rdf_read import RdfFormat
from kgagents.loaders.record import LoadRecord, file_sha256, record_load

__all__ = ["OntologyLoadResult", "default_name", "load_ontology", "parse_ontology", "write_ontology"]

Progress = Callable[[int], None]
_MIN_BATCH = 10_000  # rows are small; fewer round trips matter more than batch memory


class OntologyLoadResult(BaseModel):
    """What one load wrote and how long each half took (parse vs write, for the throughput benchmark)."""

    name: str
    path: str
    uri: str | None
    classes: int
    object_properties: int
    datatype_properties: int
    triples: int
    relationships: int
    parse_seconds: float
    write_seconds: float
    imports: list[str] = []  # the ontologies its header imports, which were not read
    #: other loaded ontology → how many of its resources (shared IRIs) this file gave names that ontology does not
    shared_names: dict[str, int] = {}

    def notes(self) -> list[str]:
        """What a user should know about this load (:meth:`imports_note`, :meth:`shared_note`), for the CLI."""
        return [note for note in (self.imports_note(), self.shared_note()) if note]

    def shared_note(self) -> str | None:
        """What a user should know when this load added names to resources another ontology declares too."""
        if not self.shared_names:
            return None
        which = ", ".join(f"'{o}' ({n})" for o, n in self.shared_names.items())
        return (f"{self.name} gives names to resources other loaded ontologies declare too (same IRIs): {which}. "
                "A resource is one node whose labels and synonyms are those of every ontology declaring it, so "
                "those ontologies now read these names too. If this file is a revised copy of one of them, load "
                "it under that ontology's name (--name) to replace it instead.")

    def imports_note(self) -> str | None:
        """What a user should know when the ontology imports others (None when it imports nothing)."""
        if not self.imports:
            return None
        shown = ", ".join(self.imports[:3]) + (f" and {len(self.imports) - 3} more" if len(self.imports) > 3 else "")
        return (f"{self.name} imports {len(self.imports)} ontolog{'y' if len(self.imports) == 1 else 'ies'} that "
                f"kgagents does not read ({shown}): their classes are not in '{self.name}', and axioms that refer to "
                "them are left out. To match them too, merge first (robot merge --input THIS --input IMPORTED "
                "--output merged.owl) and load the merged file.")

    @property
    def seconds(self) -> float:
        return self.parse_seconds + self.write_seconds

    @property
    def triples_per_second(self) -> float:
        return self.triples / self.seconds if self.seconds > 0 else 0.0


def load_ontology(
    graph: Graph,
    path: str | Path,
    *,
    name: str | None = None,
    format: str | RdfFormat | None = None,
    progress: Progress | None = None,
    replace: bool | None = None,
) -> OntologyLoadResult:
    """Parse ``path`` and write it as ontology ``name`` (default: the file stem, lower case).

    ``replace`` (default: whether ``name`` was given) lets the file replace an ontology of that name
    loaded from another file; otherwise that is an :class:`OntologyNameClashError`. ``progress``
    receives the number of rows written after each batch; the total is ``parse_ontology(...).row_count``
    (call :func:`write_ontology` yourself to know it up front).
    """
    start = time.perf_counter()
    parsed = parse_ontology(path, name=name, format=format)
    return write_ontology(graph, parsed, progress=progress, parse_seconds=time.perf_counter() - start,
                          replace=name is not None if replace is None else replace)


def write_ontology(
    graph: Graph,
    parsed: ParsedOntology,
    *,
    progress: Progress | None = None,
    parse_seconds: float = 0.0,
    replace: bool = False,
) -> OntologyLoadResult:
    """Write an already parsed ontology in one transaction (replacing an earlier load under its name)
    and record the load. Without ``replace``, a name taken by an ontology from another file is refused."""
    start = time.perf_counter()
    ensure_schema(graph)
    try:
        with graph.transaction() as tx:
            if not replace:
                _refuse_name_clash(tx, parsed)
            result = _write(graph, tx, parsed, parse_seconds, progress=progress)
    except ValueTooLargeError as exc:
        raise _oversized(parsed, exc) from exc
    result.write_seconds = time.perf_counter() - start  # now including the commit
    return result


def _oversized(parsed: ParsedOntology, exc: ValueTooLargeError) -> ParseError:
    """Name the resource (and its line) whose URI or local name Neo4j could not index."""
    value = max((v for r in parsed.resources for v in (r.uri, r.name)), key=lambda v: len(v.encode()))
    local = value.rsplit("#", 1)[-1].rsplit("/", 1)[-1] or value
    return ParseError(str(parsed.path), _line_of(parsed.path, local[:200]),
                      f"the URI or name {value[:60]!r}… has {len(value.encode()):,} bytes, more than Neo4j can index "
                      f"in :{exc.label}({exc.property}) (about 8 KB); shorten it")


def _line_of(path: Path, text: str) -> int | None:
    """The 1-based line where ``text`` first occurs in the file, if it does."""
    data = path.read_bytes()
    at = data.find(text.encode())
    return data.count(b"\n", 0, at) + 1 if at >= 0 else None


def _refuse_name_clash(tx: Tx, parsed: ParsedOntology) -> None:
    """An ontology of this name from another file (and with another ontology IRI, if both have one)."""
    loaded = tx.run(cypher("ontology/loaded"), name=parsed.name).single()
    if loaded is None or loaded["file"] == str(parsed.path.resolve()):
        return
    if parsed.uri is not None and loaded["uri"] == parsed.uri:
        return  # the same ontology, moved: a reload
    raise OntologyNameClashError(
        f"{parsed.path}: an ontology named '{parsed.name}' is already loaded from {loaded['file']} "
        f"(IRI {loaded['uri'] or 'none'}; this file's IRI is {parsed.uri or 'none'}). Give this one another "
        f"name (kgagents load ontology --name, kgagents match --source-name/--target-name), or pass that name "
        "explicitly to replace the loaded one. Nothing was written."
    )


def _write(graph: Graph, tx: Tx, parsed: ParsedOntology, parse_seconds: float, *,
           progress: Progress | None) -> OntologyLoadResult:
    """All writes of one ontology inside ``tx``, ending with its (:Load) record."""
    start = time.perf_counter()
    batch = max(graph.settings.batch_size, _MIN_BATCH)
    tx.run(cypher("ontology/unassert_edges"), ontology=parsed.name).consume()
    previous = {row["uri"] for row in tx.run(cypher("ontology/undefine"), ontology=parsed.name)}
    shared = {row["ontology"]: row["resources"] for row in tx.run(
        cypher("ontology/shared_names"), ontology=parsed.name,
        rows=[{"uri": r.uri, "labels": r.labels, "synonyms": r.synonyms} for r in parsed.resources])}
    tx.run(cypher("ontology/merge_ontology"), name=parsed.name, uri=parsed.uri, label_language=parsed.label_language,
           file=str(parsed.path.resolve()), label=parsed.label, comment=parsed.comment).consume()
    for kind, resources in ((ResourceKind.CLASS, parsed.classes),
                            (ResourceKind.RELATIONSHIP, parsed.object_properties),
                            (ResourceKind.PROPERTY, parsed.datatype_properties)):
        graph.write_rows(tx, "ontology/merge_resources", [_resource_row(r) for r in resources],
                         batch_size=batch, on_batch=progress, kind=kind.value, ontology=parsed.name)
    touched = [{"uri": uri} for uri in sorted(previous | {r.uri for r in parsed.resources})]
    graph.write_rows(tx, "ontology/derive_resources", touched, batch_size=batch)
    graph.write_rows(tx, "ontology/delete_orphans", [{"uri": uri} for uri in sorted(previous)], batch_size=batch)
    for edge_type, rows in _edge_rows(parsed.edges).items():
        # One static query per type: MERGE with a dynamic type $(...) scans every relationship.
        graph.write_rows(tx, f"ontology/merge_{edge_type.value.lower()}", rows, batch_size=batch,
                         on_batch=progress, ontology=parsed.name)
    graph.write_rows(tx, "ontology/merge_restrictions", [_restriction_row(r) for r in parsed.restrictions],
                     batch_size=batch, on_batch=progress, ontology=parsed.name)
    result = OntologyLoadResult(
        name=parsed.name, path=str(parsed.path), uri=parsed.uri,
        classes=len(parsed.classes), object_properties=len(parsed.object_properties),
        datatype_properties=len(parsed.datatype_properties), triples=parsed.triples,
        relationships=parsed.relationship_count, parse_seconds=parse_seconds,
        write_seconds=time.perf_counter() - start, imports=parsed.imports, shared_names=shared,
    )
    record_load(tx, LoadRecord(
        kind="ontology", target=parsed.name, path=str(parsed.path), sha256=file_sha256(parsed.path),
        counts={"classes": result.classes, "object_properties": result.object_properties,
                "datatype_properties": result.datatype_properties, "triples": result.triples,
                "relationships": result.relationships},
        seconds=result.seconds,
    ))
    return result


def _resource_row(r: OntologyResource) -> dict[str, object]:
    return {"uri": r.uri, "name": r.name, "label": r.label, "labels": r.labels, "comment": r.comment,
            "definitions": r.definitions, "synonyms": r.synonyms, "deprecated": r.deprecated,
            "datatype_range": r.datatype_range}


def _edge_rows(edges: list[OntologyEdge]) -> dict[EdgeType, list[dict[str, str]]]:
    """Edges grouped by type: one ``UNWIND`` per relationship type."""
    grouped: dict[EdgeType, list[dict[str, str]]] = defaultdict(list)
    for edge in edges:
        grouped[edge.type].append({"source": edge.source, "target": edge.target})
    return grouped


def _restriction_row(r: Restriction) -> dict[str, object]:
    return {"source": r.source, "property": r.property, "kind": r.kind, "target": r.target,
            "cardinality": r.cardinality}
