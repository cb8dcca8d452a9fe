"""Wikidata "truthy" N-Triples (``latest-truthy.nt`` or any subgraph cut from it) → one KG.

What becomes what:

* ``wd:Qnn`` items (and any ``wd:`` id used in a ``wdt:`` statement) → ``(:Entity {kg, id: 'Q42', name,
  description, aliases})``. ``name`` is the English ``rdfs:label`` (else English ``schema:name``, else the id);
  ``description`` is the English ``schema:description``; ``aliases`` the English ``skos:altLabel`` values. Only
  the language tag ``en`` counts — other languages and regional variants (``en-gb``) are ignored.
* ``wd:Q1 wdt:P31 wd:Q5`` → ``(:Entity)-[:P31 {rel: <wdt IRI>, name: 'instance of'}]->(:Entity)``; ``name``
  is the property's English label when the dump states ``wd:P31 rdfs:label "instance of"@en``, else the PID.
  ``(:Relation {kg, id: <wdt IRI>, type: 'P31', name})`` catalogues every property used.
* ``wdt:`` statements whose object is not an entity (dates, quantities, strings, monolingual text, Commons
  IRIs, ``_:`` unknown values) → ``(:Entity)-[:P569 {rel, name}]->(:Literal {kg, id, value, datatype, lang})``.
  Literals are nodes (not entity properties) so an agent walking an entity's relationships sees *every*
  statement the same way, with its property name. One Literal node per statement (``id`` hashes subject,
  property and value), so no extra index is needed and re-loading creates nothing. ``value`` is the lexical
  form as a string; ``datatype`` the XSD/Wikibase datatype IRI (``rdf:langString`` with ``lang`` for
  language-tagged text, ``xsd:anyURI`` for IRIs, ``bnode`` for blank nodes).
* Full statements, as a SPARQL ``CONSTRUCT`` or a dump slice gives them: ``wd:Q42 p:P69 wds:Q42-…`` with
  ``wds:Q42-… ps:P69 wd:Q691283`` become the same ``(:Entity)-[:P69]->(:Entity)`` as ``wdt:P69`` (a statement
  stated both ways is one relationship); qualifiers and references (``pq:``, ``pr:``, ``prov:``) are skipped.
* Turtle (``.ttl``: a ``CONSTRUCT`` result with prefixes) is read through rdflib into the same lines first.
* Every other predicate (``schema:version``, ``wikibase:*``, ``wdtn:`` normalised ids, …) is skipped.

The N-Triples parser is a strict single-line regular grammar (W3C N-Triples): every malformed line raises
:class:`ParseError` with its line number before anything is written.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from kgagents.errors import InputFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress, write_kg
from kgagents.loaders.record import LoadRecord, file_sha256, record_load
from kgagents.paths import require_file

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
P_STATEMENT = "http://www.wikidata.org/prop/"  # wd:Q42 p:P69 wds:… (the statement node)
PS_VALUE = "http://www.wikidata.org/prop/statement/"  # wds:… ps:P69 value
WDS = "http://www.wikidata.org/entity/statement/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SCHEMA_NAME = "http://schema.org/name"
SCHEMA_DESCRIPTION = "http://schema.org/description"
SKOS_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
XSD_ANY_URI = "http://www.w3.org/2001/XMLSchema#anyURI"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

_ENTITY_ID = re.compile(r"[QPL][1-9][0-9]*(?:-[FS][1-9][0-9]*)?")
_PROPERTY_ID = re.compile(r"P[1-9][0-9]*")

_IRI = r'<((?:[^\x00-\x20<>"{}|^`\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)>'
_BNODE = r"(_:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?)"
_LITERAL = r'"((?:[^"\\\n\r]|\\[tbnrf"\'\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)"' \
           r"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^" + _IRI + r")?"
_TRIPLE = re.compile(
    rf"^[ \t]*(?:{_IRI}|{_BNODE})[ \t]+{_IRI}[ \t]+(?:{_IRI}|{_BNODE}|{_LITERAL})[ \t]*\.[ \t]*(?:#.*)?$"
)
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)) if m.group(3) is None
                       else _SIMPLE_ESCAPES[m.group(3)], text)


def _wd_id(iri: str | None) -> str | None:
    """'Q42' for ``http://www.wikidata.org/entity/Q42``; None for anything else."""
    if iri is None or not iri.startswith(WD):
        return None
    local = iri[len(WD):]
    return local if _ENTITY_ID.fullmatch(local) else None


# The shape of nearly every line of a truthy dump (item -> item statement), matched without the full grammar;
# any line it does not match goes through the strict grammar above, so strictness is unchanged.
_ENTITY_STATEMENT = re.compile(
    r"<http://www\.wikidata\.org/entity/([QPL][1-9][0-9]*)> <http://www\.wikidata\.org/prop/direct/(P[1-9][0-9]*)> "
    r"<http://www\.wikidata\.org/entity/([QPL][1-9][0-9]*)> \.\r?\n?"
)
# The next most common shapes, also matched without the full grammar (no escapes, single spaces): an English
# rdfs:label, and a statement whose object is a plain, typed or language-tagged literal.
_LABEL_LINE = re.compile(
    r'<http://www\.wikidata\.org/entity/([QPL][1-9][0-9]*)> <http://www\.w3\.org/2000/01/rdf-schema#label> '
    r'"([^"\\\n\r]*)"@en \.\r?\n?'
)
_LITERAL_STATEMENT = re.compile(
    r"<http://www\.wikidata\.org/entity/([QPL][1-9][0-9]*)> <http://www\.wikidata\.org/prop/direct/(P[1-9][0-9]*)> "
    r'"([^"\\\n\r]*)"(?:\^\^<([^\x00-\x20<>"{}|^`\\]*)>|@([A-Za-z]+(?:-[A-Za-z0-9]+)*))? \.\r?\n?'
)


def parse_wikidata_nt(path: Path, *, kg: str = "wikidata", property_labels: Path | None = None) -> KGData:
    """Stream the file into a compact :class:`KGData`; labels are applied after all lines are read (order
    does not matter). Memory grows with entities and ~24 bytes per statement, not with the file.

    ``property_labels``: a TSV of ``P31<TAB>instance of`` lines; its labels take precedence over the dump's.
    """
    (data, names, aliases), = iter_wikidata_chunks(path, kg=kg, lines=None)
    if property_labels is not None:
        for pid, label in read_property_labels(property_labels).items():
            names.setdefault(pid, {})["label"] = label
    _apply_names(data, names, aliases)
    if not data.entity_index:
        raise ParseError(str(path), None, "holds no Wikidata item (no wd: entity with a wdt: statement or an "
                                          "English label); is it empty, or not a truthy dump?")
    return data


Names = dict[str, dict[str, str]]  # id -> {"label"|"name"|"description": English text}
Aliases = dict[str, list[str]]


@contextmanager
def _utf8_lines(path: Path) -> Iterator[Iterator[str]]:
    """The dump's lines (with their ends), each decoded on its own, so a byte that is not UTF-8 (a binary file, a
    dump in another encoding) is a :class:`ParseError` naming its line, not a bare ``UnicodeDecodeError``."""
    require_file(path, "Wikidata dump")

    def lines(fh: BinaryIO) -> Iterator[str]:
        for lineno, raw in enumerate(fh, 1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ParseError(str(path), lineno, f"not UTF-8 text (byte {exc.start + 1} of the line cannot be "
                                                    "decoded); a Wikidata N-Triples dump is UTF-8 text") from None

    with open(path, "rb") as fh:
        yield lines(fh)


def iter_wikidata_chunks(path: Path, *, kg: str, lines: int | None) -> Iterator[tuple[KGData, Names, Aliases]]:
    """The dump read ``lines`` lines at a time (``None``: all at once), each chunk as its own :class:`KGData`
    with the English names and aliases its lines state (not yet applied: a name may come in another chunk)."""
    fast, label, literal = _ENTITY_STATEMENT.fullmatch, _LABEL_LINE.fullmatch, _LITERAL_STATEMENT.fullmatch
    with _utf8_lines(path) as fh:
        lineno = 0
        while True:
            data = KGData(kg, {"source": str(path), "format": "wikidata-truthy-nt"})
            statements = Statements()
            names: Names = {}
            aliases: Aliases = {}
            relations: dict[str, str] = {}  # PID -> wdt IRI, for the fast path
            index = data.entity_index

            def register(pid: str, data: KGData = data, relations: dict[str, str] = relations) -> str:
                """A PID first met in this chunk: its relation declared once (only misses pay for the call)."""
                relations[pid] = WDT + pid
                data.relation(relations[pid], name=pid, type=pid)
                return relations[pid]

            read = 0
            for line in fh if lines is None else islice(fh, lines):
                lineno += 1
                read += 1
                m = fast(line)
                if m is not None:
                    subject, pid, obj = m.groups()
                    predicate = relations.get(pid) or register(pid)
                    if subject not in index:
                        data.entity(subject)
                    if obj not in index:
                        data.entity(obj)
                    data.triple(subject, predicate, obj)
                elif (m := label(line)) is not None:
                    names.setdefault(m[1], {})["label"] = m[2]
                elif (m := literal(line)) is not None:
                    subject, pid, value, datatype, lang = m.groups()
                    predicate = relations.get(pid) or register(pid)
                    if subject not in index:
                        data.entity(subject)
                    data.literal(subject, predicate, value, datatype or (RDF_LANG_STRING if lang else XSD_STRING),
                                 lang)
                else:
                    _parse_line(data, path, lineno, line, names, aliases, statements)
            statements.resolve(data, path)  # full statements are resolved within a chunk
            if read or lines is None:
                yield data, names, aliases
            if lines is None or read < lines:
                return


def property_names(path: Path, property_labels: Path | None = None) -> dict[str, dict[str, str]]:
    """PID -> ``{"name", "description"?}`` of every property the dump labels (English ``rdfs:label``, else
    ``schema:name``; ``property_labels`` wins), read in a pass over the ``wd:P…`` lines only, so a streamed load
    names every relationship however late the label line comes."""
    names: Names = {}
    scratch = KGData("", {})
    prefix = f"<{WD}P"
    with _utf8_lines(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if line.startswith(prefix) and _ENTITY_STATEMENT.fullmatch(line) is None:
                _parse_line(scratch, path, lineno, line, names, {})
    scratch.close()
    if property_labels is not None:
        for pid, label in read_property_labels(property_labels).items():
            names.setdefault(pid, {})["label"] = label
    out: dict[str, dict[str, str]] = {}
    for pid, texts in names.items():
        if not pid.startswith("P"):
            continue
        out[pid] = {"name": texts.get("label") or texts.get("name") or pid}
        if "description" in texts:
            out[pid]["description"] = texts["description"]
    return out


def read_property_labels(path: Path) -> dict[str, str]:
    """``PID<TAB>label`` lines (blank lines and ``#`` comments skipped) → {PID: label}."""
    labels: dict[str, str] = {}
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the property-label file ({exc.strerror})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            text = line.rstrip("\r\n")
            if not text.strip() or text.startswith("#"):
                continue
            fields = text.split("\t")
            pid = fields[0].strip()
            if pid.startswith(WD):
                pid = pid[len(WD):]
            if len(fields) != 2 or not _PROPERTY_ID.fullmatch(pid) or not fields[1].strip():
                raise ParseError(str(path), lineno, f"expected 'P<number><TAB>label', got {text[:120]!r}")
            labels[pid] = fields[1].strip()
    return labels


class Statements:
    """Full statements (``p:`` / ``ps:``) met so far: which item and property each statement node belongs to, and
    the values it states (as N-Triples object terms), resolved into triples when both are known."""

    def __init__(self) -> None:
        self.owner: dict[str, tuple[str, str]] = {}
        self.values: dict[str, list[tuple[str | None, str | None, str | None, str | None, str | None]]] = {}

    def resolve(self, data: KGData, path: Path) -> None:
        """Every statement whose item and value were both seen, as the ``wdt:`` triple it states."""
        for node, (subject, pid) in self.owner.items():
            for o_iri, o_bnode, lexical, lang, datatype in self.values.get(node, []):
                _statement(data, path, 0, subject, WDT + pid, o_iri, o_bnode, lexical, lang, datatype)


def _parse_line(data: KGData, path: Path, lineno: int, line: str, names: dict[str, dict[str, str]],
                aliases: dict[str, list[str]], statements: Statements | None = None) -> None:
    """One line through the full N-Triples grammar: any statement shape, labels, or something skipped."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return
    m = _TRIPLE.match(stripped)
    if m is None:
        raise ParseError(str(path), lineno, f"not a valid N-Triples line: {stripped[:120]!r}")
    s_iri, _s_bnode, p_iri, o_iri, o_bnode, lexical, lang, datatype = m.groups()
    predicate = _unescape(p_iri)
    if statements is not None and s_iri is not None and predicate.startswith(PS_VALUE):
        node = _unescape(s_iri)
        statements.values.setdefault(node, []).append((o_iri, o_bnode, lexical, lang, datatype))
        return
    subject = _wd_id(_unescape(s_iri) if s_iri else None)
    if subject is None:
        return
    if predicate.startswith(WDT):
        _statement(data, path, lineno, subject, predicate, o_iri, o_bnode, lexical, lang, datatype)
    elif statements is not None and o_iri is not None and predicate.startswith(P_STATEMENT) \
            and _PROPERTY_ID.fullmatch(predicate[len(P_STATEMENT):]):
        statements.owner[_unescape(o_iri)] = (subject, predicate[len(P_STATEMENT):])
    elif lexical is not None and lang == "en":
        _name(names, aliases, subject, predicate, _unescape(lexical))


def _name(names: dict[str, dict[str, str]], aliases: dict[str, list[str]], subject: str, predicate: str,
          text: str) -> None:
    if predicate == RDFS_LABEL:
        names.setdefault(subject, {})["label"] = text
    elif predicate == SCHEMA_NAME:
        names.setdefault(subject, {})["name"] = text
    elif predicate == SCHEMA_DESCRIPTION:
        names.setdefault(subject, {})["description"] = text
    elif predicate == SKOS_ALT_LABEL:
        aliases.setdefault(subject, []).append(text)


def _statement(data: KGData, path: Path, lineno: int, subject: str, predicate: str, o_iri: str | None,
               o_bnode: str | None, lexical: str | None, lang: str | None, datatype: str | None) -> None:
    """One ``wdt:`` statement (or a full statement resolved to one): an entity triple or a literal."""
    pid = predicate[len(WDT):]
    if not _PROPERTY_ID.fullmatch(pid):
        raise ParseError(str(path), lineno, f"{predicate} is not a wdt: property IRI")
    if predicate not in data.relations:
        data.relation(predicate, name=pid, type=pid)
    data.entity(subject)
    obj = _wd_id(_unescape(o_iri)) if o_iri is not None else None
    if obj is not None:
        data.entity(obj)
        data.triple(subject, predicate, obj)
    elif o_iri is not None:
        data.literal(subject, predicate, _unescape(o_iri), XSD_ANY_URI, None)
    elif o_bnode is not None:
        data.literal(subject, predicate, o_bnode, "bnode", None)
    else:
        dt = _unescape(datatype) if datatype else (RDF_LANG_STRING if lang else XSD_STRING)
        data.literal(subject, predicate, _unescape(lexical or ""), dt, lang)


def _apply_names(data: KGData, names: dict[str, dict[str, str]], aliases: dict[str, list[str]]) -> None:
    """English names onto entities and property labels onto relations.

    A property (``P…``) that only has labels is not an entity; an item with only labels still is one.
    """
    for eid in set(names) | set(aliases):
        if eid.startswith("P") and eid not in data.entity_index:
            continue
        texts = names.get(eid, {})
        data.entity(eid, name=texts.get("label") or texts.get("name"), description=texts.get("description"),
                    aliases=list(dict.fromkeys(aliases[eid])) if eid in aliases else None)
    for rel in data.relations.values():
        texts = names.get(rel["type"], {})
        rel["name"] = texts.get("label") or texts.get("name") or rel["type"]
        if "description" in texts:
            rel["description"] = texts["description"]


def literals_of(graph: Graph, entity_id: str, *, kg: str = "wikidata") -> list[dict[str, str | None]]:
    """The literal-valued statements of one entity (type, rel, name, value, datatype, lang)."""
    return graph.run("kg/literals_of", kg=kg, id=entity_id)


def wikidata_load_record(data: KGData, path: Path, property_labels: Path | None, seconds: float) -> LoadRecord:
    """The ``(:Load)`` record of one dump (the property-label file, when given, is part of the hash)."""
    files = [path] if property_labels is None else [path, property_labels]
    return LoadRecord(kind="kg_wikidata", target=data.name, path=str(path), sha256=file_sha256(*files),
                      counts=data.counts(), seconds=seconds)


TURTLE_SUFFIXES = (".ttl", ".turtle")


def turtle_as_ntriples(path: Path, folder: Path) -> Path:
    """A Turtle file (a ``CONSTRUCT`` result with prefixes) rewritten as N-Triples in ``folder`` (rdflib), so the
    one strict line grammar reads every shape; a Turtle syntax error names the file and line."""
    import rdflib
    from rdflib.plugins.parsers.notation3 import BadSyntax

    if not path.is_file():
        raise InputFileError(f"Turtle file not found: {path}")
    graph = rdflib.Graph()
    normalise, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False  # keep values as written ("…Z")
    try:
        graph.parse(path, format="turtle")
    except BadSyntax as exc:
        raise ParseError(str(path), exc.lines + 1, f"not valid Turtle: {exc}") from None
    finally:
        rdflib.NORMALIZE_LITERALS = normalise
    target = folder / f"{path.stem}.nt"
    graph.serialize(destination=target, format="nt", encoding="utf-8")
    return target


def load_wikidata_nt(graph: Graph, path: Path | str, *, kg: str = "wikidata", property_labels: Path | None = None,
                     progress: Progress | None = None) -> KGLoadResult:
    """Stream-parse the dump (a Turtle file is rewritten as N-Triples first), then write it as KG ``kg`` in one
    transaction and record the load."""
    start = time.perf_counter()
    path = Path(path)
    if path.suffix.lower() in TURTLE_SUFFIXES:
        with tempfile.TemporaryDirectory() as folder:
            data = parse_wikidata_nt(turtle_as_ntriples(path, Path(folder)), kg=kg, property_labels=property_labels)
            data.props["source"], data.props["format"] = str(path), "wikidata-turtle"
    else:
        data = parse_wikidata_nt(path, kg=kg, property_labels=property_labels)
    ensure_schema(graph)
    try:
        with graph.transaction() as tx:
            result = write_kg(graph, tx, data, progress)
            record_load(tx, wikidata_load_record(data, path, property_labels, time.perf_counter() - start))
    finally:
        data.close()
    result.seconds = time.perf_counter() - start
    return result
