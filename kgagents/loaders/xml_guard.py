"""Refuse an XML file that is not well-formed or that would expand entities, before any parser reads it.

Every XML file kgagents reads (RDF/XML ontologies and T-Boxes, Alignment API files, ``--reference``)
passes :func:`check_xml` first, for two reasons:

* pyoxigraph's RDF/XML parser streams and stops quietly at the end of a document cut at a tag
  boundary, so a truncated ontology would load as a partial one. One expat pass (in C: no Python
  callback sees the content) finds the first well-formedness error and its line.
* DTD entities are expanded by every parser we use, and nested ones ("billion laughs") amplify a 1 KB
  file into gigabytes. Real ontologies use entities only as IRI abbreviations
  (``<!ENTITY owl "http://www.w3.org/2002/07/owl#">``), so those are kept and everything that can
  amplify or reach outside the file is refused while the DTD is read — before the first reference is
  expanded: parameter entities, external entities, an entity whose text refers to another entity, and
  plain entities referenced so often that their expansion would exceed :data:`EXPANSION_FACTOR` times
  the file (references are counted in the raw bytes, so the expansion itself never runs). An entity the file
  does not declare (one an external DTD would define: never fetched) is refused too — it would load as empty text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from kgagents.errors import ParseError

EXPANSION_FACTOR = 4  # expanded entity text may be at most this many times the file's size ...
EXPANSION_FLOOR = 1 << 20  # ... or 1 MiB, whichever is larger
_ENTITY_REFERENCE = re.compile(r"[&%][^\s&%;#<>\"']+;")  # a general or parameter reference, not &#38;
_RAW_REFERENCE = re.compile(rb"&([^\s&;#<>\"']+);")
_TEXT_REFERENCE = re.compile(r"&([^\s&;#<>\"']+);")
_PREDEFINED = frozenset({"amp", "lt", "gt", "quot", "apos"})


class UnsafeXmlError(ParseError):
    """The file's DTD declares entities that could expand without bound; nothing was read or written."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        super().__init__(path, line, f"entity expansion refused: {reason}. Only plain internal entities "
                                     "(abbreviations such as <!ENTITY owl \"http://www.w3.org/2002/07/owl#\">) "
                                     "are read; expand the others in the file")


class _Refused(Exception):
    """Raised inside an expat callback; carries the reason out of the parser."""


def check_xml(path: str | Path) -> None:
    """Raise :class:`ParseError` (with the line) unless ``path`` is well-formed XML whose entities cannot amplify.

    Expat reads the file in blocks and only entity declarations reach Python; the file is read whole only
    when its DTD declares entities (to count their references).
    """
    path = Path(path)
    name = str(path)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)  # never read an external DTD
    entities: dict[str, int] = {}

    def declare(entity: str, is_parameter: bool, value: str | None, base: str | None,
                system_id: str | None, public_id: str | None, notation: str | None) -> None:
        if is_parameter:
            raise _Refused(f"the DTD declares the parameter entity '%{entity};'")
        if value is None:
            raise _Refused(f"the DTD declares the external entity '&{entity};' ({system_id or public_id})")
        nested = _ENTITY_REFERENCE.search(value)
        if nested:
            raise _Refused(f"the entity '&{entity};' refers to another entity ('{nested.group()}')")
        entities[entity] = len(value.encode())

    def end_dtd() -> None:
        if entities:
            _refuse_large_expansion(path, entities)

    def start_dtd(doctype: str, system_id: str | None, public_id: str | None, internal: bool) -> None:
        if system_id or public_id:
            external.append(system_id or public_id or "")

    def skipped(entity: str, is_parameter: bool) -> None:
        raise _Refused(_external_entity(entity, external))

    parser.EntityDeclHandler = declare
    parser.EndDoctypeDeclHandler = end_dtd
    parser.StartDoctypeDeclHandler = start_dtd
    parser.SkippedEntityHandler = skipped
    external: list[str] = []
    try:
        if path.stat().st_size == 0:
            return  # nothing to expand and nothing cut off; the reader says the file holds nothing
        with path.open("rb") as stream:
            parser.ParseFile(stream)
        if external:  # a reference expat skips silently (in an attribute value) would load as empty text too
            undeclared = next((n for n in _references(path) if n not in entities and n not in _PREDEFINED), None)
            if undeclared is not None:
                data = path.read_bytes()
                at = data.find(f"&{undeclared};".encode())
                line = data[:at].count(b"\n") + 1 if at >= 0 else None
                raise UnsafeXmlError(name, line, _external_entity(undeclared, external))
    except _Refused as exc:
        raise UnsafeXmlError(name, parser.CurrentLineNumber, str(exc)) from None
    except expat.ExpatError as exc:
        raise ParseError(name, exc.lineno, f"not well-formed XML: {expat.ErrorString(exc.code)}") from None
    except OSError as exc:
        raise ParseError(name, None, f"cannot read the file: {exc.strerror or exc}") from None


def _external_entity(entity: str, external: list[str]) -> str:
    where = f"the external DTD {external[0]}" if external else "an external DTD"
    return (f"the entity '&{entity};' is not declared in the file (it would come from {where}, which is never read, "
            "so it would load as empty text)")


def _refuse_large_expansion(path: Path, entities: dict[str, int]) -> None:
    """Refuse if expanding every reference to a declared entity would exceed the allowed size."""
    limit = max(EXPANSION_FACTOR * path.stat().st_size, EXPANSION_FLOOR)
    expanded = 0
    for name in _references(path):
        expanded += entities.get(name, 0)
        if expanded > limit:
            raise _Refused(f"its entity references expand to more than {limit:,} bytes "
                           f"({EXPANSION_FACTOR} times the file)")


def _references(path: Path) -> Iterator[str]:
    """The names of the general entity references in the raw file, in order (an over-count at worst: a
    comment's ``&x;`` counts too). UTF-16, the one encoding expat reads whose bytes hide ``&x;``, is decoded."""
    data = path.read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return (m.group(1) for m in _TEXT_REFERENCE.finditer(data.decode("utf-16")))
    return (m.group(1).decode("utf-8", "replace") for m in _RAW_REFERENCE.finditer(data))
