"""CURIE prefixes: one :class:`curies.Converter` per read, and the rule that says which identifiers name one entity.

Mapping files write identifiers as CURIEs (``MA:0000001``), ontologies as IRIs (``http://mouse.owl#MA_0000001``,
``http://purl.obolibrary.org/obo/MA_0000001``). The converter is built from the prefixes every reader knows
(:data:`STANDARD_PREFIXES`), a file's own ``curie_map`` and a user's prefix map (a JSON object ``{prefix:
uri_prefix}`` or a curies *extended* prefix map, whose ``prefix_synonyms`` say that two prefixes are one, e.g.
``NCI`` and ``NCIT``). The identity rule that uses it is :func:`local_key`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import curies

from kgagents.errors import InputFileError
from kgagents.loaders.rdf_terms import local_name

#: prefixes SSSOM and the OBO world use without declaring them (SSSOM's built-in prefixes, and the OBO PURL space)
STANDARD_PREFIXES: dict[str, str] = {
    "owl": "http://www.w3.org/2002/07/owl#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "semapv": "https://w3id.org/semapv/vocab/",
    "sssom": "https://w3id.org/sssom/",
    "oboInOwl": "http://www.geneontology.org/formats/oboInOwl#",
    "dcterms": "http://purl.org/dc/terms/",
    "obo": "http://purl.obolibrary.org/obo/",
}
OBO_PURL = STANDARD_PREFIXES["obo"]
#: an OBO-style local name or CURIE: a prefix, then ``_`` or ``:``, then the accession (``MA_0000001``, ``NCIT:C12``)
_OBO_STYLE = re.compile(r"^([A-Za-z][A-Za-z0-9.\-]*)[_:]([A-Za-z0-9][\w.\-]*)$")
_CURIE = re.compile(r"^([A-Za-z_][\w.\-]*):(\S+)$")


def read_prefix_map(path: Path) -> list[curies.Record]:
    """A user's prefix map: a JSON object ``{prefix: uri_prefix}`` or a list of extended-prefix-map records
    (``prefix``, ``uri_prefix``, optional ``prefix_synonyms`` / ``uri_prefix_synonyms``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the prefix map ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}:{exc.lineno}: the prefix map is not JSON ({exc.msg})") from None
    try:
        if isinstance(data, dict):
            return [curies.Record(prefix=k, uri_prefix=str(v)) for k, v in data.items()]
        return [curies.Record.model_validate(r) for r in data]
    except Exception as exc:  # pydantic's ValidationError, or a record that is not an object
        raise InputFileError(f"{path}: not a prefix map ({{prefix: uri_prefix}} or extended prefix map records): "
                             f"{str(exc).splitlines()[0]}") from None


def converter(*maps: Mapping[str, str] | Iterable[curies.Record]) -> curies.Converter:
    """One converter from :data:`STANDARD_PREFIXES` and ``maps`` (later maps win a prefix; a record's synonyms are
    kept). A URI prefix claimed by two prefixes keeps the first."""
    records: dict[str, curies.Record] = {}
    for source in (STANDARD_PREFIXES, *maps):
        items = ([curies.Record(prefix=k, uri_prefix=v) for k, v in source.items()] if isinstance(source, Mapping)
                 else list(source))
        for record in items:
            records[record.prefix] = record
    seen_uris: set[str] = set()
    seen_prefixes = set(records)
    kept = []
    for record in records.values():
        uris = {record.uri_prefix, *record.uri_prefix_synonyms}
        if uris & seen_uris:
            continue
        seen_uris |= uris
        # a synonym that is another record's prefix (or another's synonym) would make the converter refuse both
        synonyms = [s for s in record.prefix_synonyms if s not in seen_prefixes]
        seen_prefixes |= set(synonyms)
        kept.append(record.model_copy(update={"prefix_synonyms": synonyms}))
    return curies.Converter(kept)


def split_curie(text: str) -> tuple[str, str] | None:
    """(prefix, local part) of a CURIE-shaped text; None for anything else (an IRI's ``http:`` is a prefix here:
    the converter decides whether it is known)."""
    found = _CURIE.match(text.strip())
    return (found.group(1), found.group(2)) if found else None


def expand(identifier: str, conv: curies.Converter) -> str:
    """An IRI for ``identifier``: an IRI stays as it is; a CURIE of a known prefix is expanded; a CURIE of an unknown
    prefix follows the OBO convention (``MA:0000001`` → ``http://purl.obolibrary.org/obo/MA_0000001``)."""
    text = identifier.strip()
    if "://" in text:
        return text
    expanded = conv.expand(text)
    if expanded:
        return str(expanded)
    parts = split_curie(text)
    if parts is not None:
        return f"{OBO_PURL}{parts[0]}_{parts[1]}"
    return text


def local_key(iri: str, conv: curies.Converter) -> str:
    """The identity rule's key of an IRI: its local name, where an OBO-style name (``NCI_C12219``) has its prefix
    written as the converter's preferred prefix (``NCIT_C12219`` when the map lists ``NCI`` as a synonym of ``NCIT``).
    Two identifiers with one key name one entity (when the key is unique in its ontology)."""
    compressed = conv.compress(iri)
    if compressed and not compressed.startswith(("obo:", "http")):
        prefix, _, rest = str(compressed).partition(":")
        return f"{prefix}_{rest}"
    name = local_name(iri)
    found = _OBO_STYLE.match(name)
    if found is None:
        return name
    prefix = conv.standardize_prefix(found.group(1)) or found.group(1)
    return f"{prefix}_{found.group(2)}"
