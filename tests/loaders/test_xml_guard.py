"""Every XML file kgagents reads is refused when it is not well-formed (a truncated ontology must not load as
a partial one) or when its DTD could expand entities ("billion laughs"): the same refusal, with the line,
from the ontology reader, the T-Box reader (compile, serve-tools, extract) and the alignment reader
(load alignment, --reference). The malicious files are written here, a few hundred bytes each."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import rdflib
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology_model import parse_ontology
from kgagents.loaders.xml_guard import EXPANSION_FLOOR, UnsafeXmlError, check_xml
from kgagents.tools.tbox_rdf import read_rdf_tbox

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RDF_HEAD = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n')
ALIGN_HEAD = ('<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment#" '
              'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n')
Reader = Callable[[Path], object]
READERS: dict[str, Reader] = {"ontology": parse_ontology, "tbox": read_rdf_tbox, "alignment": read_alignment}


def rdfxml_ontology(tmp_path: Path) -> Path:
    """The features fixture as RDF/XML (one class per element, so a cut at a tag boundary is still RDF/XML)."""
    graph = rdflib.Graph().parse(FIXTURES / "ontology" / "features.ttl")
    path = tmp_path / "features.owl"
    path.write_text(graph.serialize(format="pretty-xml"), encoding="utf-8")
    return path


def cut_after_a_tag(source: Path, target: Path, marker: str) -> int:
    """Copy ``source`` up to the middle occurrence of ``marker`` (an end tag); return the copy's last line."""
    text = source.read_text(encoding="utf-8")
    ends = [i + len(marker) for i in range(len(text)) if text.startswith(marker, i)]
    assert len(ends) >= 2, f"{source} has too few {marker}"
    cut = text[: ends[len(ends) // 2 - 1]] + "\n"
    target.write_text(cut, encoding="utf-8")
    return cut.count("\n")


@pytest.mark.filterwarnings("ignore:Assertions on rdflib.term.BNode")  # rdflib's pretty-xml drops list details
def test_a_truncated_rdfxml_ontology_is_refused_by_both_rdf_readers(tmp_path: Path) -> None:
    whole = rdfxml_ontology(tmp_path)
    assert parse_ontology(whole).classes  # the uncut file reads
    truncated = tmp_path / "trunc.owl"
    last_line = cut_after_a_tag(whole, truncated, "</owl:Class>")
    for read in (parse_ontology, read_rdf_tbox):
        with pytest.raises(ParseError, match="not well-formed XML") as info:
            read(truncated)
        assert info.value.path == str(truncated)
        assert info.value.line == last_line + 1  # expat reports the end of the input


def test_a_truncated_real_ontology_is_refused(shared_data: Path, tmp_path: Path) -> None:
    """The reported case: the first 5,000 bytes of the conference track's cmt.owl."""
    truncated = tmp_path / "trunc.owl"
    truncated.write_bytes((shared_data / "om" / "conference" / "ontologies" / "cmt.owl").read_bytes()[:5000])
    with pytest.raises(ParseError, match=r"trunc\.owl:\d+: not well-formed XML"):
        parse_ontology(truncated)


def test_a_truncated_alignment_is_refused(tmp_path: Path) -> None:
    truncated = tmp_path / "trunc.rdf"
    cut_after_a_tag(FIXTURES / "alignment" / "small.rdf", truncated, "</Cell>")
    with pytest.raises(ParseError, match="not well-formed XML"):
        read_alignment(truncated)


def laughs(levels: int) -> str:
    """A DTD whose entity ``lol{levels}`` expands to 10**levels copies of 'lol'."""
    decls = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels + 1)]
    return "<!DOCTYPE rdf:RDF [\n" + "\n".join(decls) + "\n]>\n"


def xml_file(tmp_path: Path, reader: str, dtd: str, reference: str) -> Path:
    """An ontology (or alignment) whose label (or onto1) holds ``reference``."""
    if reader == "alignment":
        body = (ALIGN_HEAD + f"<Alignment><onto1>{reference}</onto1><onto2>http://b</onto2>"
                "<map><Cell><entity1 rdf:resource='http://a#x'/><entity2 rdf:resource='http://b#y'/>"
                "</Cell></map></Alignment>\n</rdf:RDF>\n")
    else:
        body = (RDF_HEAD + '<owl:Class rdf:about="http://example.org/a#A">'
                f"<rdfs:label>{reference}</rdfs:label></owl:Class>\n</rdf:RDF>\n")
    path = tmp_path / f"{reader}.{'rdf' if reader == 'alignment' else 'owl'}"
    path.write_text('<?xml version="1.0"?>\n' + dtd + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("reader", sorted(READERS))
def test_nested_entities_are_refused_with_one_message(tmp_path: Path, reader: str) -> None:
    """Five levels (300 KB expanded) read fine without the guard; nine (3 GB) took the process down."""
    for levels in (5, 9):
        path = xml_file(tmp_path, reader, laughs(levels), f"&lol{levels};")
        with pytest.raises(UnsafeXmlError) as info:
            READERS[reader](path)
        assert info.value.line == 4  # the first entity that refers to another
        assert "entity expansion refused: the entity '&lol1;' refers to another entity ('&lol0;')" in str(info.value)


@pytest.mark.parametrize(("dtd", "reason"), [
    ('<!ENTITY % pe "x">', "parameter entity '%pe;'"),
    ('<!ENTITY ext SYSTEM "file:///etc/hostname">', "external entity '&ext;'"),
    ('<!ENTITY a "one">\n<!ENTITY b "&#38;a;">', "'&b;' refers to another entity ('&a;')"),  # via a char reference
])
def test_entities_that_reach_outside_or_amplify_are_refused(tmp_path: Path, dtd: str, reason: str) -> None:
    path = xml_file(tmp_path, "ontology", f"<!DOCTYPE rdf:RDF [\n{dtd}\n]>\n", "label")
    with pytest.raises(UnsafeXmlError, match=re.escape(reason)):
        parse_ontology(path)


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("where", ["text", "attribute"])
def test_an_entity_only_an_external_dtd_declares_is_refused_not_read_as_empty(tmp_path: Path, reader: str,
                                                                              where: str) -> None:
    """XXE through an external DTD: the DTD is never fetched, so '&xxe;' would load as empty text, silently."""
    body = "&xxe;" if where == "text" else "label"
    path = xml_file(tmp_path, reader, '<!DOCTYPE rdf:RDF SYSTEM "http://evil.example.com/x.dtd">\n', body)
    if where == "attribute":
        text = path.read_text()
        path.write_text(text.replace('rdf:about="http://example.org/a#A"', 'rdf:about="&xxe;A"')
                        .replace("rdf:resource='http://a#x'", "rdf:resource='&xxe;x'"))
    with pytest.raises(UnsafeXmlError, match=re.escape("'&xxe;' is not declared in the file")) as info:
        READERS[reader](path)
    assert info.value.line is not None and "http://evil.example.com/x.dtd" in str(info.value)
    plain = xml_file(tmp_path, reader, '<!DOCTYPE rdf:RDF SYSTEM "http://evil.example.com/x.dtd">\n', "a &amp; b")
    READERS[reader](plain)  # an external DTD the file needs nothing from is harmless


def test_a_large_plain_entity_referenced_often_is_refused_before_expansion(tmp_path: Path) -> None:
    big = "x" * 10_000
    refs = "&big;" * (EXPANSION_FLOOR // 10_000 + 10)  # ~0.5 KB of references, ~1 MB of text
    path = xml_file(tmp_path, "ontology", f'<!DOCTYPE rdf:RDF [\n<!ENTITY big "{big}">\n]>\n', refs)
    with pytest.raises(UnsafeXmlError, match="expand to more than"):
        check_xml(path)
    few = xml_file(tmp_path, "tbox", f'<!DOCTYPE rdf:RDF [\n<!ENTITY big "{big}">\n]>\n', "&big;" * 5)
    check_xml(few)  # the same entity used a few times is an abbreviation like any other


@pytest.mark.parametrize("reader", sorted(READERS))
def test_abbreviation_entities_as_ontology_editors_write_them_still_read(tmp_path: Path, reader: str) -> None:
    dtd = ('<!DOCTYPE rdf:RDF [\n<!ENTITY owl "http://www.w3.org/2002/07/owl#">\n'
           '<!ENTITY a "http://example.org/a#">\n]>\n')
    path = xml_file(tmp_path, reader, dtd, "&a;")
    path.write_text(path.read_text().replace('rdf:about="http://example.org/a#A"', 'rdf:about="&a;A"'))
    result = READERS[reader](path)
    if reader == "alignment":
        assert result.onto1 == "http://example.org/a#"  # type: ignore[attr-defined]
    elif reader == "tbox":
        assert list(result.classes) == ["http://example.org/a#A"]  # type: ignore[attr-defined]
    else:
        assert [(c.uri, c.label) for c in result.classes] == [  # type: ignore[attr-defined]
            ("http://example.org/a#A", "http://example.org/a#")]


def test_load_ontology_refuses_a_truncated_file_in_one_line_and_writes_nothing(
        graph: Graph, neo4j_settings: Neo4jSettings, shared_data: Path, tmp_path: Path) -> None:
    truncated = tmp_path / "trunc.owl"
    truncated.write_bytes((shared_data / "om" / "conference" / "ontologies" / "cmt.owl").read_bytes()[:5000])
    result = CliRunner().invoke(app, ["load", "ontology", str(truncated)],
                                env={"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
                                     "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()})
    text = " ".join(result.output.split())
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert re.search(r"trunc\.owl:\d+: not well-formed XML", text), text
    assert graph.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"] == 0
