"""SSSOM TSV: strict reading (file, line and column named for every refusal) and writing that the reference
implementation (the ``sssom`` package) validates."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import MappingFileError
from kgagents.loaders.sssom import Mapping, read_alignment_file, read_sssom, write_sssom

SKOS = "http://www.w3.org/2004/02/skos/core#"
SEMAPV = "https://w3id.org/semapv/vocab/"
HEADER = ("#curie_map:\n#  MA: http://purl.obolibrary.org/obo/MA_\n#  NCIT: http://purl.obolibrary.org/obo/NCIT_\n"
          "#mapping_set_id: https://example.org/set\n#license: https://example.org/licence\n")
COLUMNS = "subject_id\tpredicate_id\tobject_id\tmapping_justification\tconfidence\n"


def _file(tmp_path: Path, body: str, header: str = HEADER, columns: str = COLUMNS) -> Path:
    path = tmp_path / "set.sssom.tsv"
    path.write_text(header + columns + body, encoding="utf-8")
    return path


def test_a_valid_file_is_read_with_ids_expanded(tmp_path: Path) -> None:
    path = _file(tmp_path, "MA:0000001\tskos:exactMatch\tNCIT:C12\tsemapv:LexicalMatching\t0.75\n")
    mapping_set = read_sssom(path)
    [m] = mapping_set.mappings
    assert (m.subject_id, m.predicate_id, m.object_id) == (
        "http://purl.obolibrary.org/obo/MA_0000001", SKOS + "exactMatch", "http://purl.obolibrary.org/obo/NCIT_C12")
    assert m.mapping_justification == SEMAPV + "LexicalMatching" and m.confidence == 0.75 and m.line == 7
    assert mapping_set.metadata["mapping_set_id"] == "https://example.org/set"


@pytest.mark.parametrize(("body", "columns", "line", "column", "says"), [
    ("MA:1\tskos:exactMatch\tNCIT:C1\n", "subject_id\tpredicate_id\tobject_id\n", 6, "mapping_justification",
     "required column"),
    ("MA:1\tskos:exactMatch\tNCIT C1\tsemapv:LexicalMatching\t\n", COLUMNS, 7, "object_id", "not a CURIE"),
    ("MA:1\tskos:exactMatch\tFMA:1\tsemapv:LexicalMatching\t\n", COLUMNS, 7, "object_id", "unknown prefix 'FMA'"),
    ("MA:1\tskos:exactMatch\tNCIT:C1\tsemapv:LexicalMatching\t\n"
     "MA:2\tskos:exactMatch\tNCIT:C2\tsemapv:LexicalMatching\t1.5\n", COLUMNS, 8, "confidence", "outside [0, 1]"),
    ("MA:1\tskos:exactMatch\thttp://x.org/a\tsemapv:LexicalMatching\t\n", COLUMNS, 7, "object_id", "not a CURIE"),
])
def test_a_malformed_file_is_refused_naming_file_line_and_column(tmp_path: Path, body: str, columns: str, line: int,
                                                                  column: str, says: str) -> None:
    path = _file(tmp_path, body, columns=columns)
    with pytest.raises(MappingFileError) as caught:
        read_sssom(path)
    error = caught.value
    assert (error.path, error.line, error.column) == (str(path), line, column)
    assert str(error).startswith(f"{path}:{line}: column {column}:") and says in str(error)
    assert "nothing was written" in str(error)


def test_bad_yaml_in_the_metadata_block_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, "", header="#curie_map:\n#  MA: [unclosed\n")
    with pytest.raises(MappingFileError, match=r"set\.sssom\.tsv:\d+: the '#' metadata block is not YAML"):
        read_sssom(path)


def _mappings() -> list[Mapping]:
    return [Mapping("http://mouse.test#MA_1", SKOS + "exactMatch", "http://human.test#NCI_C1",
                    SEMAPV + "LexicalMatching", 0.9, "hand digit", "Finger", "a comment\twith a tab"),
            Mapping("http://purl.obolibrary.org/obo/MA_2", SKOS + "exactMatch", "http://human.test#NCI_C2",
                    SEMAPV + "MappingReview", 0.5, reviewer_label="some model")]


def test_what_we_write_reads_back_and_as_an_alignment(tmp_path: Path) -> None:
    path = tmp_path / "out.sssom.tsv"
    write_sssom(path, _mappings(), {"mapping_set_id": "https://example.org/out", "license": "https://x.org/l"},
                {"mouse": "http://mouse.test#", "human": "http://human.test#",
                 "MA": "http://purl.obolibrary.org/obo/MA_"})
    back = read_sssom(path)
    assert [(m.subject_id, m.object_id, m.confidence, m.subject_label) for m in back.mappings] == [
        (m.subject_id, m.object_id, m.confidence, m.subject_label) for m in _mappings()]
    assert back.mappings[0].comment == "a comment with a tab"
    assert "mouse:MA_1\thand digit" in path.read_text(encoding="utf-8")
    alignment = read_alignment_file(path)
    assert [(c.entity1, c.entity2, c.relation, c.measure) for c in alignment.cells] == [
        ("http://mouse.test#MA_1", "http://human.test#NCI_C1", "=", 0.9),
        ("http://purl.obolibrary.org/obo/MA_2", "http://human.test#NCI_C2", "=", 0.5)]


def test_what_we_write_passes_the_sssom_librarys_own_validation(tmp_path: Path) -> None:
    from sssom import parsers as sssom_parsers  # a dev dependency: the reference implementation
    from sssom import validators as sssom_validators
    from sssom.constants import SchemaValidationType

    path = tmp_path / "out.sssom.tsv"
    write_sssom(path, _mappings(), {"mapping_set_id": "https://example.org/out", "license": "https://x.org/l",
                                    "mapping_tool": "kgagents"},
                {"mouse": "http://mouse.test#", "human": "http://human.test#",
                 "MA": "http://purl.obolibrary.org/obo/MA_"})
    msdf = sssom_parsers.parse_sssom_table(str(path))
    assert len(msdf.df) == 2
    reports = sssom_validators.validate(msdf, [SchemaValidationType.JsonSchema,
                                               SchemaValidationType.PrefixMapCompleteness,
                                               SchemaValidationType.StrictCurieFormat], fail_on_error=False)
    assert all(not report.results for report in reports.values()), reports


def test_prefixes_are_the_ontologies_names_for_their_namespaces() -> None:
    from kgagents.loaders.sssom import sssom_prefixes

    iris = ["http://mouse.owl#MA_1", "http://purl.obolibrary.org/obo/NCIT_C1", "http://example.org/thes#red",
            "http://example.org/other/x"]
    names = {"mouse": "http://mouse.owl", "human": None, "thes": "http://example.org/thes#scheme"}
    assert sssom_prefixes(iris, names) == {"mouse": "http://mouse.owl#", "NCIT": "http://purl.obolibrary.org/obo/NCIT_",
                                           "thes": "http://example.org/thes#", "ns1": "http://example.org/other/"}


def test_declared_form_names_an_escaped_colon_as_declared_and_keeps_a_real_escape() -> None:
    from kgagents.loaders.alignment import Alignment, Cell
    from kgagents.loaders.sssom import declared_form, escape_variants

    a = Alignment(onto1="a", onto2="b", cells=[Cell(entity1="http://x/a#T%3ACar", entity2="http://x/b#Car"),
                                               Cell(entity1="http://x/a#Real%3AEscape", entity2="http://x/b#E")])
    assert escape_variants(["http://x/a#T%3ACar"]) == ["http://x/a#T%3ACar", "http://x/a#T:Car"]
    declared = {"http://x/a#T:Car", "http://x/b#Car", "http://x/a#Real%3AEscape", "http://x/a#Real:Escape"}
    out = declared_form(a, declared)
    assert [(c.entity1, c.entity2) for c in out.cells] == [("http://x/a#T:Car", "http://x/b#Car"),
                                                           ("http://x/a#Real%3AEscape", "http://x/b#E")]
    assert declared_form(a, set()) is a  # nothing declared in either form: unchanged
