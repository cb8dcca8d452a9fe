"""Pair files for entity alignment (seed links, references): tab-separated ids, an Alignment API file, or an SSSOM
mapping set (by name or by header), its exact matches only."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.loaders.pairs import read_pairs

SSSOM = """#curie_map:
#  dbr: http://dbpedia.org/resource/
#  fr: http://fr.dbpedia.org/resource/
#mapping_set_id: https://example.org/kgagents-tests/seeds
#license: https://creativecommons.org/publicdomain/zero/1.0/
subject_id\tpredicate_id\tobject_id\tmapping_justification
dbr:Paris\tskos:exactMatch\tfr:Paris\tsemapv:ManualMappingCuration
dbr:Lyon\tskos:broadMatch\tfr:Rhône\tsemapv:ManualMappingCuration
dbr:Nice\towl:equivalentClass\tfr:Nice\tsemapv:ManualMappingCuration
"""


@pytest.mark.parametrize("name", ["seeds.sssom.tsv", "seeds.tsv"])  # by its name, or by its header
def test_an_sssom_set_gives_its_exact_matches_as_iris(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(SSSOM, encoding="utf-8")
    assert [(p.source, p.target) for p in read_pairs(path)] == [
        ("http://dbpedia.org/resource/Paris", "http://fr.dbpedia.org/resource/Paris"),
        ("http://dbpedia.org/resource/Nice", "http://fr.dbpedia.org/resource/Nice")]


def test_an_sssom_set_without_an_exact_match_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broad.sssom.tsv"
    path.write_text("\n".join(line for line in SSSOM.splitlines() if "Paris" not in line and "Nice" not in line),
                    encoding="utf-8")
    with pytest.raises(ParseError, match="no exactMatch"):
        read_pairs(path)


def test_a_plain_pair_file_is_still_two_ids_a_line(tmp_path: Path) -> None:
    path = tmp_path / "seeds.tsv"
    path.write_text("# seeds\nsource\ttarget\nhttp://a/1\thttp://b/1\n", encoding="utf-8")
    assert [(p.source, p.target, p.line) for p in read_pairs(path)] == [("http://a/1", "http://b/1", 3)]
