"""An OBO flat file is read as its OWL translation (kgagents.loaders.obo_read): the same ontology model as the OWL
file the OBO tools would write, which tests/fixtures/ontology/obo/limbs.ttl is, written by hand."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.loaders.ontology_model import ParsedOntology, parse_ontology


def _model(parsed: ParsedOntology) -> dict[str, object]:
    """What a matcher reads of a parsed ontology, in a comparable form."""
    return {"uri": parsed.uri, "label": parsed.label,
            "resources": sorted((r.uri, r.kind.value, r.label, tuple(r.labels), r.comment, tuple(r.definitions),
                                 tuple(sorted(r.synonyms)), r.deprecated) for r in parsed.resources),
            "edges": sorted((e.source, e.type.value, e.target) for e in parsed.edges),
            "restrictions": sorted(tuple(asdict(r).values()) for r in parsed.restrictions)}


def test_obo_file_parses_as_its_owl_translation(fixtures: Path) -> None:
    d = fixtures / "ontology" / "obo"
    obo, owl = parse_ontology(d / "limbs.obo"), parse_ontology(d / "limbs.ttl")
    assert _model(obo) == _model(owl)
    assert len(obo.classes) == 6 and obo.restrictions  # the relationship line is a part-of restriction


@pytest.mark.parametrize(("text", "line", "message"), [
    ("format-version: 1.2\n\n[Term]\nname: limb\n", 3, "without an id"),
    ("format-version: 1.2\n\n[Term]\nid: X:1\nsynonym: extremity EXACT []\n", 5, "no quoted text"),
    ("just some text\n", 1, "not an OBO file"),
])
def test_bad_obo_is_refused_with_its_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "bad.obo"
    path.write_text(text)
    with pytest.raises(ParseError, match=message) as raised:
        parse_ontology(path)
    assert raised.value.line == line
