"""Parse an ontology file into an in-memory model that mirrors the n10s ontology graph.

Pure Python, no Neo4j: the loader writes this model, and matchers and tests read it directly. The
model keeps only what the graph holds: named classes and properties with their lexical annotations,
and the axioms between them that n10s represents (SCO, SPO, DOMAIN, RANGE, EQUIVALENT_CLASS,
DISJOINT_WITH, and anonymous restrictions as RESTRICTION edges). Edges whose ends are not declared
in the same file (e.g. ``subClassOf owl:Thing`` without an ``owl:Thing`` declaration) are left out,
as n10s does.

A SKOS thesaurus (a file that declares ``skos:Concept`` s and no class or property) is read as an ontology of
its concepts: each concept a class, ``skos:broader`` / ``narrower`` (and their transitive forms) its SCO edges,
``skos:prefLabel`` its labels, ``altLabel`` / ``hiddenLabel`` its synonyms, the ``skos:ConceptScheme`` its header
where there is no ``owl:Ontology``. Thesauri are matched as often as ontologies are, and a concept's broader
concept plays the part a superclass does for the structural rules. In a file that declares classes, concepts stay
what they are there (individuals, e.g. a code list), so no OWL ontology reads differently.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TypeGuard

from kgagents.errors import ParseError
from kgagents.loaders import rdf_terms as v
from kgagents.loaders.rdf_read import RdfFormat, read_triples
from kgagents.loaders.rdf_terms import Literal, Term, is_datatype_iri, is_iri, local_name


class ResourceKind(str, Enum):
    """The n10s node label of each kind of named ontology resource."""

    CLASS = "Class"
    RELATIONSHIP = "Relationship"  # owl:ObjectProperty
    PROPERTY = "Property"  # owl:DatatypeProperty


class EdgeType(str, Enum):
    """Relationship types between resources (restrictions have their own :class:`Restriction`)."""

    SCO = "SCO"
    SPO = "SPO"
    DOMAIN = "DOMAIN"
    RANGE = "RANGE"
    EQUIVALENT_CLASS = "EQUIVALENT_CLASS"
    DISJOINT_WITH = "DISJOINT_WITH"


_KIND_OF_TYPE = {
    v.OWL_CLASS: ResourceKind.CLASS,
    v.RDFS_CLASS: ResourceKind.CLASS,
    v.OWL_OBJECT_PROPERTY: ResourceKind.RELATIONSHIP,
    v.OWL_DATATYPE_PROPERTY: ResourceKind.PROPERTY,
}
# Restriction filler predicate → RESTRICTION.kind
_RESTRICTION_KINDS = {
    v.OWL_SOME_VALUES_FROM: "some",
    v.OWL_ALL_VALUES_FROM: "all",
    v.OWL_HAS_VALUE: "value",
}
_QUALIFIED_KINDS = {
    v.OWL_QUALIFIED_CARDINALITY: "exactly",
    v.OWL_MIN_QUALIFIED_CARDINALITY: "min",
    v.OWL_MAX_QUALIFIED_CARDINALITY: "max",
}
_DEFINITION_PREDICATES = (v.SKOS_DEFINITION, v.OBO_DEFINITION, v.OBO_HAS_DEFINITION)
_SYNONYM_PREDICATES = (*sorted(v.OBO_SYNONYMS), v.SKOS_ALT_LABEL, v.SKOS_HIDDEN_LABEL)
#: a concept's broader concepts: (predicate, whether the subject is the narrower end)
_BROADER = ((v.SKOS_BROADER, True), (v.SKOS_BROADER_TRANSITIVE, True), (v.SKOS_NARROWER, False),
            (v.SKOS_NARROWER_TRANSITIVE, False))
_CLASS_AXIOMS = {v.RDFS_SUBCLASS_OF: EdgeType.SCO, v.OWL_EQUIVALENT_CLASS: EdgeType.EQUIVALENT_CLASS,
                 v.OWL_DISJOINT_WITH: EdgeType.DISJOINT_WITH}
_PROPERTY_AXIOMS = {v.RDFS_DOMAIN: EdgeType.DOMAIN, v.RDFS_RANGE: EdgeType.RANGE}


@dataclass(frozen=True)
class OntologyResource:
    """One named class or property with the annotations a matcher compares."""

    uri: str
    kind: ResourceKind
    name: str
    label: str | None
    labels: list[str]
    comment: str | None
    definitions: list[str]
    synonyms: list[str]
    deprecated: bool = False
    datatype_range: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class OntologyEdge:
    """``(source)-[:type]->(target)`` between two named resources of the same file."""

    source: str
    type: EdgeType
    target: str


@dataclass(frozen=True)
class Restriction:
    """``source ⊑ (property kind target)``, e.g. ``Lip ⊑ part_of some Face`` → kind ``some``."""

    source: str
    property: str
    kind: str
    target: str
    cardinality: int | None = None


@dataclass
class ParsedOntology:
    """Everything one file contributes to the graph, before anything is written."""

    name: str
    path: Path
    uri: str | None
    triples: int
    classes: list[OntologyResource]
    object_properties: list[OntologyResource]
    datatype_properties: list[OntologyResource]
    edges: list[OntologyEdge]
    restrictions: list[Restriction]
    label: str | None = None  # the ontology's own title (rdfs:label / dc:title of its owl:Ontology)
    comment: str | None = None  # and description (rdfs:comment / dc:description)
    imports: list[str] = field(default_factory=list)  # the owl:imports of its header: not read (never fetched)
    label_language: str | None = None  # the language tag most of its resources' labels carry (None: untagged)

    @property
    def resources(self) -> list[OntologyResource]:
        return self.classes + self.object_properties + self.datatype_properties

    @property
    def relationship_count(self) -> int:
        """Edges between resources (DEFINED_IN edges to the ontology node not included)."""
        return len(self.edges) + len(self.restrictions)

    @property
    def row_count(self) -> int:
        """Rows the loader writes: the total for a progress bar fed by ``load_ontology(progress=...)``."""
        return len(self.resources) + self.relationship_count


def default_name(path: str | Path) -> str:
    """The name an ontology gets when none is given: the file stem, lower case (``confOf.owl`` → ``confof``)."""
    return Path(path).stem.lower()


def parse_ontology(path: str | Path, name: str | None = None, format: str | RdfFormat | None = None) -> ParsedOntology:
    """Parse ``path`` (RDF/XML, Turtle or N-Triples) into the n10s-shaped model; ``name`` defaults to
    :func:`default_name`.

    Raises InputFileError for a missing file or unknown format, ParseError (file and line) for a malformed
    one, and ParseError for a file that declares no class or property (an empty file loads nothing useful).
    """
    path = Path(path)
    with _gc_paused():
        triples = read_triples(path, format)
        parsed = _Builder(triples).build(name or default_name(path), path, len(triples))
    if not parsed.resources:
        what = "holds no RDF triples (empty file?)" if not triples else (
            f"holds {len(triples)} triples but declares no class or property (owl:Class, rdfs:Class, "
            "owl:ObjectProperty, owl:DatatypeProperty) and no skos:Concept, so there is no ontology to load")
        raise ParseError(str(path), None, what)
    return parsed


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while parsing.

    A parse allocates several objects per triple, and every allocation burst triggers a collection
    that rescans all of them: about a third of the parse time on the anatomy files. Reference
    counting still frees them as usual; the collector catches up once it is re-enabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Builder:
    """Indexes triples by subject once, then reads each resource's description from the index."""

    def __init__(self, triples: Iterable[tuple[Term, str, Term]]) -> None:
        self.index: dict[Term, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
        self.kinds: dict[str, list[ResourceKind]] = {}
        self.ontology_uri: str | None = None
        concepts: dict[str, None] = {}
        scheme: str | None = None
        for s, p, o in triples:
            self.index[s][p].append(o)
            if p == v.RDF_TYPE and is_iri(s) and is_iri(o):
                kind = _KIND_OF_TYPE.get(o)
                if kind is not None:
                    kinds = self.kinds.setdefault(s, [])
                    if kind not in kinds:
                        kinds.append(kind)
                elif o == v.OWL_ONTOLOGY and self.ontology_uri is None:
                    self.ontology_uri = s
                elif o == v.SKOS_CONCEPT:
                    concepts[s] = None
                elif o == v.SKOS_CONCEPT_SCHEME and scheme is None:
                    scheme = s
        self._add_metaclass_instances()
        self.thesaurus = not self.kinds and bool(concepts)  # a SKOS file: its concepts are the classes
        if self.thesaurus:
            self.kinds = {c: [ResourceKind.CLASS] for c in concepts}
            self.ontology_uri = self.ontology_uri or scheme

    def _add_metaclass_instances(self) -> None:
        """Classes typed by a metaclass the file declares (a class below ``rdfs:Class`` / ``owl:Class``, as ASHRAE
        223P's ``s223:Class``): the standard's own way to declare its classes, which a reader that knows only
        ``owl:Class`` would miss entirely."""
        class_types = {v.OWL_CLASS, v.RDFS_CLASS}
        metaclasses: set[str] = set()
        changed = True
        while changed:  # the metaclasses' own hierarchy, as far as the file states it
            changed = False
            for uri, kinds in self.kinds.items():
                if ResourceKind.CLASS in kinds and uri not in metaclasses and any(
                        o in class_types or o in metaclasses for o in self.index[uri].get(v.RDFS_SUBCLASS_OF, ())):
                    metaclasses.add(uri)
                    changed = True
        if not metaclasses:
            return
        for s, desc in list(self.index.items()):
            if is_iri(s) and s not in self.kinds and any(t in metaclasses for t in desc.get(v.RDF_TYPE, ())):
                self.kinds[s] = [ResourceKind.CLASS]

    def build(self, name: str, path: Path, triple_count: int) -> ParsedOntology:
        by_kind: dict[ResourceKind, list[OntologyResource]] = {k: [] for k in ResourceKind}
        edges: dict[OntologyEdge, None] = {}
        restrictions: dict[Restriction, None] = {}
        for uri, kinds in self.kinds.items():
            for kind in kinds:
                by_kind[kind].append(self._resource(uri, kind))
            if ResourceKind.CLASS in kinds:
                self._class_axioms(uri, edges, restrictions)
            if ResourceKind.RELATIONSHIP in kinds or ResourceKind.PROPERTY in kinds:
                self._property_axioms(uri, edges)
        header = self.index.get(self.ontology_uri, {}) if self.ontology_uri else {}
        titles = [o for p in (v.RDFS_LABEL, *v.DC_TITLES, v.SKOS_PREF_LABEL) for o in header.get(p, ())
                  if isinstance(o, Literal)]
        comments = _unique(o.value for p in (v.RDFS_COMMENT, *v.DC_DESCRIPTIONS) for o in header.get(p, ())
                           if isinstance(o, Literal))
        return ParsedOntology(
            name=name, path=path, uri=self.ontology_uri, triples=triple_count,
            label=_preferred(titles), comment="\n".join(comments) or None,
            imports=_unique(o for o in header.get(v.OWL_IMPORTS, ()) if is_iri(o)),
            label_language=self._label_language(),
            classes=by_kind[ResourceKind.CLASS],
            object_properties=by_kind[ResourceKind.RELATIONSHIP],
            datatype_properties=by_kind[ResourceKind.PROPERTY],
            edges=list(edges), restrictions=list(restrictions),
        )

    def _label_language(self) -> str | None:
        """The language tag (primary subtag, lower case) most labels of the declared resources carry; None when
        most carry none."""
        counts: dict[str | None, int] = defaultdict(int)
        for uri in self.kinds:
            desc = self.index[uri]
            for o in (*desc.get(v.RDFS_LABEL, ()), *desc.get(v.SKOS_PREF_LABEL, ())):
                if isinstance(o, Literal):
                    counts[o.lang.lower().split("-")[0] if o.lang else None] += 1
        return max(counts, key=lambda lang: counts[lang]) if counts else None

    # -- annotations -------------------------------------------------------------------------------
    def _resource(self, uri: str, kind: ResourceKind) -> OntologyResource:
        desc = self.index[uri]
        rdfs_labels = [o for o in desc.get(v.RDFS_LABEL, ()) if isinstance(o, Literal)]
        pref_labels = [o for o in desc.get(v.SKOS_PREF_LABEL, ()) if isinstance(o, Literal)]
        labels = _unique(o.value for o in rdfs_labels + pref_labels)
        comments = _unique(o.value for o in desc.get(v.RDFS_COMMENT, ()) if isinstance(o, Literal))
        definitions = _unique(self._texts(desc, _DEFINITION_PREDICATES))
        synonyms = _unique(self._texts(desc, _SYNONYM_PREDICATES))
        return OntologyResource(
            uri=uri, kind=kind, name=local_name(uri),
            label=_preferred(rdfs_labels) or _preferred(pref_labels),
            labels=labels,
            comment="\n".join(comments) or None,
            definitions=definitions,
            synonyms=synonyms,
            deprecated=any(isinstance(o, Literal) and o.value.strip().lower() in ("true", "1")
                           for o in desc.get(v.OWL_DEPRECATED, ())),
            datatype_range=_unique(r for r in self._members(desc.get(v.RDFS_RANGE, ())) if self._is_datatype(r)),
        )

    def _is_datatype(self, iri: str) -> bool:
        """XSD and RDF literal types, and datatypes the file declares (``rdfs:Datatype``)."""
        return is_datatype_iri(iri) or v.RDFS_DATATYPE in self.index.get(iri, {}).get(v.RDF_TYPE, ())

    def _texts(self, desc: dict[str, list[Term]], predicates: Iterable[str]) -> Iterable[str]:
        """Literal values; a resource object (OAEI anatomy's oboInOwl Synonym / Definition nodes) gives its labels."""
        for predicate in predicates:
            for o in desc.get(predicate, ()):
                if isinstance(o, Literal):
                    yield o.value
                else:
                    yield from (lab.value for lab in self.index.get(o, {}).get(v.RDFS_LABEL, ())
                                if isinstance(lab, Literal))

    # -- axioms ------------------------------------------------------------------------------------
    def _is(self, term: Term, *kinds: ResourceKind) -> TypeGuard[str]:
        """True when ``term`` is declared in this file as a resource of one of ``kinds``."""
        return is_iri(term) and any(k in kinds for k in self.kinds.get(term, ()))

    def _class_axioms(self, uri: str, edges: dict[OntologyEdge, None],
                      restrictions: dict[Restriction, None]) -> None:
        desc = self.index[uri]
        if self.thesaurus:
            for predicate, narrower in _BROADER:
                for o in desc.get(predicate, ()):
                    if self._is(o, ResourceKind.CLASS) and o != uri:
                        below, above = (uri, o) if narrower else (o, uri)
                        edges[OntologyEdge(below, EdgeType.SCO, above)] = None
        for predicate, edge_type in _CLASS_AXIOMS.items():
            for o in desc.get(predicate, ()):
                if self._is(o, ResourceKind.CLASS):
                    edges[OntologyEdge(uri, edge_type, o)] = None
                elif predicate == v.RDFS_SUBCLASS_OF and not is_iri(o):
                    for r in self._restrictions(uri, o):
                        restrictions[r] = None

    def _restrictions(self, source: str, node: Term) -> Iterable[Restriction]:
        desc = self.index.get(node, {})
        if v.OWL_RESTRICTION not in desc.get(v.RDF_TYPE, ()):
            return
        on_property = [p for p in desc.get(v.OWL_ON_PROPERTY, ()) if is_iri(p)]
        if len(on_property) != 1:
            return
        prop = on_property[0]
        for predicate, kind in _RESTRICTION_KINDS.items():
            for filler in desc.get(predicate, ()):
                for target in self._members([filler]):
                    if self._is(target, ResourceKind.CLASS):
                        yield Restriction(source, prop, kind, target)
        for predicate, kind in _QUALIFIED_KINDS.items():
            for n in desc.get(predicate, ()):
                if not (isinstance(n, Literal) and n.value.strip().isdigit()):
                    continue
                for target in self._members(desc.get(v.OWL_ON_CLASS, ())):
                    if self._is(target, ResourceKind.CLASS):
                        yield Restriction(source, prop, kind, target, int(n.value))

    def _property_axioms(self, uri: str, edges: dict[OntologyEdge, None]) -> None:
        desc = self.index[uri]
        for o in desc.get(v.RDFS_SUBPROPERTY_OF, ()):
            if self._is(o, ResourceKind.RELATIONSHIP, ResourceKind.PROPERTY):
                edges[OntologyEdge(uri, EdgeType.SPO, o)] = None
        for predicate, edge_type in _PROPERTY_AXIOMS.items():
            for target in self._members(desc.get(predicate, ())):
                if self._is(target, ResourceKind.CLASS):
                    edges[OntologyEdge(uri, edge_type, target)] = None

    def _members(self, objects: Iterable[Term]) -> list[str]:
        """Named objects as they are, and the named members of anonymous ``owl:unionOf`` lists."""
        out: list[str] = []
        for o in objects:
            if is_iri(o):
                out.append(o)
            elif not isinstance(o, Literal):
                for union in self.index.get(o, {}).get(v.OWL_UNION_OF, ()):
                    out.extend(m for m in self._rdf_list(union) if is_iri(m))
        return out

    def _rdf_list(self, head: Term) -> list[Term]:
        return v.rdf_list(self.index, head)


def _unique(values: Iterable[str]) -> list[str]:
    """Distinct, stripped, non-empty values in first-seen order."""
    return list(dict.fromkeys(s for s in (x.strip() for x in values) if s))


def _preferred(labels: list[Literal]) -> str | None:
    """The first English label, else the first without a language tag, else the first of any language."""
    for accept in (lambda lang: bool(lang) and lang.lower().split("-")[0] == "en", lambda lang: not lang,
                   lambda lang: True):
        for lab in labels:
            if accept(lab.lang) and lab.value.strip():
                return lab.value.strip()
    return None
