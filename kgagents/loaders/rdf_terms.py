"""A parser-neutral view of RDF terms, and the vocabulary IRIs the ontology loader reads.

Why not rdflib's term classes: the fast path parses with pyoxigraph, and converting every term into
an rdflib object costs more than the parse itself. Here an IRI is a plain ``str``, a blank node a
:class:`Blank` (a ``str`` that starts with ``_:``) and a literal a :class:`Literal` tuple, so both
parsers feed the same cheap, hashable values to the model builder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, TypeGuard


class Blank(str):
    """A blank node label, always prefixed ``_:`` so it can never equal an absolute IRI."""

    __slots__ = ()


class Literal(NamedTuple):
    """A literal's lexical value with its language tag and datatype IRI (either may be ``None``)."""

    value: str
    lang: str | None = None
    datatype: str | None = None


Term = str | Blank | Literal
Triple = tuple[str | Blank, str, Term]


def is_iri(term: Term) -> TypeGuard[str]:
    """True for a named node (a plain ``str`` that is not a blank node)."""
    return type(term) is str


def local_name(iri: str) -> str:
    """The part after the last ``#``, else after the last ``/`` (else ``:``), ignoring trailing separators."""
    stripped = iri.rstrip("#/")
    for sep in ("#", "/", ":"):
        if sep in stripped:
            return stripped.rsplit(sep, 1)[1]
    return stripped


RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
OBO_IN_OWL = "http://www.geneontology.org/formats/oboInOwl#"
OBO = "http://purl.obolibrary.org/obo/"

RDF_TYPE = RDF + "type"
RDF_FIRST = RDF + "first"
RDF_REST = RDF + "rest"
RDF_NIL = RDF + "nil"
RDF_PLAIN_LITERAL = RDF + "PlainLiteral"
RDF_XML_LITERAL = RDF + "XMLLiteral"
RDF_LANG_STRING = RDF + "langString"

RDFS_CLASS = RDFS + "Class"
RDFS_LABEL = RDFS + "label"
RDFS_COMMENT = RDFS + "comment"
RDFS_SUBCLASS_OF = RDFS + "subClassOf"
RDFS_SUBPROPERTY_OF = RDFS + "subPropertyOf"
RDFS_DOMAIN = RDFS + "domain"
RDFS_RANGE = RDFS + "range"
RDFS_LITERAL = RDFS + "Literal"
RDFS_DATATYPE = RDFS + "Datatype"

OWL_ONTOLOGY = OWL + "Ontology"
OWL_IMPORTS = OWL + "imports"
OWL_CLASS = OWL + "Class"
OWL_OBJECT_PROPERTY = OWL + "ObjectProperty"
OWL_DATATYPE_PROPERTY = OWL + "DatatypeProperty"
OWL_RESTRICTION = OWL + "Restriction"
OWL_ON_PROPERTY = OWL + "onProperty"
OWL_ON_CLASS = OWL + "onClass"
OWL_UNION_OF = OWL + "unionOf"
OWL_INTERSECTION_OF = OWL + "intersectionOf"
OWL_EQUIVALENT_CLASS = OWL + "equivalentClass"
OWL_DISJOINT_WITH = OWL + "disjointWith"
OWL_DEPRECATED = OWL + "deprecated"
OWL_SOME_VALUES_FROM = OWL + "someValuesFrom"
OWL_ALL_VALUES_FROM = OWL + "allValuesFrom"
OWL_HAS_VALUE = OWL + "hasValue"
OWL_QUALIFIED_CARDINALITY = OWL + "qualifiedCardinality"
OWL_MIN_QUALIFIED_CARDINALITY = OWL + "minQualifiedCardinality"
OWL_MAX_QUALIFIED_CARDINALITY = OWL + "maxQualifiedCardinality"

#: titles and descriptions an ontology header may carry (Dublin Core elements and terms)
DC_TITLES = ("http://purl.org/dc/elements/1.1/title", "http://purl.org/dc/terms/title")
DC_DESCRIPTIONS = ("http://purl.org/dc/elements/1.1/description", "http://purl.org/dc/terms/description")

SKOS_PREF_LABEL = SKOS + "prefLabel"
SKOS_ALT_LABEL = SKOS + "altLabel"
SKOS_HIDDEN_LABEL = SKOS + "hiddenLabel"
SKOS_DEFINITION = SKOS + "definition"
SKOS_CONCEPT = SKOS + "Concept"
SKOS_CONCEPT_SCHEME = SKOS + "ConceptScheme"
SKOS_BROADER = SKOS + "broader"
SKOS_NARROWER = SKOS + "narrower"
SKOS_BROADER_TRANSITIVE = SKOS + "broaderTransitive"
SKOS_NARROWER_TRANSITIVE = SKOS + "narrowerTransitive"
OBO_DEFINITION = OBO + "IAO_0000115"
OBO_HAS_DEFINITION = OBO_IN_OWL + "hasDefinition"
OBO_SYNONYMS = frozenset(
    OBO_IN_OWL + p
    for p in ("hasSynonym", "hasExactSynonym", "hasRelatedSynonym", "hasBroadSynonym", "hasNarrowSynonym")
)


def is_datatype_iri(iri: str) -> bool:
    """XSD datatypes and the RDF/RDFS literal types: ranges that are values, not classes."""
    return iri.startswith(XSD) or iri in (RDFS_LITERAL, RDF_PLAIN_LITERAL, RDF_XML_LITERAL, RDF_LANG_STRING)


def rdf_list(index: Mapping[Term, Mapping[str, Sequence[Term]]], head: Term) -> list[Term]:
    """The members of the RDF collection starting at ``head``, read from ``index`` (subject → predicate →
    objects); stops at ``rdf:nil``, a cycle, a literal or a node that is no list cell, so a malformed list reads
    as its well-formed prefix."""
    items: list[Term] = []
    seen: set[Term] = set()
    while head != RDF_NIL and head not in seen and isinstance(head, str):
        seen.add(head)
        desc = index.get(head)
        if not desc or not desc.get(RDF_FIRST):
            break
        items.append(desc[RDF_FIRST][0])
        head = (desc.get(RDF_REST) or [RDF_NIL])[0]
    return items
