"""Extraction example files in either shape Text2KGBench writes, and one error naming the fields a record needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgagents.errors import InputFileError
from kgagents.metrics.text2kgbench import read_sentences
from kgagents.tools.feed import read_triples_file

# one triple per record with labels and Wikidata ids (the Wikidata-TekGen train files)
TEKGEN = [
    {"id": "ont_10_culture_train_1", "sub_label": "Ida B. Wells", "rel_label": "ethnic group",
     "obj_label": "African Americans", "sent": "Wells wrote about African Americans.", "sub": "Q289428",
     "rel": "P172", "obj": "Q49085"},
    {"id": "ont_10_culture_train_2", "sub_label": "Ida B. Wells", "rel_label": "occupation",
     "obj_label": "journalist", "sent": "Wells wrote about African Americans.", "sub": "Q289428", "rel": "P106",
     "obj": "Q1930187"},
    {"id": "ont_10_culture_train_3", "sub_label": "Jakob Balde", "rel_label": "languages spoken, written or signed",
     "obj_label": "Latin", "sent": "Balde wrote Latin lyrics.", "sub": "Q65850", "rel": "P1412", "obj": "Q397"},
]
# a sentence with its triple list (the DBpedia-WebNLG files)
WEBNLG = [{"id": "ont_1_university_test_1", "sent": "AWH has 250 staff.",
           "triples": [{"sub": "AWH", "rel": "academicStaffSize", "obj": "250"}]}]


def _jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_one_triple_records_are_read_in_labels_and_grouped_by_sentence(tmp_path: Path) -> None:
    sentences = read_sentences(_jsonl(tmp_path / "tekgen.jsonl", TEKGEN))
    assert [(s.id, s.text, s.triples) for s in sentences] == [
        ("ont_10_culture_train_1", "Wells wrote about African Americans.",
         (("Ida B. Wells", "ethnic group", "African Americans"), ("Ida B. Wells", "occupation", "journalist"))),
        ("ont_10_culture_train_3", "Balde wrote Latin lyrics.",
         (("Jakob Balde", "languages spoken, written or signed", "Latin"),))]


def test_sentences_with_triple_lists_are_read_as_before(tmp_path: Path) -> None:
    [sentence] = read_sentences(_jsonl(tmp_path / "webnlg.jsonl", WEBNLG))
    assert sentence.triples == (("AWH", "academicStaffSize", "250"),) and sentence.id == "ont_1_university_test_1"


@pytest.mark.parametrize("record, problem", [
    ({"id": "x", "sent": "Some text."}, "no 'sub_label' or 'sub'"),
    ({"id": "x", "text": "Some text.", "triples": []}, "no 'sent'"),
    ({"id": "x", "sent": "t", "triples": "a b c"}, "'triples' is not a list"),
])
def test_a_record_of_neither_shape_names_file_line_and_the_fields_needed(tmp_path: Path, record: dict[str, object],
                                                                         problem: str) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", [*WEBNLG, record])
    with pytest.raises(InputFileError) as caught:
        read_sentences(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: cannot read this record ({problem}")
    assert "'sub_label', 'rel_label', 'obj_label'" in message and "'triples'" in message


def test_the_triples_file_of_extract_takes_both_shapes_in_labels(tmp_path: Path) -> None:
    triples = read_triples_file(_jsonl(tmp_path / "t.jsonl", [TEKGEN[0], *WEBNLG, {"sub": "a", "rel": "b",
                                                                                   "obj": "c"}]))
    assert triples == [("Ida B. Wells", "ethnic group", "African Americans"), ("AWH", "academicStaffSize", "250"),
                       ("a", "b", "c")]
    with pytest.raises(InputFileError, match=r"t2.jsonl:1: cannot read this record \(no 'rel_label' or 'rel'\)"):
        read_triples_file(_jsonl(tmp_path / "t2.jsonl", [{"sub": "a", "obj": "c"}]))
