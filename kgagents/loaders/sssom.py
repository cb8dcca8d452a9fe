"""SSSOM TSV (Simple Standard for Sharing Ontological Mappings): read and write mapping sets.

Why our own reader and writer and not the ``sssom`` package: that package brings pandas and LinkML (hundreds of MB,
minutes of install) for what is a YAML header and a TSV table. The format is small enough to read strictly here, with
the error a user can act on (file, line, column); the tests validate what we write with the ``sssom`` package itself
(a dev dependency).

A file is a block of ``#``-prefixed YAML lines (the mapping set's metadata, with its ``curie_map``) followed by a
TSV table with a header row. Every identifier is a CURIE whose prefix the ``curie_map`` (or SSSOM's built-in
prefixes, :data:`~kgagents.loaders.prefixes.STANDARD_PREFIXES`) declares.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Collection, Iterable, Sequence
from collections.abc import Mapping as MappingType
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as metadata_version
from pathlib import Path
from typing import Any

import curies
import yaml

from kgagents.errors import MappingFileError
from kgagents.loaders.alignment import Alignment, Cell, read_alignment
from kgagents.loaders.prefixes import OBO_PURL, converter, split_curie

#: the columns every SSSOM mapping row must have
REQUIRED_COLUMNS = ("subject_id", "predicate_id", "object_id", "mapping_justification")
_ID_COLUMNS = ("subject_id", "predicate_id", "object_id", "mapping_justification")
#: what SSSOM files without a declared licence say (SSSOM requires one)
UNSPECIFIED_LICENSE = "https://w3id.org/sssom/license/unspecified"


@dataclass(frozen=True)
class Mapping:
    """One SSSOM row; ids are expanded to IRIs on reading (and compressed again on writing)."""

    subject_id: str
    predicate_id: str
    object_id: str
    mapping_justification: str
    confidence: float | None = None
    subject_label: str | None = None
    object_label: str | None = None
    comment: str | None = None
    reviewer_label: str | None = None
    line: int | None = None


@dataclass
class MappingSet:
    """A parsed SSSOM file: its metadata (``curie_map`` included) and rows."""

    path: Path
    metadata: dict[str, Any]
    curie_map: dict[str, str]
    mappings: list[Mapping] = field(default_factory=list)


def is_sssom(path: Path) -> bool:
    """Whether ``path`` is named as an SSSOM table (``.sssom.tsv``, ``.tsv``)."""
    return path.name.lower().endswith((".sssom.tsv", ".tsv"))


def sssom_named(path: Path | str) -> bool:
    """Whether a pairs file is SSSOM by its name (``….sssom.tsv``), where a plain ``.tsv`` is the EA pairs TSV."""
    return str(path).lower().endswith(".sssom.tsv")


def read_sssom(path: str | Path, prefixes: Iterable[curies.Record] = ()) -> MappingSet:
    """Parse an SSSOM TSV file strictly: a missing required column, an identifier that is no CURIE, a prefix the
    ``curie_map`` (nor ``prefixes``, nor SSSOM's built-ins) does not declare, or a confidence outside [0, 1] raises
    :class:`MappingFileError` naming the file, the line and the column."""
    path = Path(path)
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MappingFileError(name, None, None, f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise MappingFileError(name, None, None, "not UTF-8 text (is this an SSSOM TSV file?)") from None
    lines = text.splitlines()
    header = [ln[1:] for ln in _leading(lines, "#")]
    try:
        metadata = (yaml.safe_load("\n".join(header)) or {}) if header else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise MappingFileError(name, (mark.line + 1) if mark else 1, None,
                               f"the '#' metadata block is not YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(metadata, dict):
        raise MappingFileError(name, 1, None, "the '#' metadata block is not a YAML mapping (key: value lines)")
    curie_map = metadata.get("curie_map") or {}
    if not isinstance(curie_map, dict):
        raise MappingFileError(name, 1, None, "curie_map is not a mapping of prefix: URI prefix")
    conv = converter({str(k): str(v) for k, v in curie_map.items()}, prefixes)
    start = len(header)
    table = lines[start:]
    if not table or not table[0].strip():
        raise MappingFileError(name, start + 1, None, "no TSV header row after the metadata block (SSSOM needs "
                               f"the columns {', '.join(REQUIRED_COLUMNS)})")
    rows = list(csv.reader(io.StringIO("\n".join(table)), delimiter="\t", quoting=csv.QUOTE_NONE))
    columns = [c.strip() for c in rows[0]]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise MappingFileError(name, start + 1, missing[0], f"required column(s) {', '.join(missing)} missing from "
                               f"the header (found: {', '.join(columns)})")
    mappings = []
    for offset, row in enumerate(rows[1:], start=2):
        line = start + offset
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            raise MappingFileError(name, line, None, f"{len(row)} cells, the header has {len(columns)} columns")
        cells = dict(zip(columns, (c.strip() for c in row), strict=True))
        ids = {c: _expanded(name, line, c, cells[c], conv) for c in _ID_COLUMNS}
        mappings.append(Mapping(
            subject_id=ids["subject_id"], predicate_id=ids["predicate_id"], object_id=ids["object_id"],
            mapping_justification=ids["mapping_justification"],
            confidence=_confidence(name, line, cells.get("confidence", "")),
            subject_label=cells.get("subject_label") or None, object_label=cells.get("object_label") or None,
            comment=cells.get("comment") or None, reviewer_label=cells.get("reviewer_label") or None, line=line))
    return MappingSet(path=path, metadata=metadata, curie_map={str(k): str(v) for k, v in curie_map.items()},
                      mappings=mappings)


def _leading(lines: Sequence[str], mark: str) -> list[str]:
    out = []
    for ln in lines:
        if not ln.startswith(mark):
            break
        out.append(ln)
    return out


def _expanded(path: str, line: int, column: str, value: str, conv: curies.Converter) -> str:
    if not value:
        raise MappingFileError(path, line, column, "empty; every mapping needs it")
    parts = split_curie(value)
    if parts is None or "://" in value:
        raise MappingFileError(path, line, column, f"{value!r} is not a CURIE (prefix:local, no spaces)")
    expanded = conv.expand(value)
    if not expanded:
        raise MappingFileError(path, line, column, f"unknown prefix {parts[0]!r} in {value!r}: declare it in the "
                               "curie_map of the '#' metadata block")
    return str(expanded)


def _confidence(path: str, line: int, value: str) -> float | None:
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        raise MappingFileError(path, line, "confidence", f"{value!r} is not a number") from None
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise MappingFileError(path, line, "confidence", f"{value!r} is outside [0, 1]")
    return number


# -- writing -------------------------------------------------------------------------------------
#: the columns written, in this order (empty columns are left out)
COLUMNS = ("subject_id", "subject_label", "predicate_id", "object_id", "object_label", "mapping_justification",
           "confidence", "reviewer_label", "comment")


def write_sssom(path: str | Path, mappings: Sequence[Mapping], metadata: dict[str, Any],
                prefixes: dict[str, str]) -> None:
    """Write ``mappings`` (IRIs) as SSSOM TSV, compressing every IRI with ``prefixes`` (plus the standard ones);
    ``metadata`` is the mapping set's (``mapping_set_id`` and ``license`` are required by SSSOM)."""
    conv = converter(prefixes)
    used: set[str] = set()

    def curie(iri: str) -> str:
        compressed = conv.compress(iri)
        if not compressed:
            raise ValueError(f"no prefix for {iri!r}: the caller's prefixes must cover every IRI")
        prefix, local = str(compressed).split(":", 1)
        used.add(prefix)
        return f"{prefix}:{curie_local(local)}"

    rows = []
    for m in mappings:
        row = {"subject_id": curie(m.subject_id), "subject_label": m.subject_label or "",
               "predicate_id": curie(m.predicate_id), "object_id": curie(m.object_id),
               "object_label": m.object_label or "", "mapping_justification": curie(m.mapping_justification),
               "confidence": "" if m.confidence is None else f"{m.confidence:.4f}",
               "reviewer_label": m.reviewer_label or "", "comment": m.comment or ""}
        rows.append({k: _cell(v) for k, v in row.items()})
    columns = [c for c in COLUMNS if c in REQUIRED_COLUMNS or any(r[c] for r in rows)]
    prefix_map = conv.prefix_map
    head = {"curie_map": {p: prefix_map[p] for p in sorted(used)}, **metadata}
    with open(path, "w", encoding="utf-8", newline="") as out:
        for ln in yaml.safe_dump(head, sort_keys=False, allow_unicode=True).splitlines():
            out.write(f"#{ln}\n")
        out.write("\t".join(columns) + "\n")
        for r in rows:
            out.write("\t".join(r[c] for c in columns) + "\n")


def sssom_prefixes(iris: Iterable[str], names: MappingType[str, str | None]) -> dict[str, str]:
    """A prefix for every namespace of ``iris``: an OBO PURL's own prefix (``.../obo/MA_`` → ``MA``), an ontology's
    name for the namespace of its IRI (``names``: name → ontology IRI; a ``#`` term's namespace too, as a SKOS
    concept scheme's), else ``ns1``, ``ns2``, …"""
    own = {(uri.rstrip("#/") if uri else ""): name for name, uri in names.items() if uri}
    for name, uri in names.items():  # a thesaurus is named by its concept scheme, a term of its namespace
        if uri and "#" in uri.rstrip("#"):
            own.setdefault(iri_namespace(uri).rstrip("#/"), name)
    prefixes: dict[str, str] = {}
    for iri in sorted(set(iris)):
        namespace = iri_namespace(iri)
        if namespace in prefixes.values():
            continue
        if namespace.startswith(OBO_PURL) and namespace.endswith("_"):
            prefix = namespace[len(OBO_PURL):-1]
        else:
            prefix = own.get(namespace.rstrip("#/"), "")
        prefix = re.sub(r"[^A-Za-z0-9_.\-]", "_", prefix)
        if not prefix or not prefix[0].isalpha() or prefix in prefixes:
            prefix = f"ns{len(prefixes) + 1}"
        prefixes[prefix] = namespace
    return prefixes


def iri_namespace(iri: str) -> str:
    """``http://mouse.owl#MA_1`` → ``http://mouse.owl#``; ``.../obo/MA_0000001`` → ``.../obo/MA_``."""
    if iri.startswith(OBO_PURL) and "_" in iri[len(OBO_PURL):]:
        return iri[: iri.index("_", len(OBO_PURL)) + 1]
    cut = max(iri.rfind("#"), iri.rfind("/"))
    return iri[: cut + 1] if cut >= 0 else iri


def tool_version() -> str:
    """This package's version, for a mapping set's ``mapping_tool_version``."""
    try:
        return metadata_version("kgagents")
    except PackageNotFoundError:
        return "unknown"


#: what a CURIE's local part may not hold (SSSOM's CURIE syntax), percent-encoded by :func:`curie_local`
CURIE_ESCAPED = '"<>[\\]^`{|}:'
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: the escapes :func:`curie_local` adds: of the characters a CURIE may not hold, and of a stray %
_CURIE_ESCAPES = re.compile("|".join(f"%{ord(ch):02X}" for ch in CURIE_ESCAPED) + "|%25(?![0-9A-Fa-f]{2})",
                            re.IGNORECASE)


def curie_local(local: str) -> str:
    """A local part as a CURIE may hold it: the characters of :data:`CURIE_ESCAPED` and a ``%`` that starts no
    escape percent-encoded (``The_Dark_Tower_V:_Wolves`` → ``The_Dark_Tower_V%3A_Wolves``). The CURIE then expands
    to that escaped IRI; :func:`~kgagents.loaders.entity_iri.stored_ids` (entity alignment) and
    :func:`declared_form` (ontology alignments) read it back."""
    local = _STRAY_PERCENT.sub("%25", local)
    return "".join(f"%{ord(ch):02X}" if ch in CURIE_ESCAPED else ch for ch in local)


def unescape_curie(iri: str) -> str:
    """``iri`` with the escapes :func:`curie_local` adds decoded (``%3A`` → ``:``)."""
    return _CURIE_ESCAPES.sub(lambda m: chr(int(m.group(0)[1:], 16)), iri)


def declared_form(alignment: Alignment, declared: Collection[str]) -> Alignment:
    """``alignment`` with an entity that ``declared`` does not hold, but holds with the escapes of :func:`curie_local`
    decoded, named as declared: an SSSOM file (ours or another tool's) had to write ``Thing:Car`` as
    ``Thing%3ACar``, and a reference or alignment read from it must still name the loaded entity. An id declared as
    written is kept, so an IRI that really holds ``%3A`` is still found."""
    rename = {u: d for c in alignment.cells for u in (c.entity1, c.entity2)
              if u not in declared and (d := unescape_curie(u)) != u and d in declared}
    if not rename:
        return alignment
    cells = [c.model_copy(update={"entity1": rename.get(c.entity1, c.entity1),
                                  "entity2": rename.get(c.entity2, c.entity2)}) for c in alignment.cells]
    return alignment.model_copy(update={"cells": cells})


def escape_variants(uris: Iterable[str]) -> list[str]:
    """``uris`` and, where it differs, each one's :func:`unescape_curie` form: the ids to look up in the graph
    before :func:`declared_form`."""
    return sorted({v for u in uris for v in (u, unescape_curie(u))})


def _cell(value: str) -> str:
    """A TSV cell: tabs and line breaks inside a label or comment become spaces."""
    return " ".join(value.split()) if any(ch in value for ch in "\t\r\n") else value


# -- as an alignment -----------------------------------------------------------------------------
_RELATIONS = {"http://www.w3.org/2004/02/skos/core#exactMatch": "=",
              "http://www.w3.org/2002/07/owl#equivalentClass": "=",
              "http://www.w3.org/2002/07/owl#equivalentProperty": "=",
              "http://www.w3.org/2002/07/owl#sameAs": "=",
              "http://www.w3.org/2004/02/skos/core#broadMatch": "<",
              "http://www.w3.org/2004/02/skos/core#narrowMatch": ">"}


def sssom_alignment(path: str | Path) -> Alignment:
    """An SSSOM file as an Alignment API alignment (``skos:exactMatch`` / ``owl:equivalentClass`` / ``owl:sameAs``
    as ``=``, ``skos:broadMatch`` as ``<``, ``skos:narrowMatch`` as ``>``; other predicates are left out), so it can
    be a reference wherever an alignment is read. ``onto1`` / ``onto2``: the set's ``subject_source`` /
    ``object_source`` when it states them."""
    mapping_set = read_sssom(path)
    cells = [Cell(entity1=m.subject_id, entity2=m.object_id, relation=_RELATIONS[m.predicate_id],
                  measure=1.0 if m.confidence is None else m.confidence)
             for m in mapping_set.mappings if m.predicate_id in _RELATIONS]
    meta = mapping_set.metadata
    return Alignment(onto1=str(meta.get("subject_source") or "subject_source"),
                     onto2=str(meta.get("object_source") or "object_source"), cells=cells)


def read_alignment_file(path: str | Path) -> Alignment:
    """An alignment from an Alignment API RDF/XML file or an SSSOM TSV file (told apart by the name)."""
    return sssom_alignment(path) if is_sssom(Path(path)) else read_alignment(path)
