"""``kgagents kgqa bootstrap --kg NAME``: a path memory from the KG itself, for a user with no labelled questions.

What it does is :mod:`kgagents.agent.kgqa.bootstrap`'s (path types sampled in Cypher, template questions, model
paraphrases); this job runs it as a ``(:Run {job: 'kgqa-bootstrap'})`` and writes the memory safely:

* every example is ``(:PathExample {source: 'bootstrap'})``, apart from labelled ones (``kgqa learn`` never touches
  them, a bootstrap never touches labelled ones; each KGQA run records how many of each its memory held and whose
  examples voted for each question);
* one transaction per batch of examples, each batch *staged* (invisible to every reader); the last transaction
  replaces the previous bootstrap examples with the staged ones. An interrupted bootstrap (an error, Ctrl-C, a
  killed process) leaves the memory as it was: the run is marked failed and its staged examples removed (those of a
  killed process are removed by the next bootstrap);
* the model's paraphrases are cached in the graph, ``(:BootstrapParaphrase {kg, key, model, path, questions})``
  keyed by the model and the prompt, so a re-run asks the model nothing it asked before;
* the zero-shot scorer's length penalty is chosen on held-out questions of the same kind
  (:mod:`kgagents.agent.kgqa.scorer_calibration`) and stored with the memory, in the transaction that makes it live.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from kgagents.agent.kgqa import scorer_calibration
from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.bootstrap import (
    PARAPHRASE_SYSTEM,
    Instance,
    Paraphrases,
    PathType,
    choose_paths,
    paraphrase_prompt,
    sample_paths,
    template_questions,
    usable_paraphrases,
)
from kgagents.agent.kgqa.observation import RelationNames
from kgagents.agent.kgqa.pathmemory import Example, PathMemory, question_key
from kgagents.agent.kgqa.paths import PathKey, path_text
from kgagents.agent.kgqa.pathtexts import PathTextStore
from kgagents.agent.kgqa.questions import PLACEHOLDER
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import BootstrapSettings, KGQASettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.errors import KgAgentsError, StructuredOutputError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.graph.runs import RunStore
from kgagents.jobs.kgqa import prepare_kg
from kgagents.llm.parallel import map_on_slots
from kgagents.llm.structured import structured
from kgagents.loaders.kg_common import kg_stats

SOURCE = "bootstrap"
#: a relation id that is not a word: a few letters and a number (Wikidata's P19), or an IRI
OPAQUE_ID = re.compile(r"[A-Za-z]{0,3}[_:-]?\d+|\w+://\S+")
JOB = "kgqa-bootstrap"


@dataclass
class BootstrapReport:
    """What a bootstrap did (the same numbers are on its ``(:Run)``)."""

    kg: str
    run_id: str
    relation_labels: bool = True
    topics_sampled: int = 0
    path_types_found: int = 0
    path_types_used: int = 0
    template_questions: int = 0
    paraphrased_path_types: int = 0
    paraphrases: int = 0
    paraphrases_cached: int = 0
    model: str | None = None
    model_calls: int = 0
    model_seconds: float = 0.0
    model_failures: int = 0
    #: the scorer calibration learned on held-out bootstrap questions (None: calibration_questions 0)
    scorer_calibration: dict[str, Any] | None = None
    examples: int = 0
    batches: int = 0
    stale_staged_removed: int = 0
    seconds: float = 0.0
    #: seconds per stage: prepare, sample (the Cypher walk), path_texts, paraphrase, write (embed + transactions)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)
    prepared: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def bootstrap(graph: GraphLike, kg: str, *, chat: Any = None, settings: BootstrapSettings | None = None,
              embedder: Embedder | None = None, on_step: Callable[[str], None] | None = None,
              prepare: bool = True) -> BootstrapReport:
    """Bootstrap ``kg``'s path memory (see the module docstring); ``chat``: the model that paraphrases (None:
    templates only); ``on_step``: told what is being done (progress display); ``prepare``: first make sure the
    KG is prepared for KGQA (:func:`~kgagents.jobs.kgqa.prepare_kg`: incremental, unchanged names are skipped), so
    that loading a KG and bootstrapping it is all a user does before asking."""
    graph = connect(graph)
    settings = settings or BootstrapSettings()
    if not kg_stats(graph, kg)["triples"]:
        raise KgAgentsError(f"KG '{kg}' has no triples: load it first (`kgagents load kg FILE --name {kg}`)")
    say = on_step or (lambda _: None)
    names = RelationNames(graph, kg).get()
    memory = PathMemory(graph, kg)
    store = RunStore(graph)
    model = getattr(chat, "model_name", None) if chat is not None else None
    with store.running(JOB, model=model, mode="paraphrases" if chat is not None else "templates",
                       properties={"kg": kg, "settings": settings.model_dump_json()}) as run_id:
        report = BootstrapReport(kg=kg, run_id=run_id, model=model,
                                 relation_labels=has_relation_labels(names))
        started = time.perf_counter()
        try:
            clock = _Clock(report.stage_seconds)
            if prepare:
                say("preparing the KG (entity names embedded, name index)")
                report.prepared = prepare_kg(graph, kg, embedder)
                clock.lap("prepare")
            report.stale_staged_removed = memory.drop_staged()
            say("sampling path types")
            found, report.topics_sampled = sample_paths(
                graph, kg, topics=settings.topics, depth=settings.depth, branch=settings.branch,
                max_frontier=settings.max_frontier, max_answers=settings.max_answers, seed=settings.seed)
            chosen = choose_paths(found, max_paths=settings.max_paths, min_support=settings.min_support)
            report.path_types_found, report.path_types_used = len(found), len(chosen)
            clock.lap("sample")
            say("embedding the path types' texts")
            _store_path_texts(graph, kg, [p.path for p in chosen], names, embedder)
            clock.lap("path_texts")
            examples = _template_examples(kg, chosen, names, settings.seed)
            report.template_questions = len(examples)
            if chat is not None and settings.paraphrase_paths:
                say("paraphrasing with the model")
                examples += _paraphrase_examples(graph, kg, chat, chosen, names, settings, report)
                clock.lap("paraphrase")
            calibration = None
            if settings.calibration_questions:
                say("learning the scorer's length penalty on held-out bootstrap questions")
                calibration = _calibrate(graph, kg, chosen, names, settings, embedder, run_id)
                report.scorer_calibration = calibration.as_dict()
                clock.lap("calibrate")
            say("embedding and writing")
            _write(memory, examples, embedder or get_embedder(), settings.batch, run_id, report)
            memory.commit_staged(run_id, SOURCE, scorer_calibration.stored_props(calibration) if calibration
                                 else None)
            clock.lap("write")
        except BaseException:
            _drop_quietly(memory, run_id)
            raise
        report.seconds = round(time.perf_counter() - started, 2)
        report.memory = memory.counts()
        store.finish(run_id, properties={
            "kg": kg, **{k: v for k, v in report.as_dict().items()
                         if k not in ("kg", "run_id", "memory", "prepared", "scorer_calibration")},
            "memory_examples": report.memory["examples"],
            "scorer_calibration": json.dumps(report.scorer_calibration) if report.scorer_calibration else None})
    return report


class _Clock:
    """Seconds per stage, into ``laps``."""

    def __init__(self, laps: dict[str, float]) -> None:
        self.laps = laps
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps[stage] = round(now - self.last, 2)
        self.last = now


def has_relation_labels(names: Mapping[str, str]) -> bool:
    """Whether a KG's relations read as words: some relation has a label other than its id, or ids that are words
    (``directed_by``); a KG whose relations are all opaque ids (``P19``, ``R7``) has none, and its questions are
    written with the ids."""
    return any(name != kind or not OPAQUE_ID.fullmatch(kind) for kind, name in names.items())


def _store_path_texts(graph: Graph, kg: str, found: Sequence[PathKey], names: Mapping[str, str],
                      embedder: Embedder | None) -> None:
    """The path texts of the path types found, embedded in the default path space and kept in the graph, so the
    first questions asked of the KG do not pay for them (:mod:`~kgagents.agent.kgqa.pathtexts`)."""
    scorer = PathScorer(embedder or get_embedder(), KGQASettings())
    store = PathTextStore(graph, kg, scorer.space)
    known = store.load()
    missing = sorted({path_text(p, names) for p in found} - set(known))
    if missing:
        scorer.path_vectors(missing)
        store.save(scorer.take_fresh())


def _calibrate(graph: Graph, kg: str, chosen: Sequence[PathType], names: Mapping[str, str],
               settings: BootstrapSettings, embedder: Embedder | None, run_id: str
               ) -> scorer_calibration.ScorerCalibration:
    """The scorer's length penalty chosen on held-out questions of the chosen path types, observed zero-shot (no
    memory, no model) by an agent with the default scorer (:mod:`~kgagents.agent.kgqa.scorer_calibration`)."""
    agent = ODAAgent(graph, None, KGQASettings(mode="no_llm", memory=False), kg=kg, embedder=embedder)
    asked = scorer_calibration.held_out(chosen, names, lambda p: _instance(p, settings.seed).topic,
                                        count=settings.calibration_questions, seed=settings.seed)
    observed = scorer_calibration.observe(asked, agent.scorer.queries,
                                          lambda query, topic: agent.observer.observe(query, [topic]).paths)
    agent.path_texts().save(agent.scorer.take_fresh())  # the longer paths' texts it met, for later runs
    return scorer_calibration.choose(observed, agent.settings, run_id)


def _drop_quietly(memory: PathMemory, run_id: str) -> None:
    try:
        memory.drop_staged(run_id)
    except Exception:  # noqa: BLE001 - the server may be gone; the next bootstrap removes what is left
        pass


def _instance(path_type: PathType, seed: int) -> Instance:
    """The instance whose topic a path type's questions are about (seeded)."""
    return random.Random(f"{seed}:{path_type.path}").choice(path_type.instances)


def _example(kg: str, masked: str, instance: Instance) -> Example:
    question = masked.replace(PLACEHOLDER, instance.topic_name, 1)
    return Example(question_key=question_key(kg, question, instance.topic), question=question, masked=masked,
                   topic=instance.topic, path=instance.path, reentry=False, weight=1.0, f1=1.0,
                   answers=instance.size, source=SOURCE, split=None)


def _template_examples(kg: str, chosen: Sequence[PathType], names: Mapping[str, str], seed: int) -> list[Example]:
    return [_example(kg, masked, _instance(p, seed)) for p in chosen for masked in template_questions(p.path, names)]


def _weighted_sample(chosen: Sequence[PathType], n: int, seed: int) -> list[PathType]:
    """``n`` path types drawn without replacement with probability by support (Efraimidis–Spirakis keys)."""
    rng = random.Random(seed)
    keyed = sorted(chosen, key=lambda p: math.log(rng.random() or 1e-12) / p.support, reverse=True)
    return keyed[:n]


def _paraphrase_examples(graph: Graph, kg: str, chat: Any, chosen: Sequence[PathType], names: Mapping[str, str],
                         settings: BootstrapSettings, report: BootstrapReport) -> list[Example]:
    """The model's questions for a seeded sample of path types (cached in the graph by model and prompt)."""
    picked = _weighted_sample(chosen, settings.paraphrase_paths, settings.seed)
    prompts = {p.path: paraphrase_prompt(p.path, names, _instance(p, settings.seed), settings.paraphrases)
               for p in picked}
    keys = {path: hashlib.sha256(f"{report.model}\x1f{PARAPHRASE_SYSTEM}\x1f{prompt}".encode()).hexdigest()[:24]
            for path, prompt in prompts.items()}
    cached = {r["key"]: list(r["questions"]) for r in graph.run("kgqa/bootstrap_cache_read", kg=kg,
                                                                  keys=list(keys.values()))}

    def ask(path_type: PathType) -> tuple[PathType, list[str] | None, float]:
        key = keys[path_type.path]
        if key in cached:
            return path_type, cached[key], 0.0
        t0 = time.perf_counter()
        messages = [{"role": "system", "content": PARAPHRASE_SYSTEM},
                    {"role": "user", "content": prompts[path_type.path]}]
        try:
            reply = structured(chat, messages, Paraphrases, purpose="kgqa-bootstrap:paraphrase")
        except StructuredOutputError:
            return path_type, None, time.perf_counter() - t0
        return path_type, reply.questions, time.perf_counter() - t0

    out: list[Example] = []
    fresh = []
    for path_type, questions, seconds in map_on_slots(chat, ask, picked):
        key = keys[path_type.path]
        if key in cached:
            report.paraphrases_cached += 1
        else:
            report.model_calls += 1
            report.model_seconds = round(report.model_seconds + seconds, 2)
            if questions is None:
                report.model_failures += 1
                continue
            fresh.append({"key": key, "path": list(path_type.path), "questions": questions})
        instance = _instance(path_type, settings.seed)
        usable = usable_paraphrases(questions or [], instance)
        report.paraphrased_path_types += bool(usable)
        report.paraphrases += len(usable)
        out += [_example(kg, masked, instance) for masked in usable]
    if fresh:
        graph.run("kgqa/bootstrap_cache_write", kg=kg, model=report.model, rows=fresh)
    return out


def _write(memory: PathMemory, examples: Sequence[Example], embedder: Embedder, batch: int, run_id: str,
           report: BootstrapReport) -> None:
    """Embed the examples' phrasings once and write them in staged batches (one transaction each)."""
    unique = list({(x.question_key, x.path): x for x in examples}.values())
    texts = sorted({x.masked for x in unique})
    if not texts:
        raise KgAgentsError(f"KG '{memory.kg}': no path type was found often enough to write questions for "
                            "(lower min_support or sample more topics)")
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    for start in range(0, len(unique), batch):
        report.examples += memory.write_staged(unique[start:start + batch], vectors, run_id)
        report.batches += 1
