"""Question readers on the real dataset files; expected counts come from json/jsonl parsing done here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.loaders.qa import read_questions


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_metaqa(shared_data: Path, hops: int) -> None:
    path = shared_data / "kgqa" / "metaqa" / f"metaqa_{hops}hop_dev.jsonl"
    raw = _jsonl(path)
    questions = read_questions(path)
    assert len(questions) == len(raw)
    assert all(q.hops == hops and len(q.relation_path or []) == hops for q in questions)
    for q, r in zip(questions[:: 997], raw[:: 997]):
        assert q.id == r["id"] and q.question == r["question"]
        assert [t.id for t in q.topic_entities] == [r["topic_entity"]]
        assert [a.name for a in q.answers] == r["answers"] and q.extra["qtype"] == r["qtype"]
        assert q.extra["kb_consistent"] == r["kb_consistent"]


@pytest.mark.parametrize("name,hops", [("PQ-2H.jsonl", 2), ("PQ-3H.jsonl", 3)])
def test_pathquestion(shared_data: Path, name: str, hops: int) -> None:
    path = shared_data / "kgqa" / "pathquestion" / name
    raw = _jsonl(path)
    questions = read_questions(path)
    assert len(questions) == len(raw) == {2: 1908, 3: 5198}[hops]
    assert all(q.hops == hops and len(q.relation_path or []) == hops for q in questions)
    assert questions[0].relation_path == [step[1] for step in raw[0]["gold_path"]]
    assert questions[0].topic_entities[0].id == raw[0]["topic_entity"]


@pytest.mark.parametrize("name,fmt", [
    ("qald_10-en.json", "qald"), ("qald_10-en_onehop_gold_triples.json", "qald_onehop"), ("T-REX.json", "trex"),
    ("Zero_Shot_RE.json", "zero_shot_re"), ("creak.json", "creak")])
def test_wikidata_question_files(shared_data: Path, name: str, fmt: str) -> None:
    path = shared_data / "kgqa" / "wikidata_questions" / name
    raw = json.loads(path.read_text(encoding="utf-8"))
    detected = read_questions(path)
    assert detected == read_questions(path, format=fmt)  # detection picks the right layout
    assert len(detected) == len(raw)
    assert len({q.id for q in detected}) == len(raw)
    for q, r in zip(detected, raw):
        topics = r.get("qid_topic_entity") or r.get("topic_entity")
        # ToG marks entities it could not link as "UnknownQID": kept by name, without an id
        assert {t.id: t.name for t in q.topic_entities} == {
            (None if k == "UnknownQID" else k): v for k, v in topics.items()}
        assert q.question


def test_wikidata_answers_by_format(shared_data: Path) -> None:
    d = shared_data / "kgqa" / "wikidata_questions"
    qald = read_questions(d / "qald_10-en.json")
    assert (qald[0].answers[0].id, qald[0].answers[0].name) == ("Q42299", "Bernhard Riemann")
    assert "sparql" in qald[0].extra
    onehop = read_questions(d / "qald_10-en_onehop_gold_triples.json")
    assert onehop[0].relation_path == ["P138"] and onehop[0].hops == 1
    trex_raw = json.loads((d / "T-REX.json").read_text(encoding="utf-8"))
    trex = read_questions(d / "T-REX.json")
    with_alias = next(i for i, r in enumerate(trex_raw) if set(r.get("alias", [])) - {r["answer"]})
    answer = trex[with_alias].answers[0]
    assert answer.id is None and answer.name == trex_raw[with_alias]["answer"]
    assert set(answer.aliases) == set(trex_raw[with_alias]["alias"]) - {answer.name}
    zsre = read_questions(d / "Zero_Shot_RE.json")
    assert zsre[0].question == "Over which river does Jennings Randolph Bridge cross?"
    assert zsre[0].relation_path == ["crosses"]
    creak = read_questions(d / "creak.json")
    assert {q.answers[0].name for q in creak} == {"true", "false"}


def test_bad_json_line_names_the_line(tmp_path: Path, shared_data: Path) -> None:
    lines = (shared_data / "kgqa" / "pathquestion" / "PQ-2H.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "pq.jsonl"
    path.write_text("\n".join([lines[0], lines[1], lines[2][:-5]]) + "\n", encoding="utf-8")
    with pytest.raises(ParseError) as err:
        read_questions(path)
    assert err.value.line == 3


def test_missing_field_names_the_line(tmp_path: Path, shared_data: Path) -> None:
    lines = (shared_data / "kgqa" / "metaqa" / "metaqa_1hop_dev.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    broken = json.loads(lines[1])
    del broken["answers"]
    path = tmp_path / "mq.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    with pytest.raises(ParseError, match=r"mq.jsonl:2: line 2 is not a valid metaqa record: answers"):
        read_questions(path)


def test_bad_record_in_json_array_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "creak.json"
    good = {"ex_id": "dev_0", "sentence": "s", "explanation": "e", "label": "true", "entity": "Soup",
            "qid_topic_entity": {"Q41415": "Soup"}}
    path.write_text(json.dumps([good, {**good, "label": "maybe"}]), encoding="utf-8")
    with pytest.raises(ParseError, match=r"record 1 is not a valid creak record: label must be"):
        read_questions(path)


def test_unknown_layout_lists_formats(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps([{"q": "?"}]), encoding="utf-8")
    with pytest.raises(ParseError, match="pass format= one of"):
        read_questions(path)


def test_a_users_own_questions_need_only_the_question(tmp_path: Path) -> None:
    """No gold paths: question (+ topic_entity by id or name, + answers) as JSONL, JSON or TSV, detected."""
    jsonl = tmp_path / "mine.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in [
        {"question": "who wrote Beloved", "topic_entity": "Beloved", "answers": ["Toni Morrison"]},
        {"question": "where was Douglas Adams born", "topic_entity": "Q42", "answers": {"Q350": "Cambridge"}},
        {"question": "what is the capital of France", "id": "q3", "split": "train"},
    ]) + "\n", encoding="utf-8")
    first, second, third = read_questions(jsonl)
    assert [(t.id, t.name) for t in first.topic_entities] == [("Beloved", "Beloved")]
    assert [(a.id, a.name) for a in first.answers] == [(None, "Toni Morrison")]
    assert [t.id for t in second.topic_entities] == ["Q42"] and [(a.id, a.name) for a in second.answers] == [
        ("Q350", "Cambridge")]
    assert third.id == "q3" and third.topic_entities == [] and third.answers == [] and third.extra == {
        "split": "train"}
    tsv = tmp_path / "mine.tsv"
    tsv.write_text("question\ttopic_entity\tanswers\nwho wrote Beloved\tBeloved\tToni Morrison|T. Morrison\n"
                   "what did Q1 do\tQ1\t\n", encoding="utf-8")
    rows = read_questions(tsv)
    assert [a.name for a in rows[0].answers] == ["Toni Morrison", "T. Morrison"] and rows[1].answers == []
    headless = tmp_path / "bare.tsv"
    headless.write_text("who wrote Beloved\tBeloved\n", encoding="utf-8")
    assert read_questions(headless)[0].topic_entities[0].id == "Beloved"
    array = tmp_path / "mine.json"
    array.write_text(json.dumps([{"question": "who wrote Beloved", "answers": "Toni Morrison"}]), encoding="utf-8")
    assert read_questions(array)[0].answers[0].name == "Toni Morrison"


def test_a_file_that_cannot_be_read_says_which_fields_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"text": "who?"}) + "\n", encoding="utf-8")
    with pytest.raises(ParseError, match="needs a 'question' field"):
        read_questions(path)
    empty = tmp_path / "y.jsonl"
    empty.write_text(json.dumps({"question": ""}) + "\n", encoding="utf-8")
    with pytest.raises(ParseError, match="line 1 is not a valid plain record: question.*needs a 'question'"):
        read_questions(empty)
    wide = tmp_path / "z.tsv"
    wide.write_text("a\tb\tc\td\n", encoding="utf-8")
    with pytest.raises(ParseError, match="4 tab-separated fields, expected at most 3"):
        read_questions(wide)
