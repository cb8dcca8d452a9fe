"""Read a Text2KGBench ontology JSON (``concepts`` + ``relations`` with domain/range) into a :class:`TBox`.

The format keys concepts by ``qid`` and relations by ``pid`` — Wikidata ids such as ``Q5`` / ``P57`` in the
Wikidata-TekGen part, the DBpedia names themselves in DBpedia-WebNLG — and gives each a ``label``, which is what
sentences, ground truth and users say. So terms are *named* by their label (tools ``create_human``,
``add_director``; spaces as ``_``) and *identified* by their id (the IRI ends in the qid / pid). A relation's
``domain`` / ``range`` names a concept by qid (or, failing that, by label). A range that is one of the format's
primitive names (``string``, ``number``, ``date``/``Date``, ``Year``) makes a datatype property with the matching
XSD datatype; an empty range allows any value — a literal or an instance of any class
(:attr:`PropertyKind.ANY`); any other range names a class (added as undeclared when ``concepts`` omits it, as
several DBpedia-WebNLG files do). IRIs follow the namespaces of the benchmark's own OWL files
(``…/<id>/concepts#X``, ``…/<id>/relations#p``), so the JSON and the TTL of one ontology compile alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgagents.errors import InputFileError, ParseError
from kgagents.loaders.rdf_terms import XSD
from kgagents.paths import require_file
from kgagents.tools.tbox import ClassDef, PropertyDef, PropertyKind, TBox

BASE = "https://cenguix.github.io/Text2KGBench/"
PRIMITIVES = {"string": XSD + "string", "number": XSD + "decimal", "date": XSD + "date", "year": XSD + "gYear"}


def term_name(label: str) -> str:
    """The name a label gives a class or relation: the label with whitespace runs as ``_`` (how the
    benchmark's ground truth and scorer write relations)."""
    return "_".join(label.split())


def read_json_tbox(path: str | Path, name: str | None = None) -> TBox:
    """Parse a Text2KGBench ontology file; errors name the file and the offending field."""
    path = Path(path)
    require_file(path, "ontology file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: expected a JSON object with 'concepts' and 'relations'")
    onto_id = _text(data, "id", path, "") or path.stem
    concepts_ns, relations_ns = f"{BASE}{onto_id}/concepts#", f"{BASE}{onto_id}/relations#"
    classes: dict[str, ClassDef] = {}
    by_label: dict[str, str] = {}
    for i, item in enumerate(_list(data, "concepts", path)):
        qid = _text(item, "qid", path, f"concepts[{i}]")
        label = str(item.get("label") or "").strip() or qid
        iri = concepts_ns + _iri_part(qid)
        classes[iri] = ClassDef(iri=iri, name=term_name(label), label=label)
        by_label.setdefault(label.casefold(), iri)

    def concept(ref: str) -> str:
        """The IRI a domain / range reference names: a qid, else a concept's label, else a new undeclared class."""
        iri = concepts_ns + _iri_part(ref)
        if iri in classes:
            return iri
        if ref.casefold() in by_label:
            return by_label[ref.casefold()]
        classes[iri] = ClassDef(iri=iri, name=term_name(ref), label=ref, declared=False)
        return iri

    properties: dict[str, PropertyDef] = {}
    for i, rel in enumerate(_list(data, "relations", path)):
        where = f"relations[{i}]"
        label = _text(rel, "label", path, where)
        pid = str(rel.get("pid") or "").strip() or label
        domain = str(rel.get("domain") or "").strip()
        range_ = str(rel.get("range") or "").strip()
        datatype = PRIMITIVES.get(range_.lower())
        kind = PropertyKind.DATATYPE if datatype else PropertyKind.OBJECT if range_ else PropertyKind.ANY
        iri = relations_ns + _iri_part(pid)
        properties[iri] = PropertyDef(
            iri=iri, name=term_name(label), label=label, kind=kind,
            domain=(concept(domain),) if domain else (),
            range=(datatype,) if datatype else ((concept(range_),) if range_ else ()),
        )
    return TBox(name=name or onto_id, source=path, iri=f"{BASE}{onto_id}", classes=classes, properties=properties,
                comment=data.get("title"))


def _iri_part(text: str) -> str:
    return "_".join(text.split())


def _list(data: dict[str, Any], key: str, path: Path) -> list[dict[str, Any]]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise InputFileError(f"{path}: field '{key}' must be a list of objects")
    return value


def _text(item: dict[str, Any], key: str, path: Path, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        if where == "":  # optional top-level id
            return ""
        raise InputFileError(f"{path}: {where}.{key} is missing or empty")
    return value.strip()
