"""Read an OWL/RDFS T-Box (RDF/XML, Turtle, N-Triples) into :class:`~kgagents.tools.tbox.TBox`.

Parsing reuses the loaders' reader (:func:`kgagents.loaders.rdf_read.read_triples`: pyoxigraph with an
rdflib fallback, errors with file and line); this module only interprets the axioms. Readings worth
knowing:

* several ``rdfs:domain`` (or ``rdfs:range``) statements are read as a union, like ``owl:unionOf``
  (OWL says intersection, but ontologies written as OGM exports list alternatives this way);
* ``owl:cardinality`` / ``min`` / ``max`` and their qualified forms bound the property on the
  restricted class (a qualified bound is applied to the property whatever its ``onClass``);
* ``owl:allValuesFrom`` gives a class-local range; ``owl:someValuesFrom`` is *not* read as "required"
  (only a minimum cardinality is), since under the open-world reading it asserts no data;
* ``owl:oneOf`` on a class (or its equivalent class) enumerates its individuals; on a datatype
  range it enumerates the allowed literal values.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kgagents.errors import InputFileError
from kgagents.loaders import rdf_terms as v
from kgagents.loaders.ontology_model import _Builder
from kgagents.loaders.rdf_read import RdfFormat, read_triples
from kgagents.loaders.rdf_terms import Literal, Term, is_datatype_iri, is_iri, local_name
from kgagents.tools.tbox import Cardinality, ClassDef, LocalRange, PropertyDef, PropertyKind, TBox

OWL_FUNCTIONAL = v.OWL + "FunctionalProperty"
OWL_ONE_OF = v.OWL + "oneOf"
OWL_THING = v.OWL + "Thing"
_CARDINALITY = {  # predicate → (sets min, sets max)
    v.OWL + "cardinality": (True, True), v.OWL_QUALIFIED_CARDINALITY: (True, True),
    v.OWL + "minCardinality": (True, False), v.OWL_MIN_QUALIFIED_CARDINALITY: (True, False),
    v.OWL + "maxCardinality": (False, True), v.OWL_MAX_QUALIFIED_CARDINALITY: (False, True),
}
_CLASS_TYPES = (v.OWL_CLASS, v.RDFS_CLASS)
_PROPERTY_TYPES = {v.OWL_OBJECT_PROPERTY: PropertyKind.OBJECT, v.OWL_DATATYPE_PROPERTY: PropertyKind.DATATYPE}


def read_rdf_tbox(path: str | Path, name: str | None = None, format: str | RdfFormat | None = None) -> TBox:
    """Parse ``path`` and interpret its classes, properties and axioms."""
    path = Path(path)
    reader = _Reader(read_triples(path, format))
    tbox = reader.tbox(name or path.stem, path)
    if not tbox.classes and not tbox.properties:
        raise InputFileError(f"{path}: no OWL/RDFS classes or properties found; is this a T-Box?")
    return tbox


class _Reader(_Builder):
    """The loader's subject index (and its union / RDF-list readers), read for axioms instead of graph edges."""

    def _types(self, subject: Term) -> list[Term]:
        return self.index.get(subject, {}).get(v.RDF_TYPE, [])

    def tbox(self, name: str, path: Path) -> TBox:
        ontology = self.ontology_uri
        declared = [s for s, d in self.index.items()
                    if is_iri(s) and any(t in _CLASS_TYPES for t in d.get(v.RDF_TYPE, ()))
                    and not is_datatype_iri(s)]
        properties = {p.iri: p for p in (self._property(s) for s in self.index if is_iri(s)) if p is not None}
        referenced = self._referenced_classes(declared, properties.values())
        classes = {iri: self._class(iri, iri in declared) for iri in [*declared, *referenced]}
        cardinalities, local_ranges = self._class_restrictions(declared)
        return TBox(name=name, source=path, iri=ontology, classes=classes, properties=properties,
                    cardinalities=cardinalities, local_ranges=local_ranges,
                    comment=self._text(ontology, v.RDFS_COMMENT) if ontology else None)

    # -- classes -------------------------------------------------------------------------------------
    def _class(self, iri: str, declared: bool) -> ClassDef:
        desc = self.index.get(iri, {})
        parents = tuple(sorted({p for p in desc.get(v.RDFS_SUBCLASS_OF, ()) if is_iri(p) and p != OWL_THING}))
        return ClassDef(iri=iri, name=local_name(iri), label=self._label(iri), comment=self._comment(iri),
                        parents=parents, declared=declared, one_of=self._class_enumeration(iri))

    def _class_enumeration(self, iri: str) -> tuple[str, ...]:
        desc = self.index.get(iri, {})
        for node in [iri, *desc.get(v.OWL_EQUIVALENT_CLASS, ())]:
            for head in self.index.get(node, {}).get(OWL_ONE_OF, ()):
                return tuple(m for m in self._rdf_list(head) if is_iri(m))
        return ()

    def _referenced_classes(self, declared: list[str], properties: Iterable[PropertyDef]) -> list[str]:
        """Named classes used as domains, object ranges or parents but declared elsewhere (e.g. OM-2)."""
        known = set(declared)
        out: dict[str, None] = {}
        for prop in properties:
            ranges = prop.range if prop.kind is PropertyKind.OBJECT else ()
            for iri in (*prop.domain, *ranges):
                if iri not in known:
                    out[iri] = None
        for cls in declared:
            for parent in self.index[cls].get(v.RDFS_SUBCLASS_OF, ()):
                if is_iri(parent) and parent not in known and parent != OWL_THING:
                    out[parent] = None
        return list(out)

    # -- properties ----------------------------------------------------------------------------------
    def _property(self, iri: str) -> PropertyDef | None:
        types = self._types(iri)
        kinds = [_PROPERTY_TYPES[t] for t in types if t in _PROPERTY_TYPES]
        if not kinds:
            return None
        desc = self.index[iri]
        ranges, allowed = self._range(desc.get(v.RDFS_RANGE, ()))
        kind = kinds[0]
        if kind is PropertyKind.OBJECT and ranges and all(is_datatype_iri(r) for r in ranges):
            kind = PropertyKind.DATATYPE  # declared object property with a literal range: the range decides
        return PropertyDef(
            iri=iri, name=local_name(iri), label=self._label(iri), kind=kind, comment=self._comment(iri),
            domain=tuple(sorted(set(self._members(desc.get(v.RDFS_DOMAIN, ()))) - {OWL_THING})),
            range=tuple(sorted(set(ranges) - {OWL_THING})),
            functional=OWL_FUNCTIONAL in types, allowed_values=allowed,
        )

    def _range(self, objects: Iterable[Term]) -> tuple[list[str], tuple[str, ...]]:
        """Range members, and the allowed literal values when the range is a ``oneOf`` data range."""
        ranges: list[str] = []
        allowed: list[str] = []
        for o in objects:
            enumerated = self._literal_enumeration(o)
            if enumerated:
                allowed.extend(value for value, _ in enumerated)
                ranges.extend({dt for _, dt in enumerated})
            else:
                ranges.extend(self._members([o]))
        return ranges, tuple(dict.fromkeys(allowed))

    def _literal_enumeration(self, node: Term) -> list[tuple[str, str]]:
        """``(value, datatype)`` of a ``oneOf`` list of literals (directly or via owl:equivalentClass)."""
        desc = self.index.get(node, {})
        for candidate in [node, *desc.get(v.OWL_EQUIVALENT_CLASS, ())]:
            for head in self.index.get(candidate, {}).get(OWL_ONE_OF, ()):
                items = self._rdf_list(head)
                if items and all(isinstance(i, Literal) for i in items):
                    return [(i.value, i.datatype or v.XSD + "string") for i in items]  # type: ignore[union-attr]
        return []

    # -- restrictions --------------------------------------------------------------------------------
    def _class_restrictions(self, classes: list[str]) -> tuple[list[Cardinality], list[LocalRange]]:
        cardinalities: list[Cardinality] = []
        local_ranges: list[LocalRange] = []
        for cls in classes:
            for node in self.index[cls].get(v.RDFS_SUBCLASS_OF, ()):
                desc = self.index.get(node, {})
                if is_iri(node) or v.OWL_RESTRICTION not in desc.get(v.RDF_TYPE, ()):
                    continue
                props = [p for p in desc.get(v.OWL_ON_PROPERTY, ()) if is_iri(p)]
                if len(props) != 1:
                    continue
                low = high = None
                for predicate, (sets_min, sets_max) in _CARDINALITY.items():
                    for n in desc.get(predicate, ()):
                        if isinstance(n, Literal) and n.value.strip().isdigit():
                            low = int(n.value) if sets_min else low
                            high = int(n.value) if sets_max else high
                if low is not None or high is not None:
                    cardinalities.append(Cardinality(cls, props[0], low, high))
                for filler in self._members(desc.get(v.OWL_ALL_VALUES_FROM, ())):
                    local_ranges.append(LocalRange(cls, props[0], filler))
        return cardinalities, local_ranges

    # -- annotations and lists -----------------------------------------------------------------------
    def _label(self, iri: str) -> str:
        labels = [o for p in (v.RDFS_LABEL, v.SKOS_PREF_LABEL) for o in self.index.get(iri, {}).get(p, ())
                  if isinstance(o, Literal) and o.value.strip()]
        english = [lab for lab in labels if (lab.lang or "en").lower().startswith("en")]
        chosen = (english or labels)
        return chosen[0].value.strip() if chosen else local_name(iri)

    def _text(self, iri: str, predicate: str) -> str | None:
        values = [o.value.strip() for o in self.index.get(iri, {}).get(predicate, ()) if isinstance(o, Literal)]
        return "\n".join(dict.fromkeys(x for x in values if x)) or None

    def _comment(self, iri: str) -> str | None:
        parts = [t for t in (self._text(iri, v.RDFS_COMMENT), self._text(iri, v.SKOS_DEFINITION)) if t]
        return "\n".join(parts) or None
