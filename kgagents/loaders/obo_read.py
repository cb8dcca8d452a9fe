"""Read an OBO flat file (format 1.2 / 1.4) as the triples of its standard OWL translation.

Why triples: an OBO file then loads exactly as the OWL file the OBO tools (ROBOT, owltools) would write from it —
the ontology loader, the T-Box reader and the background loader all read RDF triples, so one reader serves them all
and an ontology matched from its ``.obo`` file matches as it would from its ``.owl`` file. The translation follows
the OBO 1.4 specification's mapping, for what the loaders read:

* ``[Term]``: an ``owl:Class``; ``name`` → ``rdfs:label``; ``synonym: "…" EXACT|NARROW|BROAD|RELATED`` →
  ``oboInOwl:has…Synonym``; ``def`` → ``IAO_0000115``; ``comment`` → ``rdfs:comment``; ``is_a`` →
  ``rdfs:subClassOf``; ``relationship: R X`` → ``rdfs:subClassOf (R some X)``; ``intersection_of`` lines → one
  ``owl:equivalentClass`` to their intersection; ``equivalent_to`` / ``disjoint_from`` → ``owl:equivalentClass`` /
  ``owl:disjointWith``; ``xref`` → ``oboInOwl:hasDbXref``; ``is_obsolete: true`` → ``owl:deprecated``;
  ``property_value: P V`` → ``P V`` (an IRI, or a quoted literal).
* ``[Typedef]``: an ``owl:ObjectProperty`` (with ``name``, ``is_a`` → ``rdfs:subPropertyOf``, ``domain``, ``range``);
  a shorthand id (``part_of``) is named by its ``xref`` to a prefixed id (``BFO:0000050``) when it has one, else
  ``obo:<ontology>#part_of``.
* identifiers: a CURIE is expanded by the caller's ``expand`` (by default the standard prefixes, then the OBO
  convention ``MA:0000001`` → ``http://purl.obolibrary.org/obo/MA_0000001``); an IRI stays as it is.

``[Instance]`` stanzas and header tags other than ``ontology`` and a ``property_value`` title are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kgagents.errors import InputFileError, ParseError
from kgagents.loaders import rdf_terms as v
from kgagents.loaders.prefixes import OBO_PURL, converter, expand
from kgagents.loaders.rdf_terms import Blank, Literal, Triple

_SYNONYM_SCOPES = {"EXACT": "hasExactSynonym", "NARROW": "hasNarrowSynonym", "BROAD": "hasBroadSynonym",
                   "RELATED": "hasRelatedSynonym"}
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*(.*)$')
_TRAILING_MODIFIERS = re.compile(r"\s*\{[^{}]*\}\s*$")
_TRUE = ("true", "1")
_XSD_STRING = v.XSD + "string"


@dataclass
class _Stanza:
    kind: str  # Term | Typedef
    line: int
    tags: list[tuple[str, str, int]] = field(default_factory=list)  # (tag, value, line)

    def values(self, tag: str) -> list[str]:
        return [value for t, value, _ in self.tags if t == tag]


def read_obo_triples(path: Path, expand_id: Callable[[str], str] | None = None) -> list[Triple]:
    """The triples of ``path``'s OWL translation (module docstring). Raises ParseError (file and line) for a file
    without an OBO header or stanza, a stanza without an ``id``, or a ``def`` / ``synonym`` whose text is not
    quoted as the format requires."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise InputFileError(f"Cannot read {path}: {exc}") from exc
    header, stanzas = _stanzas(text)
    if not header and not stanzas:
        raise ParseError(str(path), 1, "no OBO header (format-version) and no [Term] stanza: not an OBO file")
    default = converter()
    to_iri = expand_id or (lambda identifier: expand(identifier, default))
    ontology = next((value for tag, value, _ in header if tag == "ontology"), path.stem)
    return _Translator(path, ontology, to_iri).triples(header, stanzas)


def _stanzas(text: str) -> tuple[list[tuple[str, str, int]], list[_Stanza]]:
    """The header's (tag, value, line) and the [Term] / [Typedef] stanzas, comments (``!``) and modifiers
    (``{…}``) dropped."""
    header: list[tuple[str, str, int]] = []
    stanzas: list[_Stanza] = []
    current: _Stanza | None = None
    in_header = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            in_header = False
            kind = line[1:-1].strip()
            current = _Stanza(kind, number) if kind in ("Term", "Typedef") else None
            if current is not None:
                stanzas.append(current)
            continue
        tag, sep, value = line.partition(":")
        if not sep:
            continue  # not a tag-value line: OBO readers skip it
        entry = (tag.strip(), _TRAILING_MODIFIERS.sub("", value.strip()), number)
        if in_header:
            header.append(entry)
        elif current is not None:
            current.tags.append(entry)
    return header, stanzas


def _strip_comment(line: str) -> str:
    """The line without its trailing ``! comment`` (a ``!`` inside a quoted text is kept)."""
    quoted = False
    escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "!" and not quoted:
            return line[:i]
    return line


class _Translator:
    def __init__(self, path: Path, ontology: str, to_iri: Callable[[str], str]) -> None:
        self.path = path
        self.ontology = ontology
        self.to_iri = to_iri
        self.out: list[Triple] = []
        self.blanks = 0
        self.relations: dict[str, str] = {}  # a Typedef's id as written → its IRI

    def triples(self, header: list[tuple[str, str, int]], stanzas: list[_Stanza]) -> list[Triple]:
        ontology_iri = f"{OBO_PURL}{self.ontology}.owl"
        self.add(ontology_iri, v.RDF_TYPE, v.OWL_ONTOLOGY)
        for tag, value, line in header:
            if tag == "property_value":
                self._property_value(ontology_iri, value, line)
        for stanza in stanzas:  # relation names first: terms' relationship lines refer to them
            if stanza.kind == "Typedef":
                self.relations[self._id(stanza)] = self._typedef_iri(stanza)
        for stanza in stanzas:
            if stanza.kind == "Term":
                self._term(stanza)
            else:
                self._typedef(stanza)
        return list(dict.fromkeys(self.out))

    # -- helpers -------------------------------------------------------------------------------
    def add(self, s: str | Blank, p: str, o: str | Blank | Literal) -> None:
        self.out.append((s, p, o))

    def blank(self) -> Blank:
        self.blanks += 1
        return Blank(f"_:obo{self.blanks}")

    def iri(self, identifier: str) -> str:
        """An identifier as an IRI; a shorthand without a prefix (``part_of``) in the ontology's namespace."""
        identifier = identifier.strip()
        if identifier in self.relations:
            return self.relations[identifier]
        return self.to_iri(identifier) if ":" in identifier else self._shorthand(identifier)

    def _shorthand(self, identifier: str) -> str:
        """A prefix-less id (a relation's ``part_of``) in the ontology's own namespace."""
        return f"{OBO_PURL}{self.ontology}#{identifier}"

    def _id(self, stanza: _Stanza) -> str:
        ids = stanza.values("id")
        if not ids or not ids[0].strip():
            raise ParseError(str(self.path), stanza.line, f"a [{stanza.kind}] stanza without an id")
        return ids[0].split()[0]

    def _quoted(self, tag: str, value: str, line: int) -> tuple[str, str]:
        """(the quoted text, what follows it) of a ``def`` / ``synonym`` value."""
        found = _QUOTED.match(value)
        if found is None:
            raise ParseError(str(self.path), line, f"the {tag} line holds no quoted text: {value!r}")
        return found.group(1).replace('\\"', '"').replace("\\\\", "\\"), found.group(2)

    def _property_value(self, subject: str, value: str, line: int) -> None:
        parts = value.split(None, 1)
        if len(parts) < 2:
            return
        predicate, rest = self.to_iri(parts[0]), parts[1].strip()
        if rest.startswith('"'):
            text, _ = self._quoted("property_value", rest, line)
            self.add(subject, predicate, Literal(text, None, _XSD_STRING))
        else:
            self.add(subject, predicate, self.to_iri(rest.split()[0]))

    # -- stanzas -------------------------------------------------------------------------------
    def _term(self, stanza: _Stanza) -> None:
        term = self.iri(self._id(stanza))
        self.add(term, v.RDF_TYPE, v.OWL_CLASS)
        genus: list[str | Blank] = []
        for tag, value, line in stanza.tags:
            if not value:
                continue
            if self._annotation(term, tag, value, line):
                continue
            first = value.split()
            if tag == "is_a":
                self.add(term, v.RDFS_SUBCLASS_OF, self.iri(first[0]))
            elif tag == "relationship" and len(first) >= 2:
                self.add(term, v.RDFS_SUBCLASS_OF, self._some(first[0], first[1]))
            elif tag == "intersection_of":
                genus.append(self.iri(first[0]) if len(first) == 1 else self._some(first[0], first[1]))
            elif tag == "equivalent_to":
                self.add(term, v.OWL_EQUIVALENT_CLASS, self.iri(first[0]))
            elif tag == "disjoint_from":
                self.add(term, v.OWL_DISJOINT_WITH, self.iri(first[0]))
        if genus:
            node = self.blank()
            self.add(term, v.OWL_EQUIVALENT_CLASS, node)
            self.add(node, v.RDF_TYPE, v.OWL_CLASS)
            self.add(node, v.OWL_INTERSECTION_OF, self._list(genus))

    def _typedef(self, stanza: _Stanza) -> None:
        prop = self.relations[self._id(stanza)]
        if any(value.lower() in _TRUE for value in stanza.values("is_metadata_tag")):
            return  # an annotation property: nothing the loaders read
        self.add(prop, v.RDF_TYPE, v.OWL_OBJECT_PROPERTY)
        for tag, value, line in stanza.tags:
            if not value or self._annotation(prop, tag, value, line):
                continue
            first = value.split()[0]
            if tag == "is_a":
                self.add(prop, v.RDFS_SUBPROPERTY_OF, self.iri(first))
            elif tag == "domain":
                self.add(prop, v.RDFS_DOMAIN, self.iri(first))
            elif tag == "range":
                self.add(prop, v.RDFS_RANGE, self.iri(first))

    def _typedef_iri(self, stanza: _Stanza) -> str:
        """A Typedef's IRI: its id when prefixed, else its first xref to a prefixed id, else ontology#id."""
        identifier = self._id(stanza)
        if ":" in identifier:
            return self.to_iri(identifier)
        prefixed = [x.split()[0] for x in stanza.values("xref") if ":" in x.split()[0]]
        return self.to_iri(prefixed[0]) if prefixed else self._shorthand(identifier)

    def _annotation(self, subject: str, tag: str, value: str, line: int) -> bool:
        """Write an annotation line's triple; False for a tag that is not an annotation."""
        if tag == "name":
            self.add(subject, v.RDFS_LABEL, Literal(value, None, _XSD_STRING))
        elif tag == "synonym":
            text, rest = self._quoted(tag, value, line)
            scope = (rest.split() or ["RELATED"])[0]
            self.add(subject, v.OBO_IN_OWL + _SYNONYM_SCOPES.get(scope, "hasRelatedSynonym"),
                     Literal(text, None, _XSD_STRING))
        elif tag == "def":
            text, _ = self._quoted(tag, value, line)
            self.add(subject, v.OBO_DEFINITION, Literal(text, None, _XSD_STRING))
        elif tag == "comment":
            self.add(subject, v.RDFS_COMMENT, Literal(value, None, _XSD_STRING))
        elif tag == "xref":
            self.add(subject, v.OBO_IN_OWL + "hasDbXref", Literal(value.split()[0], None, _XSD_STRING))
        elif tag == "is_obsolete":
            if value.lower() in _TRUE:
                self.add(subject, v.OWL_DEPRECATED, Literal("true", None, v.XSD + "boolean"))
        elif tag == "property_value":
            self._property_value(subject, value, line)
        else:
            return False
        return True

    def _some(self, relation: str, filler: str) -> Blank:
        node = self.blank()
        self.add(node, v.RDF_TYPE, v.OWL_RESTRICTION)
        self.add(node, v.OWL_ON_PROPERTY, self.iri(relation))
        self.add(node, v.OWL_SOME_VALUES_FROM, self.iri(filler))
        return node

    def _list(self, items: list[str | Blank]) -> str | Blank:
        head: str | Blank = v.RDF_NIL
        for item in reversed(items):
            node = self.blank()
            self.add(node, v.RDF_FIRST, item)
            self.add(node, v.RDF_REST, head)
            head = node
        return head
