"""Read a Text2KGBench ontology JSON (``concepts`` + ``relations`` with domain/range) into a :class:`TBox`.

The format names classes by ``qid`` and relations by ``pid``/``label``; a range that is one of the
format's primitive names (``string``, ``number``, ``date``/``Date``, ``Year``) makes a datatype
property with the matching XSD datatype; any other range names a class (added as undeclared when the
file's ``concepts`` omit it, as several DBpedia-WebNLG files do); an empty range leaves the property
unconstrained. IRIs follow the namespaces of the benchmark's own OWL files (``…/<id>/concepts#X``,
``…/<id>/relations#p``), so the JSON and the TTL of one ontology compile to the same tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgagents.errors import InputFileError, ParseError
from kgagents.loaders.rdf_terms import XSD
from kgagents.tools.tbox import ClassDef, PropertyDef, PropertyKind, TBox

BASE = "https://cenguix.github.io/Text2KGBench/"
PRIMITIVES = {"string": XSD + "string", "number": XSD + "decimal", "date": XSD + "date", "year": XSD + "gYear"}


def read_json_tbox(path: str | Path, name: str | None = None) -> TBox:
    """Parse a Text2KGBench ontology file; errors name the file and the offending field."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"ontology file not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: expected a JSON object with 'concepts' and 'relations'")
    onto_id = _text(data, "id", path, "") or path.stem
    concepts_ns, relations_ns = f"{BASE}{onto_id}/concepts#", f"{BASE}{onto_id}/relations#"
    classes: dict[str, ClassDef] = {}
    for i, concept in enumerate(_list(data, "concepts", path)):
        qid = _text(concept, "qid", path, f"concepts[{i}]")
        classes[concepts_ns + qid] = ClassDef(iri=concepts_ns + qid, name=qid,
                                              label=concept.get("label") or qid)
    properties: dict[str, PropertyDef] = {}
    for i, rel in enumerate(_list(data, "relations", path)):
        where = f"relations[{i}]"
        label = _text(rel, "label", path, where)
        pid = (rel.get("pid") or label).replace(" ", "_")
        domain = (rel.get("domain") or "").strip()
        range_ = (rel.get("range") or "").strip()
        datatype = PRIMITIVES.get(range_.lower())
        for cls in (domain, "" if datatype else range_):
            if cls and concepts_ns + cls not in classes:
                classes[concepts_ns + cls] = ClassDef(iri=concepts_ns + cls, name=cls, label=cls, declared=False)
        properties[relations_ns + pid] = PropertyDef(
            iri=relations_ns + pid, name=pid, label=label.replace(" ", "_"),
            kind=PropertyKind.DATATYPE if datatype else PropertyKind.OBJECT,
            domain=(concepts_ns + domain,) if domain else (),
            range=(datatype,) if datatype else ((concepts_ns + range_,) if range_ else ()),
        )
    return TBox(name=name or onto_id, source=path, iri=f"{BASE}{onto_id}", classes=classes, properties=properties,
                comment=data.get("title"))


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
