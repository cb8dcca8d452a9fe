"""Read an RDF file (RDF/XML, Turtle, N-Triples, JSON-LD; and OBO, as its OWL translation) into a list of
parser-neutral triples.

Two parsers, for two reasons. pyoxigraph (Rust) parses the OAEI anatomy files about ten times faster
than rdflib, which alone would cap an ontology load below the 20,000 triples/s target. But it is
strict: it rejects documents rdflib reads fine (e.g. an element named ``<xml>`` in older OAEI files)
and its RDF/XML errors carry no line number. So a file pyoxigraph rejects is read again with rdflib;
only when both fail is it malformed, and the error then names the line either parser reported.
RDF/XML passes :func:`~kgagents.loaders.xml_guard.check_xml` first: pyoxigraph accepts a document cut
at a tag boundary, and both parsers expand DTD entities without limit.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from xml.sax import SAXParseException

import pyoxigraph as ox
import rdflib
from rdflib.plugins.parsers.notation3 import BadSyntax

from kgagents.errors import InputFileError, ParseError
from kgagents.loaders.obo_read import read_obo_triples
from kgagents.loaders.rdf_terms import Blank, Literal, Term, Triple
from kgagents.loaders.xml_guard import check_xml
from kgagents.paths import require_file


class RdfFormat(str, Enum):
    """The RDF serialisations the loaders accept (values are rdflib's format names)."""

    XML = "xml"
    TURTLE = "turtle"
    NTRIPLES = "nt"
    JSON_LD = "json-ld"  # with an inline @context (a remote one is not fetched)
    OBO = "obo"  # the OBO flat-file format, read as its OWL translation (kgagents.loaders.obo_read)


_ALIASES: dict[str, RdfFormat] = {
    "xml": RdfFormat.XML, "rdfxml": RdfFormat.XML, "rdf/xml": RdfFormat.XML, "rdf+xml": RdfFormat.XML,
    "application/rdf+xml": RdfFormat.XML, "owl": RdfFormat.XML, "rdf": RdfFormat.XML,
    "turtle": RdfFormat.TURTLE, "ttl": RdfFormat.TURTLE, "text/turtle": RdfFormat.TURTLE,
    "nt": RdfFormat.NTRIPLES, "ntriples": RdfFormat.NTRIPLES, "n-triples": RdfFormat.NTRIPLES,
    "application/n-triples": RdfFormat.NTRIPLES, "obo": RdfFormat.OBO,
    "json-ld": RdfFormat.JSON_LD, "jsonld": RdfFormat.JSON_LD, "application/ld+json": RdfFormat.JSON_LD,
}
_SUFFIXES: dict[str, RdfFormat] = {
    ".owl": RdfFormat.XML, ".rdf": RdfFormat.XML, ".xml": RdfFormat.XML,
    ".ttl": RdfFormat.TURTLE, ".turtle": RdfFormat.TURTLE,
    ".nt": RdfFormat.NTRIPLES, ".ntriples": RdfFormat.NTRIPLES, ".obo": RdfFormat.OBO,
    ".jsonld": RdfFormat.JSON_LD, ".json-ld": RdfFormat.JSON_LD,
}
_OX_FORMATS = {
    RdfFormat.XML: ox.RdfFormat.RDF_XML,
    RdfFormat.TURTLE: ox.RdfFormat.TURTLE,
    RdfFormat.NTRIPLES: ox.RdfFormat.N_TRIPLES,
    RdfFormat.JSON_LD: ox.RdfFormat.JSON_LD,
}


def resolve_format(path: Path, fmt: str | RdfFormat | None = None) -> RdfFormat:
    """The explicit format if given (aliases like ``ttl`` or ``application/rdf+xml`` work), else the extension's."""
    if fmt is not None:
        found = _ALIASES.get(str(fmt.value if isinstance(fmt, RdfFormat) else fmt).strip().lower())
        if found is None:
            raise InputFileError(f"Unknown RDF format '{fmt}' for {path}; use one of: xml, turtle, nt, json-ld, obo.")
        return found
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise InputFileError(
            f"Cannot tell the RDF format of {path} from its extension '{path.suffix}'; "
            "pass the format explicitly (xml, turtle, nt, json-ld or obo)."
        )
    return _sniffed(path) if found is RdfFormat.XML else found


_FUNCTIONAL_START = re.compile(rb"^(Prefix|Ontology)\s*\(")
_IRI_TERM_START = re.compile(rb"^<[^<>\s]*>\s")  # a Turtle / N-Triples statement, not an XML tag
_ROOT = re.compile(rb"<([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)([^>]*)>")  # the first element (PIs, DOCTYPE skipped)


def _sniffed(path: Path) -> RdfFormat:
    """The format of a ``.owl`` / ``.rdf`` / ``.xml`` file by how it begins: ontology editors save any OWL syntax
    under ``.owl``. Turtle (and N-Triples) is read as Turtle; OWL/XML and the functional syntax, which no RDF
    parser reads, are refused with what to do."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16384)
    except OSError:
        return RdfFormat.XML  # read_triples reports it
    text = head.removeprefix(b"\xef\xbb\xbf")
    first = next((line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith(b"#")),
                 b"")
    convert = "save it as RDF/XML or Turtle (Protégé: File › Save as…; ROBOT: robot convert --format ttl)"
    if _FUNCTIONAL_START.match(first):
        raise InputFileError(f"{path} is in the OWL functional syntax, which kgagents does not read; {convert}")
    if not first.startswith(b"<") or _IRI_TERM_START.match(first):
        return RdfFormat.TURTLE if first else RdfFormat.XML
    body = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE(\[.*?\]|[^>\[])*>", b"", text, flags=re.DOTALL)
    root = _ROOT.search(body)
    if root is not None and root.group(2) == b"Ontology" and b"rdf:about" not in root.group(3):
        raise InputFileError(f"{path} is in OWL/XML, which kgagents does not read; {convert}")
    return RdfFormat.XML


def read_triples(path: Path, fmt: str | RdfFormat | None = None) -> list[Triple]:
    """The distinct triples of ``path``, in document order. Raises InputFileError or ParseError (with the line)."""
    require_file(path, "RDF file")
    rdf_format = resolve_format(path, fmt)
    if rdf_format is RdfFormat.OBO:
        return read_obo_triples(path)
    if rdf_format is RdfFormat.XML:
        check_xml(path)  # pyoxigraph reads a truncated document as a shorter one and expands entities unbounded
    try:
        triples = _read_oxigraph(path, rdf_format)
    except SyntaxError as strict_error:
        if rdf_format is RdfFormat.JSON_LD:  # rdflib would fetch a remote @context over the network
            detail = _detail(strict_error, strict_error)
            if "remote context" in detail:
                detail = ("its @context is a web address, which kgagents does not fetch; put the context in the file "
                          "or convert it to Turtle")
            raise ParseError(str(path), strict_error.lineno, detail) from strict_error
        triples = _read_rdflib(path, rdf_format, strict_error)
    except OSError as exc:
        raise InputFileError(f"Cannot read {path}: {exc}") from exc
    _check_iris(path, triples)
    return triples


#: what an IRI may not hold (RFC 3987): spaces and control characters, and < > " { } | \ ^ `. The N-Triples parser
#: refuses them; the RDF/XML and Turtle readers pass them on, and such an IRI breaks every tool that writes it out.
_NOT_IN_IRI = re.compile(r'[\x00-\x20<>"{}|\\^`]')


def _check_iris(path: Path, triples: list[Triple]) -> None:
    """Raise :class:`ParseError` (with the line, found by searching the file) for the first IRI holding a character
    an IRI may not contain."""
    for triple in triples:
        for term in triple:
            if isinstance(term, str) and (bad := _NOT_IN_IRI.search(term)):
                tail = term[max(term.rfind("/"), term.rfind("#")) + 1:] or term
                data = path.read_bytes()
                at = data.find(tail.encode("utf-8"))
                raise ParseError(str(path), data[:at].count(b"\n") + 1 if at >= 0 else None,
                                 f"the IRI <{term}> holds {bad.group()!r}, which an IRI may not contain (RFC 3987)")


def _read_oxigraph(path: Path, rdf_format: RdfFormat) -> list[Triple]:
    triples: list[Triple] = []
    append = triples.append
    named, blank, literal = ox.NamedNode, ox.BlankNode, ox.Literal
    cache: dict[object, Term] = {}

    def term(t: object) -> Term:
        # Terms repeat a lot (every class IRI appears several times); convert each distinct one once.
        found = cache.get(t)
        if found is None:
            if type(t) is named:
                found = t.value
            elif type(t) is blank:
                found = Blank("_:" + t.value)
            elif type(t) is literal:
                found = Literal(t.value, t.language, t.datatype.value)
            else:  # RDF-star quoted triples cannot occur in the three formats read here
                raise SyntaxError(f"unsupported RDF term {t!r}")
            cache[t] = found
        return found

    for triple in ox.parse(path=path, format=_OX_FORMATS[rdf_format], base_iri=path.resolve().as_uri()):
        append((term(triple.subject), triple.predicate.value, term(triple.object)))  # type: ignore[arg-type]
    return list(dict.fromkeys(triples))  # a graph is a set: files often state a triple twice


def _read_rdflib(path: Path, rdf_format: RdfFormat, strict_error: SyntaxError) -> list[Triple]:
    graph = rdflib.Graph()
    try:
        graph.parse(str(path), format=rdf_format.value)
    except Exception as exc:  # rdflib raises SAX, notation3, ParserError and plain ValueErrors alike
        line = strict_error.lineno or _rdflib_line(exc)
        raise ParseError(str(path), line, _detail(strict_error, exc)) from exc
    return [(_from_rdflib(s), str(p), _from_rdflib(o)) for s, p, o in graph]  # type: ignore[misc]


def _from_rdflib(t: rdflib.term.Node) -> Term:
    if isinstance(t, rdflib.URIRef):
        return str(t)
    if isinstance(t, rdflib.BNode):
        return Blank("_:" + str(t))
    if isinstance(t, rdflib.Literal):
        return Literal(str(t), t.language, str(t.datatype) if t.datatype else None)
    raise TypeError(f"unsupported RDF term {t!r}")


def _rdflib_line(exc: Exception) -> int | None:
    if isinstance(exc, SAXParseException):
        return exc.getLineNumber()
    if isinstance(exc, BadSyntax):
        return exc.lines + 1  # rdflib counts lines from 0
    return None


_POSITION = re.compile(r"^Parser error (at|between) line .*?: ")


def _detail(strict_error: SyntaxError, exc: Exception) -> str:
    """pyoxigraph's message is the more precise one; drop its position prefix (the line is reported separately)."""
    text = _POSITION.sub("", strict_error.msg or str(strict_error)) or str(exc)
    return text.strip()
