"""Alignment API RDF/XML (the OAEI exchange format): read, write, and load into the graph.

Why a streaming SAX reader rather than rdflib: real OAEI files differ in ways an RDF parser either
rejects or silently reinterprets (``rdf:datatype='xsd:float'`` is a relative IRI, ``onto1`` is a
literal in older files and an ``Ontology`` node in newer ones, the anatomy reference omits
``onto1``/``onto2`` altogether), and a malformed file must be reported with its line number. SAX gives
both, in constant memory, and reads every file in ``om/`` (LogMap, Matcha, ALIN, the references).

Why the raw cells are stored as parallel lists on the ``(:Alignment)`` node and not as ``(:Cell)``
nodes: an alignment is read and scored as a whole, a reload replaces it as a whole (plain ``SET``,
idempotent, no per-cell key or extra schema), and the lists ``cell_entity1``, ``cell_entity2``,
``cell_relation``, ``cell_measure`` keep every cell in file order —
duplicates and cells whose entities are not in the graph included — so :func:`stored_alignment`
gives back exactly what :func:`read_alignment` read. The ``[:ALIGNED]`` relationships are the
graph view of the cells whose two entities exist as ``(:Resource)`` nodes.
"""

from __future__ import annotations

import math
import re
import xml.sax
from collections.abc import Callable, Iterable
from pathlib import Path
from time import perf_counter
from typing import Literal
from xml.sax.handler import ContentHandler, feature_namespaces
from xml.sax.saxutils import escape, quoteattr
from xml.sax.xmlreader import AttributesNSImpl, InputSource, Locator

from pydantic import BaseModel, ConfigDict, Field

from kgagents.cypher import cypher
from kgagents.errors import KgAgentsError, ParseError
from kgagents.graph.connection import Graph, Tx, batched
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.record import LoadRecord, file_sha256, record_load
from kgagents.loaders.xml_guard import check_xml

ALIGN_NS = "http://knowledgeweb.semanticweb.org/heterogeneity/alignment#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD_FLOAT = "http://www.w3.org/2001/XMLSchema#float"
# Some writers drop the trailing '#'; the elements mean the same.
_ALIGN_NAMESPACES = {ALIGN_NS, ALIGN_NS.rstrip("#")}

Relation = Literal["=", "<", ">", "%"]
# Alignment API relation names (BasicRelation and its class names) → the symbols OAEI files use.
_RELATION_ALIASES: dict[str, Relation] = {
    "=": "=", "equivalence": "=", "equivrelation": "=",
    "<": "<", "subsumedby": "<", "subsumedrelation": "<",
    ">": ">", "subsumes": ">", "subsumerelation": ">",
    "%": "%", "incompatible": "%", "incompatrelation": "%",
}


class Cell(BaseModel):
    """One correspondence: ``entity1 relation entity2`` with confidence ``measure``.

    ``measure`` is nominally in [0, 1] but is kept as written: real system output exceeds it
    (LogMap's OAEI 2022 anatomy alignment has 1.03 and 1.04), and OAEI scores such files as they are.
    """

    model_config = ConfigDict(frozen=True)

    entity1: str = Field(min_length=1)
    entity2: str = Field(min_length=1)
    relation: Relation = "="
    measure: float = Field(1.0, allow_inf_nan=False)


class Alignment(BaseModel):
    """An Alignment API alignment between ontology URIs ``onto1`` and ``onto2``.

    ``uri1``/``uri2`` are where the ontologies can be found (the ``location`` of the ``Ontology``
    element, or the legacy ``uri1``/``uri2`` elements); ``level`` and ``type`` are kept verbatim.
    """

    onto1: str
    onto2: str
    uri1: str | None = None
    uri2: str | None = None
    level: str = "0"
    type: str = "**"
    cells: list[Cell] = Field(default_factory=list)


class AlignmentLoad(BaseModel):
    """What :func:`load_alignment` did. ``missing`` lists every cell with an entity not in the graph."""

    name: str
    cells: int
    linked: int
    missing: list[Cell]


# -- reading -------------------------------------------------------------------------------------
class _Handler(ContentHandler):
    """Collects the alignment header and cells; raises ParseError at the offending line."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.locator: Locator | None = None
        self.stack: list[tuple[str, list[str]]] = []  # (local name if alignment-namespace else "", text)
        self.header: dict[str, str] = {}
        self.cells: list[Cell] = []
        self.found_alignment = False
        self.cell: dict[str, str] | None = None
        self.cell_line = 0
        self.entity_waiting: str | None = None  # entity1/2 given as a child node's rdf:about

    def setDocumentLocator(self, locator: Locator) -> None:  # noqa: N802 (SAX API)
        self.locator = locator

    def line(self) -> int:
        return (self.locator.getLineNumber() or 0) if self.locator else 0

    def fail(self, detail: str, line: int | None = None) -> ParseError:
        return ParseError(self.path, line or self.line(), detail)

    def parent(self, depth: int = 1) -> str:
        return self.stack[-depth][0] if len(self.stack) >= depth else ""

    def startElementNS(self, name: tuple[str | None, str], qname: str | None,  # noqa: N802
                       attrs: AttributesNSImpl) -> None:
        ns, local = name
        about = attrs.get((RDF_NS, "about"))
        if self.entity_waiting is not None and self.cell is not None:  # first child of entity1/2
            if not about:
                raise self.fail(f"<{self.entity_waiting}> holds a complex (EDOAL) entity; only entities "
                                "named by a URI are supported")
            self.cell[self.entity_waiting] = about
            self.entity_waiting = None
        local = local if ns in _ALIGN_NAMESPACES else ""
        if local == "Alignment":
            self.found_alignment = True
        elif local == "Cell":
            if self.cell is not None:
                raise self.fail("a <Cell> inside another <Cell>")
            self.cell, self.cell_line = {}, self.line()
        elif local in ("entity1", "entity2") and self.cell is not None:
            resource = attrs.get((RDF_NS, "resource"))
            if resource:
                self.cell[local] = resource
            else:
                self.entity_waiting = local
        elif local == "Ontology" and self.parent() in ("onto1", "onto2") and about:
            self.header[self.parent()] = about
        self.stack.append((local, []))

    def characters(self, content: str) -> None:
        if self.stack:
            self.stack[-1][1].append(content)

    def endElementNS(self, name: tuple[str | None, str], qname: str | None) -> None:  # noqa: N802
        local, parts = self.stack.pop()
        text = "".join(parts).strip()
        if local in ("entity1", "entity2") and self.entity_waiting == local:
            raise self.fail(f"<{local}> has neither rdf:resource nor a child with rdf:about")
        if self.cell is not None and local in ("relation", "measure"):
            self.cell[local] = text
        elif local == "Cell":
            self.cells.append(self.make_cell())
            self.cell = None
        elif local == "location" and self.parent(2) in ("onto1", "onto2") and text:
            self.header["uri" + self.parent(2)[-1]] = text
        elif local in ("onto1", "onto2") and text and local not in self.header:
            self.header[local] = text  # legacy form: <onto1>http://mouse.owl</onto1>
        elif local in ("uri1", "uri2", "level", "type") and text and self.parent() == "Alignment":
            self.header[local] = text

    def make_cell(self) -> Cell:
        cell = self.cell or {}
        for key in ("entity1", "entity2"):
            if not cell.get(key):
                raise self.fail(f"<Cell> has no <{key} rdf:resource=...>", self.cell_line)
        relation = _RELATION_ALIASES.get(cell.get("relation", "=").lower())
        if relation is None:
            raise self.fail(f"unknown relation {cell['relation']!r} in <Cell> "
                            "(expected one of '=', '<', '>', '%')", self.cell_line)
        raw = cell.get("measure", "1.0")
        try:
            measure = float(raw)
        except ValueError:
            raise self.fail(f"<measure> {raw!r} is not a number", self.cell_line) from None
        if not math.isfinite(measure):
            raise self.fail(f"<measure> {raw!r} is not a finite number", self.cell_line)
        return Cell(entity1=cell["entity1"], entity2=cell["entity2"], relation=relation, measure=measure)


def _namespace_of(uri: str) -> str:
    """``http://mouse.owl#MA_1`` → ``http://mouse.owl``; ``http://x.org/obo/A_1`` → ``http://x.org/obo/``."""
    return uri.rsplit("#", 1)[0] if "#" in uri else uri.rsplit("/", 1)[0] + "/"


def _infer_onto(path: str, cells: list[Cell], key: Literal["entity1", "entity2"]) -> str:
    """The ontology URI shared by every ``key`` of the cells (the anatomy reference omits onto1/onto2)."""
    spaces = {_namespace_of(getattr(c, key)) for c in cells}
    if len(spaces) != 1:
        side = key[-1]
        raise ParseError(path, None, f"no <onto{side}> and the {key} URIs do not share one namespace "
                                     f"({len(spaces)} found); add <onto{side}> to the <Alignment>")
    return spaces.pop()


def read_alignment(path: str | Path) -> Alignment:
    """Parse an Alignment API RDF/XML file; a malformed file raises :class:`ParseError` with its line."""
    name = str(path)
    check_xml(name)  # the same refusal of entity expansion, with the same message, as every other XML read
    handler = _Handler(name)
    parser = xml.sax.make_parser()
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(handler)
    try:
        with open(name, "rb") as stream:  # a file object: a str would be fetched as a URL
            source = InputSource(name)
            source.setByteStream(stream)
            parser.parse(source)
    except xml.sax.SAXParseException as exc:
        raise ParseError(name, exc.getLineNumber(), f"not well-formed XML: {exc.getMessage()}") from None
    except OSError as exc:
        raise ParseError(name, None, f"cannot read the file: {exc.strerror or exc}") from None
    if not handler.found_alignment:
        raise ParseError(name, None, f"no <Alignment> element in namespace {ALIGN_NS} "
                                     "(is this an Alignment API file?)")
    head, cells = handler.header, handler.cells
    return Alignment(
        onto1=head.get("onto1") or _infer_onto(name, cells, "entity1"),
        onto2=head.get("onto2") or _infer_onto(name, cells, "entity2"),
        uri1=head.get("uri1"), uri2=head.get("uri2"),
        level=head.get("level", "0"), type=head.get("type", "**"),
        cells=cells,
    )


# -- writing -------------------------------------------------------------------------------------
def _ontology(tag: str, onto: str, location: str | None) -> str:
    loc = f"\n      <location>{escape(location)}</location>" if location else ""
    return f"  <{tag}>\n    <Ontology rdf:about={quoteattr(onto)}>{loc}\n    </Ontology>\n  </{tag}>\n"


def write_alignment(alignment: Alignment, path: str | Path) -> None:
    """Write the Alignment API RDF/XML layout the OAEI tools (Alignment API, MELT) and :func:`read_alignment` read."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("<?xml version='1.0' encoding='utf-8' standalone='no'?>\n"
                  f"<rdf:RDF xmlns='{ALIGN_NS}'\n"
                  f"         xmlns:rdf='{RDF_NS}'\n"
                  "         xmlns:xsd='http://www.w3.org/2001/XMLSchema#'>\n"
                  "<Alignment>\n  <xml>yes</xml>\n"
                  f"  <level>{escape(alignment.level)}</level>\n  <type>{escape(alignment.type)}</type>\n")
        out.write(_ontology("onto1", alignment.onto1, alignment.uri1))
        out.write(_ontology("onto2", alignment.onto2, alignment.uri2))
        for cell in alignment.cells:
            out.write("  <map>\n    <Cell>\n"
                      f"      <entity1 rdf:resource={quoteattr(cell.entity1)}/>\n"
                      f"      <entity2 rdf:resource={quoteattr(cell.entity2)}/>\n"
                      f"      <relation>{escape(cell.relation)}</relation>\n"
                      f"      <measure rdf:datatype='{XSD_FLOAT}'>{cell.measure!r}</measure>\n"
                      "    </Cell>\n  </map>\n")
        out.write("</Alignment>\n</rdf:RDF>\n")


# -- the graph -----------------------------------------------------------------------------------
def _existing_uris(tx: Tx, uris: Iterable[str], batch_size: int) -> set[str]:
    found: set[str] = set()
    for chunk in batched(({"uri": u} for u in uris), batch_size):
        found.update(r["uri"] for r in tx.run(cypher("alignment/existing_resources"), rows=chunk))
    return found


def _links(cells: Iterable[Cell]) -> list[dict[str, object]]:
    """One row per distinct (entity1, entity2, relation); duplicates keep their highest measure."""
    best: dict[tuple[str, str, str], float] = {}
    for c in cells:
        key = (c.entity1, c.entity2, c.relation)
        best[key] = max(best.get(key, 0.0), c.measure)
    return [{"entity1": e1, "entity2": e2, "relation": rel, "measure": m} for (e1, e2, rel), m in best.items()]


def load_alignment(graph: Graph, path: str | Path, *, name: str | None = None,
                   progress: Callable[[int], None] | None = None) -> AlignmentLoad:
    """Load an alignment file — Alignment API RDF/XML, or SSSOM TSV (a ``.tsv`` name) — as ``(:Alignment {name})``
    plus ``[:ALIGNED]`` between existing ``(:Resource)``s.

    ``name`` defaults to the file stem (less ``.sssom``). Loading again under the same name replaces the previous
    content (its ``ALIGNED`` links are removed first), so a reload leaves an identical graph.
    Duplicate cells give one link carrying their highest measure. ``progress`` receives increments
    that add up to the number of cells.
    """
    from kgagents.loaders.sssom import declared_form, escape_variants, read_alignment_file  # they build on this

    start = perf_counter()
    alignment = read_alignment_file(path)
    name = name or re.sub(r"\.sssom$", "", Path(path).stem, flags=re.IGNORECASE)
    uris = escape_variants(u for c in alignment.cells for u in (c.entity1, c.entity2))
    ensure_schema(graph)
    with graph.transaction() as tx:
        present = _existing_uris(tx, uris, graph.settings.batch_size)
        alignment = declared_form(alignment, present)  # an SSSOM CURIE's escaped ':' names the loaded entity
        cells = alignment.cells
        linked = [c for c in cells if c.entity1 in present and c.entity2 in present]
        missing = [c for c in cells if c.entity1 not in present or c.entity2 not in present]
        tx.run(cypher("alignment/unlink"), alignment=name).consume()
        tx.run(cypher("alignment/merge_alignment"), alignment=name, file=str(Path(path).resolve()),
               onto1=alignment.onto1, onto2=alignment.onto2, uri1=alignment.uri1, uri2=alignment.uri2,
               level=alignment.level, type=alignment.type, cells=len(cells), linked=len(linked),
               missing=len(missing),
               entity1=[c.entity1 for c in cells], entity2=[c.entity2 for c in cells],
               relation=[c.relation for c in cells], measure=[c.measure for c in cells]).consume()
        links = _links(linked)
        graph.write_rows(tx, "alignment/link_cells", links, alignment=name, on_batch=progress)
        counts = {"cells": len(cells), "linked": len(linked), "missing": len(missing)}
        record_load(tx, LoadRecord(kind="alignment", target=name, path=str(path), sha256=file_sha256(Path(path)),
                                   counts=counts, seconds=perf_counter() - start))
    if progress is not None and len(cells) > len(links):
        progress(len(cells) - len(links))  # so the increments add up to the number of cells
    return AlignmentLoad(name=name, cells=len(cells), linked=len(linked), missing=missing)


def stored_alignment(graph: Graph, name: str) -> Alignment:
    """The alignment loaded under ``name``, rebuilt from its node (every cell, in file order)."""
    rows = graph.run("alignment/stored", alignment=name)
    if not rows:
        raise KgAgentsError(f"No alignment named '{name}' in the graph; load it with load_alignment first.")
    a = rows[0]["alignment"]
    cells = [Cell(entity1=e1, entity2=e2, relation=rel, measure=m) for e1, e2, rel, m
             in zip(a["cell_entity1"], a["cell_entity2"], a["cell_relation"], a["cell_measure"], strict=True)]
    return Alignment(onto1=a["onto1"], onto2=a["onto2"], uri1=a.get("uri1"), uri2=a.get("uri2"),
                     level=a["level"], type=a["type"], cells=cells)
