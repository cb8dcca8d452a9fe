"""Background knowledge for ontology matching: files that say how classes relate to each other or to a mediator.

Four kinds of file are read, each into the same statements ``a <relation> b`` (:class:`Statement`):

* a **bridge / mediating ontology** (OWL as RDF/XML, Turtle or N-Triples; or OBO): ``owl:equivalentClass`` to a
  named class is ``exact``; ``rdfs:subClassOf`` a named class, or an equivalence to an intersection of named classes
  with restrictions (Uberon's "MA class ≡ Uberon class ⊓ part of some mouse"), is ``narrow`` (a ⊑ b); the SKOS
  mapping properties and ``owl:sameAs`` as they say; ``oboInOwl:hasDbXref`` is ``close`` (a cross-reference, not a
  stated equivalence). An ontology file given here also contributes its own cross-references (the xrefs inside it);
* an **SSSOM TSV** mapping set (:mod:`kgagents.loaders.sssom`): its ``predicate_id``, by the same rules;
* an **Alignment API** RDF/XML alignment: ``=`` is ``exact``, ``<`` / ``>`` ``narrow``; ``%`` is skipped.

**The identity rule** (which identifiers name one entity): an identifier is written as an IRI (a CURIE is expanded
by the prefix map: the file's ``curie_map``, the user's ``--prefix-map``, SSSOM's built-in prefixes, else the OBO
convention ``P:ID`` → ``obo:P_ID``); it ties to a class of a loaded ontology when (1) the IRIs are equal, or (2)
both local names are accession ids (``PREFIX_ACCESSION``, the accession holding a digit) that are equal once their
prefixes are standardised by the prefix map's synonyms (``http://mouse.owl#MA_0000001`` = ``obo:MA_0000001``;
``NCI_C12219`` = ``NCIT_C12219`` only with a map that lists NCI as a synonym of NCIT). Words are never identifiers
(``Paper`` in two ontologies is a name, not an id). Every other identifier is a **mediator**: a ``(:Mediator)`` node.

**Names**: a bridge also names the classes it ties — Uberon's bridges give each MA or NCIT class Uberon's label
(``IAO_0000589``, "serosa of intestine (post-embryonic mouse)"), a mediating ontology its labels and synonyms.
The names a file gives an identifier (``rdfs:label``, ``skos:prefLabel``/``altLabel``, ``IAO_0000589``, the
oboInOwl synonyms; OBO ``name:`` and ``synonym:``), a trailing parenthesised qualifier dropped, travel on the
edges of the identifiers that tie to a loaded class (``a_names`` / ``b_names``): the matcher reads them as more
names of those classes (setting ``background_names``). A mediator's own names are not a class's.

In the graph each statement is one ``(a)-[:BACKGROUND {file, relation, predicate, confidence}]->(b)`` between
``(:Resource)`` classes and ``(:Mediator)`` nodes (``narrow`` points from the narrower end). A file is loaded whole
in one transaction (its earlier edges replaced), after all files were parsed: a malformed file writes nothing.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal as TypingLiteral

import curies
from pydantic import BaseModel

from kgagents.errors import InputFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders import rdf_terms as v
from kgagents.loaders.alignment import ALIGN_NS, read_alignment
from kgagents.loaders.obo_read import read_obo_triples
from kgagents.loaders.prefixes import converter, expand, local_key
from kgagents.loaders.rdf_read import read_triples
from kgagents.loaders.rdf_terms import Literal, Term, Triple, is_iri
from kgagents.loaders.record import LoadRecord, file_sha256, record_load
from kgagents.loaders.sssom import is_sssom, read_sssom, unescape_curie
from kgagents.names import without_qualifier

Relation = TypingLiteral["exact", "narrow", "close"]
Kind = TypingLiteral["ontology", "obo", "sssom", "alignment"]

SKOS = v.SKOS
#: predicate IRI → (relation, whether a ⊑ b reads object → subject)
PREDICATES: dict[str, tuple[Relation, bool]] = {
    v.OWL_EQUIVALENT_CLASS: ("exact", False),
    v.OWL + "sameAs": ("exact", False),
    SKOS + "exactMatch": ("exact", False),
    SKOS + "closeMatch": ("close", False),
    SKOS + "broadMatch": ("narrow", False),  # a broadMatch b: b is broader, a ⊑ b
    SKOS + "narrowMatch": ("narrow", True),  # a narrowMatch b: b is narrower, b ⊑ a
    v.RDFS_SUBCLASS_OF: ("narrow", False),
    v.OBO_IN_OWL + "hasDbXref": ("close", False),
    "https://w3id.org/semapv/vocab/crossSpeciesExactMatch": ("exact", False),
    "https://w3id.org/semapv/vocab/crossSpeciesBroadMatch": ("narrow", False),
    "https://w3id.org/semapv/vocab/crossSpeciesNarrowMatch": ("narrow", True),
}
_ALIGNMENT_RELATIONS: dict[str, tuple[Relation, bool]] = {"=": ("exact", False), "<": ("narrow", False),
                                                          ">": ("narrow", True)}
_ACCESSION = re.compile(r"^[A-Za-z][A-Za-z0-9.\-]*_[A-Za-z]*\d[\w.\-]*$")
_RDF_SUFFIXES = (".owl", ".rdf", ".xml", ".ttl", ".turtle", ".nt", ".ntriples")


@dataclass(frozen=True)
class Statement:
    """``a relation b`` from one file (``narrow``: a ⊑ b), with the predicate as written and a confidence."""

    a: str
    b: str
    relation: Relation
    predicate: str
    confidence: float = 1.0


@dataclass
class BackgroundFile:
    """One parsed background file."""

    path: Path
    kind: Kind
    statements: list[Statement] = field(default_factory=list)
    #: identifier → the names the file gives it (its labels and synonyms, a parenthesised qualifier dropped)
    names: dict[str, list[str]] = field(default_factory=dict)


class FileTies(BaseModel):
    """What the identity rule made of one file's identifiers."""

    file: str
    kind: str
    statements: int
    classes_tied: dict[str, int]  # loaded ontology → its classes the file ties
    by_rule: dict[str, int]  # iri | accession: identifiers tied by each rule
    mediators: int
    prefixes_untied: dict[str, int]  # the prefixes of identifiers that tied nothing (a hint for a prefix map)
    seconds: float

    def ties_nothing(self, ontologies: Sequence[str]) -> list[str]:
        """The ontologies of ``ontologies`` this file ties no class of."""
        return [o for o in ontologies if not self.classes_tied.get(o)]


class BackgroundLoad(BaseModel):
    files: list[FileTies]
    parse_seconds: float
    write_seconds: float
    ontology_prefixes: dict[str, dict[str, int]] = {}  # loaded ontology → the prefixes of its accession ids

    @property
    def names(self) -> list[str]:
        return [f.file for f in self.files]

    def untied(self, ontologies: Sequence[str]) -> list[str]:
        """The ontologies of ``ontologies`` no file ties a class of (no pair can go through the background)."""
        return [o for o in ontologies if not any(f.classes_tied.get(o) for f in self.files)]

    def hint(self, ontology: str) -> str:
        """Why the background may tie nothing of ``ontology``: the files' untied prefixes beside the ontology's."""
        theirs: dict[str, int] = defaultdict(int)
        for f in self.files:
            for prefix, n in f.prefixes_untied.items():
                theirs[prefix] += n
        own = self.ontology_prefixes.get(ontology, {})
        return (f"the background's untied ids have the prefixes "
                f"{', '.join(f'{k} ({n})' for k, n in sorted(theirs.items(), key=lambda kv: -kv[1])) or 'none'}; "
                f"'{ontology}' names its classes "
                + (", ".join(f"{k}_… ({n})" for k, n in own.items()) if own else "without accession ids")
                + ". If two of these prefixes are one, give --prefix-map with one as a synonym of the other")


# -- reading -------------------------------------------------------------------------------------
def read_background(path: str | Path, prefixes: Iterable[curies.Record] = ()) -> BackgroundFile:
    """Parse one background file (kind told by its name and, for RDF/XML, its root element)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"{path}: no such background file")
    prefixes = list(prefixes)
    conv = converter(prefixes)
    if is_sssom(path):
        mapping_set = read_sssom(path, prefixes)
        return BackgroundFile(path, "sssom", [s for m in mapping_set.mappings if (s := _statement(
            m.subject_id, m.object_id, m.predicate_id, 1.0 if m.confidence is None else m.confidence)) is not None])
    if path.suffix.lower() == ".obo":
        return BackgroundFile(path, "obo", *_statements(path, read_obo_triples(path, lambda i: expand(i, conv)),
                                                        conv))
    if path.suffix.lower() not in _RDF_SUFFIXES:
        raise InputFileError(f"{path}: not a background file kgagents reads (an ontology: .owl .rdf .ttl .nt .obo; "
                             "an SSSOM table: .sssom.tsv; an Alignment API file: .rdf)")
    if _is_alignment(path):
        alignment = read_alignment(path)
        return BackgroundFile(path, "alignment", [
            Statement(*((c.entity2, c.entity1) if flip else (c.entity1, c.entity2)), relation, f"align:{c.relation}",
                      min(max(c.measure, 0.0), 1.0))
            for c in alignment.cells if c.relation in _ALIGNMENT_RELATIONS
            for relation, flip in [_ALIGNMENT_RELATIONS[c.relation]]])
    return BackgroundFile(path, "ontology", *_read_rdf(path, conv))


#: predicates whose literal names the subject (see the module docstring)
NAME_PREDICATES = frozenset({v.RDFS_LABEL, SKOS + "prefLabel", SKOS + "altLabel",
                             "http://purl.obolibrary.org/obo/IAO_0000589", *v.OBO_SYNONYMS})


def _add_name(names: dict[str, list[str]], identifier: str, text: str) -> None:
    """``text`` as a name of ``identifier``, its trailing qualifier ("(post-embryonic mouse)", "(NCIT)") dropped."""
    name = without_qualifier(text)
    if name and name not in names.setdefault(identifier, []):
        names[identifier].append(name)


def _statement(a: str, b: str, predicate: str, confidence: float) -> Statement | None:
    found = PREDICATES.get(predicate)
    if found is None:
        return None
    relation, flip = found
    return Statement(*((b, a) if flip else (a, b)), relation, predicate, confidence)


def _is_alignment(path: Path) -> bool:
    """Whether an RDF/XML file is an Alignment API alignment (its namespace near the top)."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    return ALIGN_NS.rstrip("#").encode() in head


def _read_rdf(path: Path, conv: curies.Converter) -> tuple[list[Statement], dict[str, list[str]]]:
    return _statements(path, read_triples(path), conv)  # ParseError (with the line) for a file that is not RDF


def _statements(path: Path, triples: list[Triple], conv: curies.Converter,
                ) -> tuple[list[Statement], dict[str, list[str]]]:
    """The background statements and names of one ontology file's triples (an OBO file's: its OWL translation)."""
    index: dict[Term, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
    for s, p, o in triples:
        index[s][p].append(o)
    declarations = (v.OWL_CLASS, v.RDFS_CLASS, v.OWL_ONTOLOGY, v.SKOS_CONCEPT, v.SKOS_CONCEPT_SCHEME)
    if not any(p == v.RDF_TYPE and o in declarations for _, p, o in triples):
        raise ParseError(str(path), None, "declares no class, no skos:Concept and no owl:Ontology: not an ontology "
                                          "or thesaurus, so not a bridge "
                                          "file (an SSSOM table is read from a .sssom.tsv file)")
    out: list[Statement] = []
    names: dict[str, list[str]] = {}
    for s, p, o in triples:
        if is_iri(s) and p in NAME_PREDICATES and isinstance(o, Literal):
            _add_name(names, s, o.value)
        if not is_iri(s) or p not in PREDICATES:
            continue
        if isinstance(o, Literal):
            if p == v.OBO_IN_OWL + "hasDbXref" and o.value.strip():
                found = _statement(s, expand(o.value, conv), p, 1.0)
                out += [found] if found else []
        elif is_iri(o):
            found = _statement(s, o, p, 1.0)
            out += [found] if found else []
        elif p == v.OWL_EQUIVALENT_CLASS:  # C ≡ X ⊓ (restrictions): C ⊑ X for each named X
            for head in index.get(o, {}).get(v.OWL_INTERSECTION_OF, ()):
                out += [Statement(s, m, "narrow", p) for m in v.rdf_list(index, head) if is_iri(m)]
    return list(dict.fromkeys(out)), names


# -- the identity rule ---------------------------------------------------------------------------
@dataclass
class ClassIndex:
    """The loaded ontologies' classes and properties as the identity rule looks them up."""

    by_iri: dict[str, list[str]]  # iri → ontologies declaring it
    by_key: dict[str, list[str]]  # accession key → iris (one per ontology declaring that key once)
    ontology_of: dict[str, list[str]]
    prefixes: dict[str, dict[str, int]]  # ontology → the prefixes of its accession ids, most used first

    @classmethod
    def of(cls, rows: Iterable[dict[str, object]], conv: curies.Converter) -> ClassIndex:
        by_iri: dict[str, list[str]] = {}
        keys: dict[tuple[str, str], list[str]] = defaultdict(list)  # (ontology, key) → iris
        for row in rows:
            uri, ontologies = str(row["uri"]), [str(o) for o in row["ontologies"]]  # type: ignore[attr-defined]
            by_iri[uri] = ontologies
            key = local_key(uri, conv)
            if _ACCESSION.match(key):
                for o in ontologies:
                    keys[(o, key)].append(uri)
        by_key: dict[str, list[str]] = defaultdict(list)
        prefixes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for (ontology, key), uris in keys.items():
            if len(uris) == 1:  # an accession two classes of one ontology share identifies neither
                by_key[key].append(uris[0])
                prefixes[ontology][key.split("_", 1)[0]] += 1
        top = {o: dict(sorted(c.items(), key=lambda kv: -kv[1])[:3]) for o, c in prefixes.items()}
        return cls(by_iri, dict(by_key), by_iri, top)

    def resolve(self, identifier: str, conv: curies.Converter) -> tuple[list[str], str | None]:
        """(the loaded entities ``identifier`` names, the rule that tied it: ``iri`` | ``accession`` | None)."""
        if identifier in self.by_iri:
            return [identifier], "iri"
        if (unescaped := unescape_curie(identifier)) in self.by_iri:  # an SSSOM CURIE had to escape a ':' in it
            return [unescaped], "iri"
        key = local_key(identifier, conv)
        found = self.by_key.get(key) if _ACCESSION.match(key) else None
        return (list(found), "accession") if found else ([], None)


def _prefix_of(iri: str, conv: curies.Converter) -> str:
    key = local_key(iri, conv)
    return key.split("_", 1)[0] if _ACCESSION.match(key) else iri.rsplit("#", 1)[0].rsplit("/", 1)[0]


def resolve_file(parsed: BackgroundFile, index: ClassIndex, conv: curies.Converter,
                 ) -> tuple[list[dict[str, object]], list[str], FileTies]:
    """The file's statements as edge rows between loaded entities and mediators, the mediators, and what tied."""
    started = time.perf_counter()
    cache: dict[str, tuple[list[str], str | None]] = {}
    tied: dict[str, set[str]] = defaultdict(set)
    by_rule: dict[str, int] = defaultdict(int)
    untied: dict[str, int] = defaultdict(int)
    mediators: set[str] = set()
    edges: dict[tuple[str, str, str], dict[str, object]] = {}

    def ends(identifier: str) -> list[str]:
        if identifier not in cache:
            cache[identifier] = index.resolve(identifier, conv)
            found, rule = cache[identifier]
            if rule is not None:
                by_rule[rule] += 1
                for uri in found:
                    for o in index.ontology_of.get(uri, ()):
                        tied[o].add(uri)
            else:
                mediators.add(identifier)
                untied[_prefix_of(identifier, conv)] += 1
        found, _ = cache[identifier]
        return found or [identifier]

    def names(identifier: str) -> list[str] | None:
        """The names the file gives ``identifier`` when it ties to a loaded class (a mediator's are not kept)."""
        return (parsed.names.get(identifier) or None) if cache[identifier][1] is not None else None

    for s in parsed.statements:
        for a in ends(s.a):
            for b in ends(s.b):
                if a != b:
                    edges.setdefault((a, b, s.relation), {"a": a, "b": b, "relation": s.relation,
                                                          "predicate": s.predicate, "confidence": s.confidence,
                                                          "a_names": names(s.a), "b_names": names(s.b)})
    ties = FileTies(file=str(parsed.path.resolve()), kind=parsed.kind, statements=len(parsed.statements),
                    classes_tied={o: len(u) for o, u in sorted(tied.items())}, by_rule=dict(by_rule),
                    mediators=len(mediators),
                    prefixes_untied=dict(sorted(untied.items(), key=lambda kv: -kv[1])[:5]),
                    seconds=round(time.perf_counter() - started, 3))
    return list(edges.values()), sorted(mediators), ties


# -- the graph -----------------------------------------------------------------------------------
def load_background(graph: Graph, paths: Sequence[str | Path], prefixes: Iterable[curies.Record] = (),
                    ) -> BackgroundLoad:
    """Parse every file (a malformed one raises before anything is written), resolve its identifiers against the
    loaded ontologies (module docstring), and write each file's statements as ``BACKGROUND`` edges, replacing that
    file's earlier ones, all in one transaction."""
    started = time.perf_counter()
    prefixes = list(prefixes)
    parsed = [read_background(p, prefixes) for p in paths]
    parse_seconds = time.perf_counter() - started
    conv = converter(prefixes)
    index = ClassIndex.of(graph.run("background/entities"), conv)
    resolved = [resolve_file(f, index, conv) for f in parsed]
    started = time.perf_counter()
    ensure_schema(graph)
    with graph.transaction() as tx:
        for f, (edges, mediators, ties) in zip(parsed, resolved, strict=True):
            graph.write_rows(tx, "background/unlink", [{"file": ties.file}])
            graph.write_rows(tx, "background/merge_mediators", [{"uri": m} for m in mediators])
            graph.write_rows(tx, "background/link", edges, file=ties.file)
            record_load(tx, LoadRecord(kind="background", target=ties.file, path=str(f.path),
                                       sha256=file_sha256(f.path),
                                       counts={"statements": ties.statements, "edges": len(edges),
                                               "mediators": ties.mediators, **{f"tied_{o}": n for o, n in
                                                                               ties.classes_tied.items()}},
                                       seconds=ties.seconds))
        graph.write_rows(tx, "background/delete_orphans", [{}])
    return BackgroundLoad(files=[t for _, _, t in resolved], parse_seconds=round(parse_seconds, 3),
                          write_seconds=round(time.perf_counter() - started, 3), ontology_prefixes=index.prefixes)
