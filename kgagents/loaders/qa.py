"""KGQA question datasets → one :class:`Question` model (pure Python, nothing is written to the graph).

Every dataset spells questions differently; agents and scorers should not care. Supported formats (chosen
by :func:`read_questions` from the first record's fields, or named explicitly):

========================  =====  ============================================================================
format                    file   source
========================  =====  ============================================================================
``metaqa``                jsonl  MetaQA vanilla 1/2/3-hop (topic entity, answers, relation path, qtype)
``pathquestion``          jsonl  PathQuestion PQ-2H / PQ-3H (gold path of (head, relation, tail) triples)
``qald``                  json   QALD-10-en as used by ToG (answers and topic entities as {QID: label}, SPARQL)
``qald_onehop``           json   QALD-10 one-hop subset with gold Wikidata triples
``trex``                  json   T-REx slot filling ("subject [SEP] relation" → answer + aliases)
``zero_shot_re``          json   Zero-Shot RE (the same, plus natural-language template questions)
``creak``                 json   Creak claims (true/false about one entity)
``metaqa_text``           txt    MetaQA as distributed: ``question<TAB>answer|answer`` with the topic in
                                 [brackets], and its ``<stem>_qtype.txt`` (one question type per line) beside it
``simplequestions``       txt    SimpleQuestions on Wikidata: ``subject<TAB>property<TAB>object<TAB>question``;
                                 ``R…`` is the inverse of ``P…`` (the question asks for a subject); detected
                                 from a ``.txt`` file's first line
``plain``                 jsonl  a user's own questions: ``question``, optionally ``topic_entity`` (a KG id such
                          json   as a QID, or a name; a list or ``{id: label}`` for several) and ``answers`` (a
                          tsv    list, ``a|b`` text, or ``{id: label}``), optionally ``id`` and ``split``; as TSV,
                                 the columns ``question<TAB>topic_entity<TAB>answers`` (a header row is optional)
========================  =====  ============================================================================

Detection keys on the fields a record has, most specific first; ``plain`` needs only ``question``, so a file with
the benchmark fields (gold paths, relation paths) is read by its dataset's format and any other file as ``plain``.

A malformed record raises :class:`ParseError` with its line (jsonl) or record index (json) before any
question is returned, so a half-read dataset never reaches an evaluation.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgagents.errors import InputFileError, ParseError
from kgagents.paths import require_file

_WIKIDATA_ID = re.compile(r"[QPL][1-9][0-9]*")


class EntityRef(BaseModel):
    """A topic entity or an answer: KG id when the dataset gives one, surface name, extra accepted names."""

    id: str | None = None
    name: str
    aliases: list[str] = Field(default_factory=list)


class Question(BaseModel):
    """One question of any supported dataset."""

    id: str
    dataset: str
    question: str
    topic_entities: list[EntityRef]
    answers: list[EntityRef]
    hops: int | None = None
    relation_path: list[str] | None = Field(
        None, description="relations from the topic entity to the answer as the dataset names them "
                          "(MetaQA 'directed_by^-1' = traverse backwards; Wikidata PIDs; T-REx relation labels)")
    extra: dict[str, Any] = Field(default_factory=dict, description="dataset-specific fields kept verbatim")


class _Record(BaseModel):
    """Raw record schemas reject missing or mistyped fields; unknown fields are kept for ``extra``."""

    model_config = ConfigDict(extra="allow")


class QuestionFormat(ABC):
    """One dataset's record layout: how to recognise a record and turn it into a :class:`Question`."""

    name: ClassVar[str]
    record: ClassVar[type[_Record]]

    def matches(self, raw: dict[str, Any]) -> bool:
        """Whether a raw record has this format's required fields (used to detect the format)."""
        required = {n for n, f in self.record.model_fields.items() if f.is_required()}
        return required <= raw.keys()

    @abstractmethod
    def convert(self, rec: Any, index: int, dataset: str) -> Question:
        """The common model for one validated record (``index`` = 0-based position in the file)."""

    @staticmethod
    def extra(rec: _Record, *used: str) -> dict[str, Any]:
        return {k: v for k, v in rec.model_dump().items() if k not in used}


def _refs(mapping: dict[str, str]) -> list[EntityRef]:
    """{id: label} → refs; keys that are not Wikidata ids (QALD literal answers like '0') get no id."""
    return [EntityRef(id=k if _WIKIDATA_ID.fullmatch(k) else None, name=v) for k, v in mapping.items()]


# -- MetaQA / PathQuestion (jsonl) -----------------------------------------------------------------------------
class _MetaQARecord(_Record):
    id: str
    hops: int
    question: str
    topic_entity: str
    relation_path: list[str]
    answers: list[str]
    qtype: str


class MetaQAFormat(QuestionFormat):
    name = "metaqa"
    record = _MetaQARecord

    def convert(self, rec: _MetaQARecord, index: int, dataset: str) -> Question:
        return Question(id=rec.id, dataset=dataset, question=rec.question,
                        topic_entities=[EntityRef(id=rec.topic_entity, name=rec.topic_entity)],
                        answers=[EntityRef(id=a, name=a) for a in rec.answers], hops=rec.hops,
                        relation_path=rec.relation_path,
                        extra=self.extra(rec, "id", "hops", "question", "topic_entity", "relation_path", "answers"))


class _PathQuestionRecord(_Record):
    id: str
    hops: int
    question: str
    topic_entity: str
    answers: list[str]
    gold_path: list[tuple[str, str, str]]


class PathQuestionFormat(QuestionFormat):
    name = "pathquestion"
    record = _PathQuestionRecord

    def convert(self, rec: _PathQuestionRecord, index: int, dataset: str) -> Question:
        return Question(id=rec.id, dataset=dataset, question=rec.question,
                        topic_entities=[EntityRef(id=rec.topic_entity, name=rec.topic_entity)],
                        answers=[EntityRef(id=a, name=a) for a in rec.answers], hops=rec.hops,
                        relation_path=[r for _, r, _ in rec.gold_path],
                        extra=self.extra(rec, "id", "hops", "question", "topic_entity", "answers"))


# -- Wikidata question files (json arrays, as distributed with ToG) -------------------------------------------
class _QaldOneHopRecord(_Record):
    index: int
    question: str
    topic_entity: dict[str, str]
    answer: dict[str, str]
    gold_triples: list[tuple[str, str, str]]


class QaldOneHopFormat(QuestionFormat):
    name = "qald_onehop"
    record = _QaldOneHopRecord

    def convert(self, rec: _QaldOneHopRecord, index: int, dataset: str) -> Question:
        return Question(id=f"{dataset}-{rec.index:05d}", dataset=dataset, question=rec.question,
                        topic_entities=_refs(rec.topic_entity), answers=_refs(rec.answer), hops=1,
                        relation_path=list(dict.fromkeys(p for _, p, _ in rec.gold_triples)),
                        extra=self.extra(rec, "question", "topic_entity", "answer"))


class _QaldRecord(_Record):
    question: str
    answer: dict[str, str]
    qid_topic_entity: dict[str, str]
    sparql: str


class QaldFormat(QuestionFormat):
    name = "qald"
    record = _QaldRecord

    def convert(self, rec: _QaldRecord, index: int, dataset: str) -> Question:
        return Question(id=f"{dataset}-{index:05d}", dataset=dataset, question=rec.question,
                        topic_entities=_refs(rec.qid_topic_entity), answers=_refs(rec.answer),
                        extra=self.extra(rec, "question", "answer", "qid_topic_entity"))


class _SlotFillingRecord(_Record):
    input: str
    answer: str
    qid_topic_entity: dict[str, str]
    alias: list[str] = Field(default_factory=list)
    relation: str | None = None


class TRExFormat(QuestionFormat):
    """``"Cirith Ungol [SEP] genre"``: the question is the subject and relation label, as in ToG's prompts."""

    name = "trex"
    record: ClassVar[type[_Record]] = _SlotFillingRecord

    def matches(self, raw: dict[str, Any]) -> bool:
        return super().matches(raw) and "template_questions" not in raw

    def question_text(self, rec: Any) -> str:
        return rec.input

    def convert(self, rec: _SlotFillingRecord, index: int, dataset: str) -> Question:
        relation = rec.relation or rec.input.rsplit(" [SEP] ", 1)[-1]
        aliases = [a for a in rec.alias if a != rec.answer]
        return Question(id=f"{dataset}-{index:05d}", dataset=dataset, question=self.question_text(rec),
                        topic_entities=_refs(rec.qid_topic_entity),
                        answers=[EntityRef(name=rec.answer, aliases=aliases)], hops=1, relation_path=[relation],
                        extra=self.extra(rec, "answer", "qid_topic_entity", "alias", "relation"))


class _ZeroShotRERecord(_SlotFillingRecord):
    template_questions: list[str] = Field(min_length=1)


class ZeroShotREFormat(TRExFormat):
    """Like T-REx, but with natural-language paraphrases; the first one is the question."""

    name = "zero_shot_re"
    record = _ZeroShotRERecord

    def matches(self, raw: dict[str, Any]) -> bool:
        return QuestionFormat.matches(self, raw)

    def question_text(self, rec: Any) -> str:
        return rec.template_questions[0]


class _CreakRecord(_Record):
    ex_id: str
    sentence: str
    label: str
    entity: str
    qid_topic_entity: dict[str, str]


class CreakFormat(QuestionFormat):
    """A claim to verify: the answer is ``true`` or ``false``."""

    name = "creak"
    record = _CreakRecord

    def convert(self, rec: _CreakRecord, index: int, dataset: str) -> Question:
        if rec.label not in ("true", "false"):
            raise ValueError(f"label must be 'true' or 'false', got {rec.label!r}")
        return Question(id=rec.ex_id, dataset=dataset, question=rec.sentence,
                        topic_entities=_refs(rec.qid_topic_entity), answers=[EntityRef(name=rec.label)],
                        extra=self.extra(rec, "ex_id", "sentence", "label", "qid_topic_entity"))


# -- a user's own questions (jsonl, json or tsv) ---------------------------------------------------------------
Refs = str | list[str] | dict[str, str] | None


class _PlainRecord(_Record):
    question: str = Field(min_length=1)
    id: str | int | None = None
    topic_entity: Refs = None
    answers: Refs = None


def _user_refs(value: Refs, *, topic: bool) -> list[EntityRef]:
    """A user's topic or answers as refs: ``{id: label}``; a list; or one text (answers may be ``a|b``). A topic
    text is kept as given (a KG id, or a name the agent resolves); an answer text is an id only when it looks like
    a Wikidata id (answers are matched by name otherwise)."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [EntityRef(id=k, name=v or k) for k, v in value.items()]
    items = value if isinstance(value, list) else ([value] if topic else value.split("|"))
    texts = [t.strip() for t in items if t.strip()]
    if topic:
        return [EntityRef(id=t, name=t) for t in texts]
    return [EntityRef(id=t if _WIKIDATA_ID.fullmatch(t) else None, name=t) for t in texts]


class PlainFormat(QuestionFormat):
    """A user's own questions: only ``question`` is needed (see the module docstring)."""

    name = "plain"
    record = _PlainRecord

    def convert(self, rec: _PlainRecord, index: int, dataset: str) -> Question:
        return Question(id=str(rec.id) if rec.id is not None else f"{dataset}-{index:05d}", dataset=dataset,
                        question=rec.question, topic_entities=_user_refs(rec.topic_entity, topic=True),
                        answers=_user_refs(rec.answers, topic=False),
                        extra=self.extra(rec, "id", "question", "topic_entity", "answers"))


#: detection order matters: the most specific layouts first (``plain``, which needs only ``question``, last)
QUESTION_FORMATS: dict[str, QuestionFormat] = {f.name: f for f in (
    MetaQAFormat(), PathQuestionFormat(), QaldOneHopFormat(), QaldFormat(), ZeroShotREFormat(), TRExFormat(),
    CreakFormat(), PlainFormat(),
)}
#: what a question file must have at least (said when a file cannot be read)
NEEDED = ("a 'question' field (optional: 'topic_entity' — a KG id such as a QID, or a name —, 'answers', 'id', "
          "'split'), as JSONL, a JSON array, or TSV columns question<TAB>topic_entity<TAB>answers")
TSV_COLUMNS = ("question", "topic_entity", "answers")


def _tsv_records(path: Path, text: str) -> list[tuple[int | None, str, Any]]:
    """A TSV of ``question<TAB>topic_entity<TAB>answers`` (the last two optional; answers ``a|b``), with or without
    a header row naming those columns, as raw records."""
    out: list[tuple[int | None, str, Any]] = []
    columns = list(TSV_COLUMNS)
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if not out and fields[0].strip().lower() == "question":
            columns = [f.strip().lower() for f in fields]
            unknown = [c for c in columns if c not in (*TSV_COLUMNS, "id", "split")]
            if unknown:
                raise ParseError(str(path), lineno, f"unknown column(s) {unknown}; a question file needs {NEEDED}")
            continue
        if len(fields) > len(columns):
            raise ParseError(str(path), lineno, f"{len(fields)} tab-separated fields, expected at most "
                             f"{len(columns)} ({', '.join(columns)}); a question file needs {NEEDED}")
        out.append((lineno, f"line {lineno}", {c: f.strip() for c, f in zip(columns, fields) if f.strip()}))
    return out


def _raw_records(path: Path) -> list[tuple[int | None, str, Any]]:
    """(line or None, 'line N' / 'record N' label, decoded JSON) for a .jsonl file, a JSON array file or a .tsv."""
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".tsv", ".tab"):
        return _tsv_records(path, text)
    if path.suffix == ".jsonl":
        out: list[tuple[int | None, str, Any]] = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append((lineno, f"line {lineno}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise ParseError(str(path), lineno, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
        return out
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(str(path), exc.lineno, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(data, list):
        raise ParseError(str(path), None, f"expected a JSON array of question records, got {type(data).__name__}; "
                                          f"a question file needs {NEEDED}")
    return [(None, f"record {i}", rec) for i, rec in enumerate(data)]


_BRACKETED = re.compile(r"\[([^\]]+)\]")
_HOP_FOLDER = re.compile(r"^(\d+)-hop$")
METAQA_TEXT = "metaqa_text"


def read_metaqa_text(path: Path | str, *, qtypes: Path | str | None = None, hops: int | None = None,
                     dataset: str | None = None) -> list[Question]:
    """MetaQA's own files: one ``question<TAB>answer|answer|…`` per line, the topic entity in [brackets]. The
    question types come from ``qtypes`` (default: ``<stem>_qtype.txt`` beside the file, when it exists; one type
    per line, aligned with the questions); the hop count from ``hops``, else from the type (``actor_to_movie`` is
    one hop), else from a ``<n>-hop`` folder in the path (MetaQA's layout ``2-hop/vanilla/qa_dev.txt``)."""
    path = Path(path)
    require_file(path, "question file")
    folder_hops = next((int(m.group(1)) for part in path.parts if (m := _HOP_FOLDER.match(part))), None)
    qtype_path = Path(qtypes) if qtypes is not None else path.with_name(f"{path.stem}_qtype.txt")
    types: list[str] | None = None
    if qtypes is not None or qtype_path.is_file():
        if not qtype_path.is_file():
            raise InputFileError(f"question type file not found: {qtype_path}")
        types = [t.strip() for t in qtype_path.read_text(encoding="utf-8").splitlines() if t.strip()]
    lines = [(n, line) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.strip()]
    if not lines:
        raise ParseError(str(path), None, "no question records")
    if types is not None and len(types) != len(lines):
        raise ParseError(str(qtype_path), None, f"{len(types)} question types for {len(lines)} questions in {path}")
    prefix = f"{dataset or path.stem}" + (f"_{folder_hops}hop" if folder_hops and not dataset else "")
    questions = []
    for i, (lineno, line) in enumerate(lines):
        text, sep, answers = line.partition("\t")
        topics = _BRACKETED.findall(text)
        if not sep or not answers.strip():
            raise ParseError(str(path), lineno, "expected 'question<TAB>answer|answer|…'")
        if not topics:
            raise ParseError(str(path), lineno, "no topic entity in [brackets] in the question")
        qtype = types[i] if types is not None else None
        n = hops or (qtype.count("_to_") if qtype else None) or folder_hops
        questions.append(Question(
            id=f"{prefix}_{lineno:05d}", dataset=dataset or path.stem, question=text.strip(),
            topic_entities=[EntityRef(id=t.strip(), name=t.strip()) for t in topics],
            answers=[EntityRef(id=a.strip(), name=a.strip()) for a in answers.split("|") if a.strip()], hops=n,
            extra={"qtype": qtype, "line": lineno} if qtype else {"line": lineno}))
    return questions


SIMPLEQUESTIONS = "simplequestions"
_SQ_LINE = re.compile(r"(Q[1-9][0-9]*)\t([PR][1-9][0-9]*)\t(Q[1-9][0-9]*)\t(.+)")


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8") as fh:
        return next((line.rstrip("\r\n") for line in fh if line.strip()), "")


def read_simplequestions(path: Path | str, *, dataset: str | None = None) -> list[Question]:
    """SimpleQuestions on Wikidata: one ``subject<TAB>property<TAB>object<TAB>question`` per line. The topic is
    the subject; the answer the object; ``R<n>`` is the inverse of ``P<n>``, so the relation path is
    ``P<n>^-1`` (MetaQA's notation: the triple is stored object → subject)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"question file not found: {path}")
    dataset = dataset or path.stem
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        m = _SQ_LINE.fullmatch(line.strip())
        if m is None:
            raise ParseError(str(path), lineno, "expected 'subject QID<TAB>P… or R… property<TAB>object QID<TAB>"
                                                f"question', got {line[:120]!r}")
        subject, prop, obj, text = m.groups()
        relation = prop if prop.startswith("P") else f"P{prop[1:]}^-1"
        questions.append(Question(id=f"{dataset}-{lineno:05d}", dataset=dataset, question=text.strip(),
                                  topic_entities=[EntityRef(id=subject, name=subject)],
                                  answers=[EntityRef(id=obj, name=obj)], hops=1, relation_path=[relation],
                                  extra={"line": lineno}))
    if not questions:
        raise ParseError(str(path), None, "no question records")
    return questions


def read_questions(path: Path | str, *, format: str | None = None, dataset: str | None = None) -> list[Question]:
    """All questions of one file. ``format`` is detected from the first record when not given (a ``.txt`` file is
    MetaQA's own format, :func:`read_metaqa_text`); ``dataset`` (default: the file name without extension)
    prefixes generated ids."""
    path = Path(path)
    if format == SIMPLEQUESTIONS or (format is None and path.suffix == ".txt" and path.is_file()
                                     and _SQ_LINE.fullmatch(_first_line(path).strip())):
        return read_simplequestions(path, dataset=dataset)
    if format == METAQA_TEXT or (format is None and path.suffix == ".txt"):
        return read_metaqa_text(path, dataset=dataset)
    dataset = dataset or path.stem
    records = _raw_records(path)
    if not records:
        raise ParseError(str(path), None, "no question records")
    if format is None:
        first = records[0][2]
        found = [f for f in QUESTION_FORMATS.values() if isinstance(first, dict) and f.matches(first)]
        if not found:
            keys = sorted(first) if isinstance(first, dict) else type(first).__name__
            raise ParseError(str(path), records[0][0],
                             f"unknown question format (fields {keys}): a question file needs {NEEDED}; or pass "
                             f"format= one of {sorted(QUESTION_FORMATS)}")
        fmt = found[0]
    elif format in QUESTION_FORMATS:
        fmt = QUESTION_FORMATS[format]
    else:
        raise ValueError(f"unknown question format {format!r}; known: "
                         f"{sorted([*QUESTION_FORMATS, METAQA_TEXT, SIMPLEQUESTIONS])}")
    questions: list[Question] = []
    for index, (lineno, where, raw) in enumerate(records):
        try:
            if not isinstance(raw, dict):
                raise ValueError(f"expected a JSON object, got {type(raw).__name__}")
            questions.append(fmt.convert(fmt.record.model_validate(raw), index, dataset))
        except (ValidationError, ValueError) as exc:
            detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()) \
                if isinstance(exc, ValidationError) else str(exc)
            needs = f"; a question file needs {NEEDED}" if fmt.name == PlainFormat.name else ""
            raise ParseError(str(path), lineno, f"{where} is not a valid {fmt.name} record: {detail}{needs}") from None
    return questions
