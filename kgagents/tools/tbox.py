"""A typed model of an ontology's T-Box: what the tool compiler needs and nothing else.

Why a model of its own rather than the loader's n10s-shaped one (:mod:`kgagents.loaders.ontology_model`):
the compiler enforces axioms, so it needs what a graph view leaves out — classes that are only
*referenced* (an OM-2 quantity used as a range but declared elsewhere), unqualified cardinalities,
functional properties, enumerations (``owl:oneOf``) and class-local ranges (``allValuesFrom``) — and it
needs subclass reasoning over them. Both readers (:mod:`kgagents.tools.tbox_rdf` for OWL,
:mod:`kgagents.tools.tbox_json` for Text2KGBench's JSON) build this one model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from pathlib import Path

from kgagents.loaders.rdf_terms import XSD, local_name

XSD_STRING = XSD + "string"


class PropertyKind(str, Enum):
    """Whether a property links two instances, an instance and a literal value, or either (``ANY``: a property
    whose range the ontology leaves open, e.g. an empty ``range`` in a Text2KGBench ontology JSON)."""

    OBJECT = "object"
    DATATYPE = "datatype"
    ANY = "any"


@dataclass(frozen=True)
class ClassDef:
    """One class. ``declared`` is False for classes only referenced (as a range, parent or filler)."""

    iri: str
    name: str
    label: str
    comment: str | None = None
    parents: tuple[str, ...] = ()
    declared: bool = True
    one_of: tuple[str, ...] = ()  # an enumerated class: only these individuals are its instances


@dataclass(frozen=True)
class PropertyDef:
    """One object or datatype property. An empty domain or range means "not constrained"."""

    iri: str
    name: str
    label: str
    kind: PropertyKind
    comment: str | None = None
    domain: tuple[str, ...] = ()  # union of classes
    range: tuple[str, ...] = ()  # union of classes (object) or datatype IRIs (datatype)
    functional: bool = False
    allowed_values: tuple[str, ...] = ()  # datatype enumeration (owl:oneOf of literals)


@dataclass(frozen=True)
class Cardinality:
    """``cls ⊑ (property min..max)`` from an OWL restriction (``None``: no bound on that side)."""

    cls: str
    property: str
    min: int | None = None
    max: int | None = None


@dataclass(frozen=True)
class LocalRange:
    """``cls ⊑ property only filler``: for instances of ``cls`` the property's values must be ``filler``."""

    cls: str
    property: str
    filler: str


@dataclass
class TBox:
    """Classes, properties and axioms of one ontology file, with the reasoning the tools need."""

    name: str
    source: Path
    iri: str | None
    classes: dict[str, ClassDef]
    properties: dict[str, PropertyDef]
    cardinalities: list[Cardinality] = field(default_factory=list)
    local_ranges: list[LocalRange] = field(default_factory=list)
    comment: str | None = None

    # -- subclass reasoning ------------------------------------------------------------------------
    @cached_property
    def _ancestors(self) -> dict[str, frozenset[str]]:
        out: dict[str, frozenset[str]] = {}
        for iri in self.classes:
            seen: set[str] = set()
            stack = [iri]
            while stack:  # the parents graph may have cycles (equivalences written as two subClassOf)
                current = stack.pop()
                if current in seen:
                    continue
                seen.add(current)
                stack.extend(self.classes[current].parents if current in self.classes else ())
            out[iri] = frozenset(seen)
        return out

    def ancestors(self, cls: str) -> frozenset[str]:
        """``cls`` and every class it is a subclass of, transitively."""
        return self._ancestors.get(cls, frozenset((cls,)))

    def is_subclass(self, cls: str, of: str) -> bool:
        """True when every ``cls`` is an ``of`` (reflexive)."""
        return of in self.ancestors(cls)

    def fits(self, cls: str, allowed: tuple[str, ...]) -> bool:
        """True when ``cls`` is a subclass of one member of the union ``allowed`` (empty: anything fits)."""
        return not allowed or any(self.is_subclass(cls, a) for a in allowed)

    def descendants(self, cls: str) -> list[str]:
        """``cls`` and all its subclasses, sorted (the classes whose instances are ``cls`` instances)."""
        return sorted(c for c in self.classes if self.is_subclass(c, cls))

    # -- axioms for one class ----------------------------------------------------------------------
    def max_cardinality(self, cls: str, prop: str) -> int | None:
        """The tightest upper bound on ``prop`` for instances of ``cls`` (functional properties: 1)."""
        bounds = [c.max for c in self.cardinalities
                  if c.property == prop and c.max is not None and self.is_subclass(cls, c.cls)]
        if self.properties.get(prop) is not None and self.properties[prop].functional:
            bounds.append(1)
        return min(bounds) if bounds else None

    def required(self, cls: str) -> dict[str, int]:
        """Property → minimum count for instances of ``cls`` (min cardinalities ≥ 1, inherited)."""
        out: dict[str, int] = {}
        for c in self.cardinalities:
            if c.min and self.is_subclass(cls, c.cls):
                out[c.property] = max(out.get(c.property, 0), c.min)
        return out

    def local_range(self, cls: str, prop: str) -> tuple[str, ...]:
        """Class-local ranges (``allValuesFrom``) that apply to ``prop`` on instances of ``cls``."""
        return tuple(sorted({r.filler for r in self.local_ranges
                             if r.property == prop and self.is_subclass(cls, r.cls)}))

    # -- quantities ----------------------------------------------------------------------------------
    def quantity_class(self, prop: PropertyDef) -> str | None:
        """The OM-2 quantity class an object property points at, if it has exactly one (value + unit tools)."""
        from kgagents.tools.om2_units import units_for

        if prop.kind is not PropertyKind.OBJECT or len(prop.range) != 1:
            return None
        target = prop.range[0]
        return target if units_for(target) else None

    def label_of(self, iri: str) -> str:
        """The label of a class or property, else the IRI's local name."""
        found = self.classes.get(iri) or self.properties.get(iri)
        return found.label if found is not None else local_name(iri)
