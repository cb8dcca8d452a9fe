"""Entity pairs a user gives: seed links and reference alignments for entity alignment.

A pair file is tab-separated text, one ``source-id<TAB>target-id`` per line (more columns are ignored, so the
``--out`` file of ``kgagents align`` reads back); blank lines, lines starting with ``#`` and a first line naming the
columns (``source<TAB>target…``) are skipped. An OAEI Alignment API file (``.rdf`` / ``.xml``) is read too: its
``=`` cells; so is an SSSOM mapping set (a ``.sssom.tsv`` name, or a table whose header starts with ``subject_id``):
its ``skos:exactMatch`` / ``owl:equivalentClass`` / ``owl:sameAs`` rows, CURIEs expanded by its ``curie_map``. Ids
are the ``id`` of the loaded entities (for a JAPE pair, the URI); an IRI that is not one is read as the entity it
names by the rule of :mod:`~kgagents.loaders.entity_iri` (:func:`resolve_ids`), so the SSSOM file ``align --out``
writes reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kgagents.errors import ParseError
from kgagents.loaders.entity_iri import stored_ids

_HEADER = ("source", "target")


@dataclass(frozen=True)
class PairLine:
    """One pair and the line it was read from (None for a cell of an alignment file)."""

    source: str
    target: str
    line: int | None


def read_pairs(path: Path | str) -> list[PairLine]:
    """The pairs of a pair file (see the module docstring); every problem is a :class:`ParseError` naming the line."""
    path = Path(path)
    if path.suffix.lower() in (".rdf", ".xml"):
        from kgagents.loaders.alignment import read_alignment

        return [PairLine(c.entity1, c.entity2, None) for c in read_alignment(path).cells if c.relation == "="]
    if _is_sssom(path):
        from kgagents.loaders.sssom import sssom_alignment

        found = [PairLine(c.entity1, c.entity2, None) for c in sssom_alignment(path).cells if c.relation == "="]
        if not found:
            raise ParseError(str(path), None, "an SSSOM mapping set with no exactMatch / equivalentClass / sameAs row: "
                                              "no pair to read")
        return found
    pairs: list[PairLine] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise ParseError(str(path), lineno, "not UTF-8 text; re-encode the file as UTF-8") from None
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")]
            if len(fields) < 2 or not fields[0] or not fields[1]:
                raise ParseError(str(path), lineno, "expected two tab-separated entity ids (source, target), got "
                                 f"{line[:80]!r}")
            if not pairs and tuple(f.lower() for f in fields[:2]) == _HEADER:
                continue
            pairs.append(PairLine(fields[0], fields[1], lineno))
    if not pairs:
        raise ParseError(str(path), None, "holds no pairs (expected lines 'source-id<TAB>target-id')")
    return pairs


def _is_sssom(path: Path) -> bool:
    """An SSSOM table by its name, or by its header (the first line that is no ``#`` line starts with
    ``subject_id``)."""
    from kgagents.loaders.sssom import sssom_named

    if sssom_named(path):
        return True
    try:
        with path.open("rb") as fh:
            for raw in fh:
                if not raw.lstrip().startswith(b"#") and raw.strip():
                    return raw.split(b"\t", 1)[0].strip() == b"subject_id"
    except OSError:
        return False
    return False


def resolve_ids(pairs: Iterable[PairLine], sources: set[str], targets: set[str]) -> list[PairLine]:
    """The pairs with each id that is no loaded entity's replaced by the first entity id it stands for
    (:func:`~kgagents.loaders.entity_iri.stored_ids`: its IRI form, a ``kgagents/kg`` or Wikidata IRI's id), where
    there is one; the rest are left for :func:`check_pairs` to name."""
    def resolve(entity: str, known: set[str]) -> str:
        if entity in known:
            return entity
        return next((i for i in stored_ids(entity) if i in known), entity)

    return [PairLine(resolve(p.source, sources), resolve(p.target, targets), p.line) for p in pairs]


def check_pairs(path: Path | str, pairs: Iterable[PairLine], sources: set[str], targets: set[str], *,
                kg1: str, kg2: str) -> None:
    """A :class:`ParseError` at the first pair whose source is not an entity of ``kg1`` or target not of ``kg2``,
    or whose source or target is paired twice (seed links are one-to-one)."""
    seen1: dict[str, tuple[str, int | None]] = {}
    seen2: dict[str, tuple[str, int | None]] = {}
    for p in pairs:
        if p.source not in sources:
            raise ParseError(str(path), p.line, f"{p.source!r} is not an entity of KG '{kg1}' (the first column "
                             "names entities of the first KG, by id; in SSSOM, subject_id)")
        if p.target not in targets:
            raise ParseError(str(path), p.line, f"{p.target!r} is not an entity of KG '{kg2}' (the second column "
                             "names entities of the second KG, by id; in SSSOM, object_id)")
        for entity, other, seen in ((p.source, p.target, seen1), (p.target, p.source, seen2)):
            partner, line = seen.setdefault(entity, (other, p.line))
            if partner != other:
                raise ParseError(str(path), p.line, f"{entity!r} is paired twice (also on line {line}): pairs must "
                                 "be one-to-one")
