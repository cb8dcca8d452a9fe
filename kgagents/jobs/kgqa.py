"""KG question answering as a job: answer questions, learn from answered ones, choose which questions.

* :func:`run_questions` — what ``kgagents ask``, ``kgagents kgqa``, the benchmarks and the demo call: builds
  :class:`~kgagents.agent.kgqa.agent.ODAAgent` and runs it on the contract (:meth:`~ODAAgent.run`); every
  result carries the coverage of its question in the loaded KG, so a score is never read without it.
* :func:`ask` — one question (``kgagents ask``), with its trace read back for display.
* :func:`learn` — ``kgagents kgqa learn FILE --kg NAME``: labelled questions → path examples in the memory
  (weak supervision, :mod:`~kgagents.agent.kgqa.supervision`); records marked as a test split are refused
  before anything is written.
* :func:`prepare_kg` — what a KG needs for KGQA: entity-name vectors (answer types, linking context), the
  full-text index over names and aliases (linking) and each entity's triple count (the observation's budget).
* Question selection: :func:`seeded_sample` and :func:`split` (the seeded splits the benchmarks learn and report
  on), :func:`questions_for` (files → questions, sampled per file).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgagents.agent.base import RunResult
from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.linking import EntityLinker
from kgagents.agent.kgqa.observation import RelationNames
from kgagents.agent.kgqa.pathmemory import Example, PathMemory, question_key, refuse_test_split
from kgagents.agent.kgqa.pathtexts import prepare_path_texts
from kgagents.agent.kgqa.questions import bracketed, given_topics, masked, plain
from kgagents.agent.kgqa.results import QuestionResult
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import stored_trace
from kgagents.agent.kgqa.supervision import supervise, supervise_given
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import Scope, embed_nodes, ensure_vector_index
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.loaders.qa import EntityRef, Question, read_questions
from kgagents.loaders.unfinished import check_readable, refuse_unfinished

#: the split field a question record may carry (``train`` / ``dev`` / ``test``)
SPLIT = "split"


def run_questions(graph: GraphLike, kg: str, questions: Sequence[Question], settings: KGQASettings | None = None,
                  chat: Any = None, *, run_id: str | None = None, workers: int = 1, embedder: Embedder | None = None,
                  dataset: str | None = None, checkpointer: Any = None, leave_one_out: bool = False,
                  on_question: Callable[[QuestionResult], None] | None = None) -> RunResult:
    """Answer ``questions`` against KG ``kg``; ``chat`` None runs mode ``no_llm``; ``workers`` questions at once
    in that mode; ``leave_one_out``: a question the memory learned does not vote for itself (to calibrate on
    learned questions). ``result.output`` is the :class:`~kgagents.agent.kgqa.results.KGQARun`."""
    check_readable(connect(graph), [kg])  # a misspelt or half-loaded KG: nothing is run or recorded
    settings = settings or KGQASettings()
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    agent = ODAAgent(connect(graph), chat, settings, kg=kg, embedder=embedder, on_question=on_question)
    inputs: dict[str, Any] = {"questions": list(questions), "dataset": dataset, "workers": workers,
                              "leave_one_out": leave_one_out}
    if run_id:
        inputs["run_id"] = run_id
    return agent.run(inputs, checkpointer=checkpointer)


@dataclass
class Asked:
    """One question answered by :func:`ask`: the run, the question's result, and its trace read back from Neo4j
    (the linked mentions, the observed paths and the steps, as a user inspects them)."""

    run: RunResult
    result: QuestionResult
    linked: list[dict[str, Any]]
    paths: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    trace_query: str


def ask(graph: GraphLike, kg: str, question: str, *, topics: Sequence[str] = (), settings: KGQASettings | None = None,
        chat: Any = None) -> Asked:
    """Answer one question (plain text, [bracketed] topic, or ``topics`` given as KG ids) and read its trace."""
    graph = connect(graph)
    q = Question(id="ask", dataset="ask", question=question, answers=[],
                 topic_entities=[EntityRef(id=t, name=t) for t in topics])
    run = run_questions(graph, kg, [q], settings, chat, dataset="ask")
    trace = stored_trace(graph, run.run_id, "ask")
    if trace is None:
        raise KgAgentsError(f"run {run.run_id} stored no trace for the question")
    props = trace["trace"]
    return Asked(run=run, result=run.output.results[0], linked=json.loads(props.get("mentions", "[]")),
                 paths=json.loads(props.get("observation", "[]")), steps=trace["steps"],
                 trace_query=f"MATCH (t:QATrace {{run_id: '{run.run_id}'}}) OPTIONAL MATCH (s:QAStep)-[:STEP_OF]->(t) "
                             "RETURN t, s ORDER BY s.iteration")


# -- preparing a KG ------------------------------------------------------------------------------------------
def prepare_kg(graph: Graph, kg: str, embedder: Embedder | None = None,
               settings: KGQASettings | None = None) -> dict[str, Any]:
    """Entity-name vectors (incremental: unchanged names are skipped), the full-text name index, the entities' triple
    counts of ``kg`` and the path texts of its short relation paths (settings ``prepared_path_length`` and
    ``prepared_path_texts``; texts stored before are skipped)."""
    settings = settings or KGQASettings()
    refuse_unfinished(graph, [kg])  # a KG a batched load is still writing, or left half-written
    embedder = embedder or get_embedder()
    ensure_vector_index(graph, name="entity_embedding", label="Entity", property="embedding",
                        dimensions=embedder.dimensions)
    stats = embed_nodes(graph, embedder, scope=Scope.kg(kg), text_properties=[("label", "name"), "type_names"],
                        vector_property="embedding")
    EntityLinker(graph, kg).ensure_index()
    names = RelationNames(graph, kg).get()
    degrees = graph.run("kgqa/degrees", kg=kg, types=sorted(names) or None)
    texts = prepare_path_texts(graph, kg, PathScorer(embedder, settings), names,
                               longest=settings.prepared_path_length, limit=settings.prepared_path_texts)
    return {"names_embedded": stats.embedded, "names_unchanged": stats.unchanged, "seconds": round(stats.seconds, 2),
            "degrees_written": degrees[0]["written"] if degrees else 0, "path_texts": texts}


# -- learning ------------------------------------------------------------------------------------------------
@dataclass
class LearnReport:
    """What :func:`learn` did."""

    kg: str
    source: str
    questions: int = 0
    learned: int = 0
    examples: int = 0
    no_topic: int = 0
    no_path: int = 0
    ties: int = 0
    given_paths: int = 0
    agrees_with_dataset_path: int | None = None
    seconds: float = 0.0
    memory_examples: int = 0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "failures"} | {"failures": self.failures[:5]}


def split_of(question: Question) -> str | None:
    value = question.extra.get(SPLIT)
    return str(value) if value is not None else None


def learn(graph: GraphLike, kg: str, questions: Sequence[Question], *, source: str,
          settings: KGQASettings | None = None, embedder: Embedder | None = None, workers: int = 1,
          min_f1: float = 0.5, given_paths: bool = True,
          on_question: Callable[[int], None] | None = None) -> LearnReport:
    """Learn path examples for ``kg`` from labelled ``questions`` (see the module docstring). A question needs
    its topic (given, in brackets, or linked from its text) and answers; its best paths (answer F1 ≥ ``min_f1``)
    become examples — with ``given_paths``, the relation path the record names when it reaches the answers
    (:func:`~kgagents.agent.kgqa.supervision.supervise_given`), else the weakly supervised ones. Refuses (and
    writes nothing) if any record is marked as a test split."""
    graph = connect(graph)
    refuse_test_split([(q.id, split_of(q)) for q in questions], source)
    refuse_unfinished(graph, [kg])
    settings = settings or KGQASettings(mode="no_llm")
    embedder = embedder or get_embedder()
    started = time.perf_counter()
    report = LearnReport(kg=kg, source=source, questions=len(questions))
    linker = EntityLinker(graph, kg)
    known = {r["id"] for r in graph.run("kgqa/entity_names", kg=kg,
                                        ids=sorted({t for q in questions for t in given_topics(q)}))}

    catalogue = RelationNames(graph, kg).get()
    types = {**{name: kind for kind, name in catalogue.items()}, **{kind: kind for kind in catalogue}}

    def one(q: Question) -> tuple[list[Example], bool] | str:
        topics = [t for t in given_topics(q) if t in known]
        text = q.question
        if not topics:
            names = bracketed(q.question)
            found = [linker.resolve(n) for n in names] if names else \
                [m.id for m in linker.link(plain(q.question), top=1)]
            topics = [t for t in found if t]
        if not topics or not q.answers:
            return "no_topic"
        gold = _gold_ids(graph, kg, q)
        best = supervise_given(graph, kg, topics[0], gold, q.relation_path, types=types,
                               max_frontier=settings.max_frontier, min_f1=min_f1, exclude=topics[1:]) \
            if given_paths and q.relation_path else None
        given = best is not None
        if best is None:
            best = supervise(graph, kg, topics[0], gold, depth=settings.depth, max_frontier=settings.max_frontier,
                             min_f1=min_f1, exclude=topics[1:])
        if not best.paths:
            return "no_path"
        key = question_key(kg, q.question, topics[0])
        text = masked(q.question, topics)
        return [Example(question_key=key, question=q.question, masked=text, topic=topics[0], path=p, reentry=r,
                        weight=1.0 / len(best.paths), f1=best.f1, answers=len(q.answers), source=source,
                        split=split_of(q)) for p, r in best.paths], given

    examples: list[Example] = []
    agree = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for q, outcome in zip(questions, pool.map(one, questions), strict=True):
            if isinstance(outcome, str):
                setattr(report, outcome, getattr(report, outcome) + 1)
                report.failures.append(f"{q.id}: {outcome}")
            else:
                found, given = outcome
                report.learned += 1
                report.ties += len(found) > 1
                report.given_paths += given
                examples.extend(found)
                if q.relation_path:
                    agree += tuple(q.relation_path) in {x.path for x in found}
            if on_question is not None:
                on_question(1)
    if any(q.relation_path for q in questions):
        report.agrees_with_dataset_path = agree
    texts = sorted({x.masked for x in examples})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}
    memory = PathMemory(graph, kg)
    report.examples = memory.write(examples, vectors)
    report.memory_examples = memory.count()
    report.seconds = round(time.perf_counter() - started, 2)
    return report


def _gold_ids(graph: Graph, kg: str, question: Question) -> set[str]:
    """The KG ids of a question's answers: given ids, else the entities named like the answers."""
    ids = {a.id for a in question.answers if a.id}
    names = sorted({a.name for a in question.answers if not a.id})
    if names:
        ids |= {r["id"] for r in graph.run("kgqa/ids_by_name", kg=kg, names=names)}
    return ids


# -- choosing questions --------------------------------------------------------------------------------------
def seeded_sample(questions: Sequence[Question], n: int | None, seed: int) -> list[Question]:
    """``random.Random(seed).sample`` of ``n`` questions in id order (all of them without ``n``)."""
    if not n or n >= len(questions):
        return list(questions)
    return sorted(random.Random(seed).sample(list(questions), n), key=lambda q: q.id)


def split(questions: Sequence[Question], ratios: Mapping[str, float], seed: int) -> dict[str, list[Question]]:
    """A seeded split into named parts with the given ratios (each question marked with its part under
    ``extra['split']``), the same for the same questions and seed whatever their order. Ratios must sum to 1."""
    if abs(sum(ratios.values()) - 1.0) > 1e-9:
        raise ValueError(f"split ratios must sum to 1, got {dict(ratios)}")
    ranked = sorted(questions, key=lambda q: hashlib.sha256(f"{seed}\x1f{q.id}".encode()).hexdigest())
    parts: dict[str, list[Question]] = {}
    start = 0
    names = list(ratios)
    for i, name in enumerate(names):
        end = len(ranked) if i == len(names) - 1 else start + round(ratios[name] * len(ranked))
        chosen = {q.id for q in ranked[start:end]}
        parts[name] = [q.model_copy(update={"extra": {**q.extra, SPLIT: name}}) for q in questions if q.id in chosen]
        start = end
    return parts


def questions_for(paths: Sequence[Path], *, format: str | None = None, sample: int | None = None,
                  seed: int = 7) -> list[Question]:
    """Questions of one or more files (a seeded sample of ``sample`` per file)."""
    out: list[Question] = []
    for path in paths:
        out.extend(seeded_sample(read_questions(path, format=format), sample, seed))
    return out
