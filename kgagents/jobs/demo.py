"""The demo: every job the project has, run on a small real slice of the benchmark data (KGAGENTS_DATA_DIR), each
result read back from Neo4j.

Why read back: the summary a newcomer sees must be what a Neo4j user would find with Cypher, not numbers the
Python process kept to itself. Each job returns only its run id and what it ran on; :func:`read_back` asks the
``(:Run)`` node for the score, the model and the run's own start and end times, and each job names the Cypher
(``kgagents/cypher/demo/show_*.cypher``) that lists its results with their provenance.

Jobs (each a function of ``(graph, chat, data_dir, workdir)``, so tests can run them on reduced slices):

* ``matching`` — Agent-OM on the OAEI conference pair cmt–confOf, scored against its reference (F1);
* ``alignment`` — EA candidate retrieval + EA-Agent on a seeded slice of SRPRS EN-FR (Hits@1 on the slice's
  test links);
* ``kgqa`` — ODA on PathQuestion PQ-2H: the path memory learned from the seeded train split, the held-out test
  questions answered (Hits@1), and one question asked in plain words shown with its answer and path;
* ``extraction`` — Text2KGBench (DBpedia-WebNLG, one ontology): the T-Box compiled into tools, a seeded sample
  of test sentences written through them (F1). Offline nothing is extracted: the sentences' gold triples are fed
  through the tools (a *tools check*, labelled so: its F1 says how much of the gold the ontology's tools accept and
  write back, not how well anything extracts).

With no chat model every job runs its documented no-LLM ablation, and the model column says so. With one, matching
and alignment run their ``gated`` modes (the model only where the cheap decision is unsure), and so does KGQA.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgagents.agent.alignment.retrieval import retrieve
from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
from kgagents.agent.kgqa.pathmemory import PathMemory
from kgagents.agent.kgqa.questions import plain
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.matching.settings import MatchSettings
from kgagents.cypher import cypher
from kgagents.errors import InputFileError, KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.jobs.alignment import align, load_pair
from kgagents.jobs.kgqa import ask, learn, prepare_kg, run_questions, seeded_sample, split
from kgagents.jobs.matching import ensure_loaded, match_pair
from kgagents.loaders.jape_slice import slice_jape
from kgagents.loaders.qa import read_questions
from kgagents.loaders.triples import load_triples


@dataclass(frozen=True)
class DemoSettings:
    """How big each slice is. The defaults keep the whole demo to a few minutes on two cores offline."""

    ea_links: int = 600
    kgqa_questions: int = 200
    kgqa_learn: int | None = None  # train questions the KGQA path memory learns from (None: the whole train split)
    extraction_ontology: str = "1_university"
    extraction_sentences: int = 10
    seed: int = 7


@dataclass(frozen=True)
class JobRun:
    """What a demo job reports before anything is read back: its run, what it ran on, how it is scored."""

    job: str
    data: str
    run_id: str
    metric: str  # shown name of the score
    score_property: str  # property of the (:Run) node holding it
    show_query: str  # cypher/demo/<name>: the query a Neo4j user runs to see the results ($run)
    example: str | None = None  # one worked example the demo prints under the table
    short: str = ""  # the job's name in the summary table (a few characters; ``job`` goes below the table)


@dataclass(frozen=True)
class JobSummary:
    """One row of the demo's summary, every value read from the run's (:Run) node."""

    job: str
    data: str
    metric: str
    score: float | None
    seconds: float | None
    run_id: str
    model: str | None
    show_query: str
    example: str | None = None
    short: str = ""

    @property
    def cypher(self) -> str:
        return cypher(self.show_query)


Job = Callable[[Graph, Any, Path, Path, DemoSettings], JobRun]

#: what each job reads, relative to the data folder (checked before the demo starts)
DATA: dict[str, tuple[str, ...]] = {
    "matching": ("om/conference/ontologies/cmt.owl", "om/conference/ontologies/confof.owl",
                 "om/conference/reference/cmt-confof.rdf"),
    "alignment": ("ea/srprs_en_fr",),
    "kgqa": ("kgqa/pathquestion/2H-kb.txt", "kgqa/pathquestion/PQ-2H.jsonl"),
    "extraction": ("extraction/text2kgbench/dbpedia_webnlg",),
}


def check_data(data: Path, jobs: Sequence[str]) -> None:
    """Refuse to start, naming the folder, what is missing in it and how to point the demo elsewhere, when ``data``
    lacks a file one of ``jobs`` reads (the demo never downloads or copies benchmark data)."""
    missing = [part for job in jobs for part in DATA[job] if not (data / part).exists()]
    if not missing:
        return
    what = "does not exist" if not data.is_dir() else f"lacks {', '.join(missing)}"
    raise InputFileError(f"demo data folder {data} {what}. The demo reads the project's benchmark data: set "
                         "KGAGENTS_DATA_DIR (or --data) to the folder holding om/, ea/, kgqa/ and extraction/, or "
                         "run fewer jobs with --job.")


def matching_job(graph: Graph, chat: Any, data: Path, workdir: Path, settings: DemoSettings) -> JobRun:
    cmt, confof, reference = (data / part for part in DATA["matching"])
    names = [ensure_loaded(graph, path) for path in (cmt, confof)]
    run = match_pair(graph, names[0], names[1], MatchSettings(mode="no_llm" if chat is None else "gated"), chat=chat,
                     reference=reference)
    return JobRun("ontology matching", "OAEI conference cmt–confOf", run.run_id, "F1", "f1", "demo/show_matching",
                  short="matching")


def alignment_job(graph: Graph, chat: Any, data: Path, workdir: Path, settings: DemoSettings) -> JobRun:
    directory = slice_jape(data / DATA["alignment"][0], workdir / "demo_srprs_en_fr", links=settings.ea_links,
                           seed=settings.seed)
    pair = load_pair(graph, directory)
    # the benchmark protocol on the slice: rank the test targets, score against the test links
    candidates = retrieve(graph, dataset=pair.dataset, settings=RetrievalSettings(candidate_space="test"))
    run = align(graph, chat, dataset=pair.dataset, retrieval_run_id=candidates.run_id,
                settings=EASettings(mode="gated", use_gold=True))  # with a model: only where retrieval is unsure
    return JobRun("entity alignment", f"SRPRS EN-FR, {settings.ea_links} seeded gold links", run.result.run_id,
                  "Hits@1", "hits_at_1", "demo/show_alignment", short="alignment")


def kgqa_job(graph: Graph, chat: Any, data: Path, workdir: Path, settings: DemoSettings) -> JobRun:
    """The best offline configuration: the path memory learned from PQ-2H's seeded 80 % train split, then a seeded
    sample of the held-out 10 % test split answered; and one test question asked in plain words (no brackets, no
    topic id), printed with its answer and the path that produced it."""
    kb, questions = (data / part for part in DATA["kgqa"])
    kg = "demo_pq2h"
    load_triples(graph, kb, kg=kg)
    prepare_kg(graph, kg)
    parts = split(read_questions(questions), {"train": 0.8, "dev": 0.1, "test": 0.1}, settings.seed)
    source = f"demo: PQ-2H train split (80 %, seed {settings.seed}, {settings.kgqa_learn or 'all'} learned)"
    memory = PathMemory(graph, kg)
    memory.forget_other_sources(source)
    if memory.count() == 0:
        learn(graph, kg, seeded_sample(parts["train"], settings.kgqa_learn, settings.seed), source=source, workers=2)
    test = seeded_sample([q.model_copy(update={"extra": {}}) for q in parts["test"]], settings.kgqa_questions,
                         settings.seed)
    gated = KGQASettings(mode="gated") if chat is not None else None  # with a model: only below the gate
    run = run_questions(graph, kg, test, gated, chat=chat, dataset="PQ-2H", workers=2)
    shown = test[0]
    words = plain(shown.question).replace("_", " ")
    asked = ask(graph, kg, words, settings=gated, chat=chat)
    example = (f"asked in plain words: {words!r} → {', '.join(asked.result.answer.splitlines()) or '(no answer)'} "
               f"via {asked.result.path} "
               f"(topic linked: {asked.linked[0]['id'] if asked.linked else 'none'}; decided by "
               f"{asked.result.decided_by}; gold {', '.join(a.name for a in shown.answers)})")
    return JobRun("KG question answering", f"PathQuestion PQ-2H: path memory from the seeded 80 % train split, "
                  f"{len(test)} test questions", run.run_id, "Hits@1", "hits_at_1", "demo/show_kgqa", example,
                  short="kgqa")


def extraction_job(graph: Graph, chat: Any, data: Path, workdir: Path, settings: DemoSettings) -> JobRun:
    from kgagents.agent.extraction.agent import ExtractionAgent
    from kgagents.jobs.text2kgbench import train_sentences
    from kgagents.jobs.text2kgbench_agent import similar_examples
    from kgagents.metrics.text2kgbench import load_ontology_data, sample_sentences

    root = data / DATA["extraction"][0]
    onto = load_ontology_data(root, settings.extraction_ontology)
    chosen = set(sample_sentences(onto, settings.extraction_sentences, settings.seed))
    feed = chat is None  # no_llm: the ground truth goes through the tools; nothing is extracted
    pool = () if feed else train_sentences(root, onto.id)  # with a model: the most similar train sentence solved
    documents = [{"id": s.id, "text": s.text, "expected": s.triples,
                  **({"triples": s.triples} if feed else {"examples": similar_examples(s, pool, 1)})}
                 for s in onto.sentences if s.id in chosen]
    agent = ExtractionAgent(graph, chat, {"mode": "no_llm" if feed else "full"}, ontology=onto.ontology_path,
                            abox=f"demo:{onto.id}")
    run = agent.run({"documents": documents})
    if feed:  # nothing extracted: a check of the tools, never to be read as an extraction score
        return JobRun("ontology-to-tools check", f"Text2KGBench {onto.id}, {len(documents)} seeded sentences: their "
                      "gold triples fed through the compiled tools, nothing extracted (no model); gold F1 = how much "
                      "of the gold the tools accept and write back", run.run_id, "gold F1", "f1",
                      "demo/show_extraction", short="tools check")
    return JobRun("ontology-to-tools extraction", f"Text2KGBench {onto.id}, {len(documents)} seeded sentences "
                  "extracted through the tools", run.run_id, "F1", "f1", "demo/show_extraction",
                  short="extraction")


JOBS: dict[str, Job] = {"matching": matching_job, "alignment": alignment_job, "kgqa": kgqa_job,
                        "extraction": extraction_job}


def read_back(graph: Graph, job: JobRun) -> JobSummary:
    """The summary row of one job, from its (:Run) node."""
    rows = graph.run("demo/run_summary", run_id=job.run_id, score_property=job.score_property)
    if not rows:
        raise KgAgentsError(f"run {job.run_id} of the {job.job} job is not in the graph: it was not written.")
    row = rows[0]
    return JobSummary(job.job, job.data, job.metric, row["score"], row["seconds"], job.run_id, row["model"],
                      job.show_query, job.example, job.short or job.job)


def run_demo(graph: Graph, chat: Any, data: Path, workdir: Path, settings: DemoSettings | None = None,
             jobs: Sequence[str] = tuple(JOBS), on_job: Callable[[str], None] | None = None) -> list[JobSummary]:
    """Run ``jobs`` in order and return their summaries, read back from Neo4j."""
    check_data(data, jobs)
    settings = settings or DemoSettings()
    summaries = []
    for name in jobs:
        if on_job is not None:
            on_job(name)
        summaries.append(read_back(graph, JOBS[name](graph, chat, data, workdir, settings)))
    return summaries
