"""KGQA benchmarks: one command per dataset and configuration, written to ``<out>/kgqa/<dataset>/<config>.json``
(``kgagents bench kgqa --record`` writes into the results store).

Datasets (shared data, never copied): ``metaqa`` (``kb_partial.txt`` and the 1/2/3-hop dev files; evaluated on the
questions whose gold answers are exactly reachable in this partial KB — ``kb_consistent`` —, with how many that
is), ``pq-2h`` / ``pq-3h`` (PathQuestion, each with its own KB), ``qald-onehop`` (the 72 one-hop QALD-10
questions on the graph of their gold triples, :mod:`kgagents.loaders.qald_graph`; zero-shot only) and
``sq-wikidata``: SimpleQuestions on Wikidata over CoDEx-M (a real Wikidata subgraph, loaded from its id triple
tables with property labels and entity types, :mod:`kgagents.loaders.wikidata_tables`): the questions whose fact is
in CoDEx-M, learned from the train file and reported on the valid file; a question's gold answers are every entity
its (subject, property) reaches in the KG (the dataset's one object among them: any of them answers it).

Protocol — nothing evaluated is ever learned from:

* every question file is split with :func:`kgagents.jobs.kgqa.split` (seeded): MetaQA's dev files each into a
  ``train`` half and a ``test`` half; PathQuestion 80 / 10 / 10 into ``train`` / ``dev`` / ``test`` (as the IRN
  paper did). Reported numbers are on ``test`` (``--sample N``: a seeded sample of N per file);
* ``--memory``: the KG's path memory is made to hold exactly what was learned from ``train`` (examples of any
  other source are removed; learning runs when the memory does not hold this source yet, or with ``--relearn``);
  ``--no-memory`` runs zero-shot (the agent ignores the memory); ``--bootstrap`` answers with a memory made from
  the KG alone (``kgqa bootstrap``; no question of the dataset is used), with the model's paraphrases when a
  model is given (``--paraphrase``);
* ``--link``: the test questions lose their brackets and topic ids, so the agent links them from plain text;
  linking accuracy is reported next to Hits@1.

Each file records the command as typed, commit, machine and load average (:func:`write_results`), the mode and
model, the split and the memory (source, examples, the learning report when it ran), Hits@1 and answer-set
precision / recall / F1 by hop count, how answers were decided (memory, observation, model, iteration cap), LLM
calls, tokens and seconds per question, observation p50 / p95 and throughput.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import file_slug, write_results
from kgagents.agent.gating import cheap_threshold
from kgagents.agent.kgqa.observation import follow
from kgagents.agent.kgqa.pathmemory import PathMemory
from kgagents.agent.kgqa.questions import plain
from kgagents.agent.kgqa.results import GOLD_TOPICS, QuestionResult
from kgagents.agent.kgqa.settings import BootstrapSettings, KGQASettings, with_model_defaults
from kgagents.embeddings import get_embedder
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import SPLIT, learn, prepare_kg, run_questions, seeded_sample, split
from kgagents.jobs.kgqa_bootstrap import SOURCE as BOOTSTRAP_SOURCE
from kgagents.jobs.kgqa_bootstrap import bootstrap
from kgagents.jobs.kgqa_gate import model_record
from kgagents.loaders.kg_common import kg_stats
from kgagents.loaders.qa import EntityRef, Question, read_questions
from kgagents.loaders.qald_graph import load_qald_onehop
from kgagents.loaders.triples import load_triples
from kgagents.loaders.wikidata_tables import load_tables
from kgagents.paths import data_dir

ANCHORS: dict[str, dict[str, float]] = {
    "metaqa": {"EmbedKGQA 1-hop (trained)": 97.5, "EmbedKGQA 2-hop (trained)": 98.8,
               "EmbedKGQA 3-hop (trained)": 94.8, "NSM 1-hop (trained)": 97.1, "NSM 2-hop (trained)": 99.9,
               "NSM 3-hop (trained)": 98.9},
    "qald-onehop": {"ODA (GPT-4) QALD-10, all questions": 66.67, "ToG QALD-10, all questions": 53.8},
}


@dataclass(frozen=True)
class Dataset:
    """A benchmark: the KG to load (kind ``triples`` or ``qald_onehop``), its question files and their split."""

    name: str
    kg: str
    kb: tuple[str, ...]
    questions: tuple[tuple[str, ...], ...]
    ratios: dict[str, float] | None
    kind: str = "triples"
    only_kb_consistent: bool = False
    #: without ``ratios``: each question file's part (``train`` / ``test``), in the order of ``questions``
    parts: tuple[str, ...] | None = None
    #: label and type tables (``wikidata_tables``): relation labels, entity types, type labels
    tables: tuple[tuple[str, ...], ...] = ()
    #: keep the questions whose own fact is in the KG, their gold the full answer set of their relation path
    only_answerable: bool = False


HALVES = {"train": 0.5, "test": 0.5}
IRN = {"train": 0.8, "dev": 0.1, "test": 0.1}
DATASETS = {d.name: d for d in (
    Dataset("metaqa", "metaqa", ("kgqa", "metaqa", "kb_partial.txt"),
            tuple(("kgqa", "metaqa", f"metaqa_{h}hop_dev.jsonl") for h in (1, 2, 3)), HALVES, only_kb_consistent=True),
    Dataset("pq-2h", "pq-2h", ("kgqa", "pathquestion", "2H-kb.txt"), (("kgqa", "pathquestion", "PQ-2H.jsonl"),), IRN),
    Dataset("pq-3h", "pq-3h", ("kgqa", "pathquestion", "3H-kb.txt"), (("kgqa", "pathquestion", "PQ-3H.jsonl"),), IRN),
    Dataset("qald-onehop", "qald-onehop", ("kgqa", "wikidata_questions", "qald_10-en_onehop_gold_triples.json"),
            (("kgqa", "wikidata_questions", "qald_10-en_onehop_gold_triples.json"),), None, kind="qald_onehop"),
    Dataset("sq-wikidata", "codex-m", tuple(f"kgqa/wikidata_codex/codex-m_{p}.txt" for p in ("train", "valid", "test")),
            (("kgqa", "wikidata_codex", "simplequestions_wd_train_answerable.txt"),
             ("kgqa", "wikidata_codex", "simplequestions_wd_valid_answerable.txt")), None, kind="wikidata_tables",
            parts=("train", "test"), only_answerable=True,
            tables=(("kgqa", "wikidata_codex", "relations_en.json"), ("kgqa", "wikidata_codex", "entity2types.json"),
                    ("kgqa", "wikidata_codex", "types_en.json"))),
)}


def dataset(name: str) -> Dataset:
    if name not in DATASETS:
        raise KgAgentsError(f"unknown KGQA dataset '{name}': use one of {', '.join(DATASETS)}")
    return DATASETS[name]


def result_stem(name: str, mode: str, model: str, *, memory: bool, link: bool, sample: int | None,
                variant: str | None = None, part: str = "test", boot: str | None = None) -> str:
    """``kgqa/<dataset>/<memory|zeroshot|bootstrap[-<model>]>[_dev][_linked][_sample<N>]_<no-llm | mode_model>
    [_<variant>]`` in the results store."""
    kind = ("bootstrap" + (f"-{file_slug(boot)}" if boot != "templates" else "")) if boot else \
        "memory" if memory else "zeroshot"
    parts = [f"kgqa/{name}/{kind}", *([part] if part != "test" else []),
             *(["linked"] if link else []),
             *([f"sample{sample}"] if sample else [])]
    parts += ["no-llm"] if mode == "no_llm" else [mode, file_slug(model)]
    return "_".join(parts + ([file_slug(variant)] if variant else []))


def ensure_kg(graph: Graph, ds: Dataset) -> dict[str, Any]:
    """Load the dataset's KG unless it is there (loads are idempotent, but a re-load of MetaQA takes minutes)."""
    stats = kg_stats(graph, ds.kg)
    if stats["kg_exists"] and stats["triples"]:
        return {"loaded_now": False, **stats}
    if ds.kind == "wikidata_tables":
        relations, types, type_labels = (data_dir(*t) for t in ds.tables)
        loaded = load_tables(graph, [data_dir(*f.split("/")) for f in ds.kb], kg=ds.kg, relation_labels=relations,
                             entity_types=types, type_labels=type_labels)
        return {"loaded_now": True, **loaded.model_dump()}
    kb = data_dir(*ds.kb)
    if ds.kind == "qald_onehop":
        result = load_qald_onehop(graph, kb, kg=ds.kg,
                                  nt_path=Path.home() / ".cache" / "kgagents" / "derived" / f"{ds.kg}.nt")
    else:
        result = load_triples(graph, kb, kg=ds.kg)
    return {"loaded_now": True, **result.model_dump()}


def splits(ds: Dataset, seed: int,
           part: str = "test") -> tuple[list[Question], list[tuple[Path, list[Question], list[Question]]]]:
    """(every question learned from, per file: (path, all its questions, its ``part``: test, or dev where the split
    has one)). Without a split (QALD) every question is a test question."""
    learned: list[Question] = []
    files = []
    for i, parts in enumerate(ds.questions):
        path = data_dir(*parts)
        questions = read_questions(path)
        if ds.parts is not None:  # the files are the split
            marked = [q.model_copy(update={"extra": {**q.extra, SPLIT: ds.parts[i]}}) for q in questions]
            if ds.parts[i] == "train":
                learned.extend(marked)
            else:
                files.append((path, questions, marked))
            continue
        if ds.ratios is None:
            files.append((path, questions, questions))
            continue
        split_parts = split(questions, ds.ratios, seed)
        learned.extend(split_parts["train"])
        files.append((path, questions, split_parts[part]))
    return learned, files


def test_questions(ds: Dataset, files: Sequence[tuple[Path, list[Question], list[Question]]], sample: int | None,
                   seed: int, link: bool) -> tuple[list[Question], list[dict[str, Any]]]:
    """The evaluated questions (per file: the test part, kb-consistent ones for MetaQA, the seeded sample; with
    ``link`` stripped of brackets and topic ids) and per-file counts."""
    chosen: list[Question] = []
    counts = []
    for path, questions, test in files:
        usable = [q for q in test if q.extra.get("kb_consistent", True)] if ds.only_kb_consistent else test
        picked = seeded_sample(usable, sample, seed)
        counts.append({"file": str(path), "questions": len(questions), "test": len(test),
                       "kb_consistent": len(usable) if ds.only_kb_consistent else None, "evaluated": len(picked)})
        chosen.extend(_unlinked(q) if link else q for q in picked)
    return [q.model_copy(update={"extra": {k: v for k, v in q.extra.items() if k != SPLIT}}) for q in chosen], counts


def _unlinked(question: Question) -> Question:
    """The question as a user types it: no brackets, no topic ids (kept aside to score the linking)."""
    return question.model_copy(update={"question": plain(question.question), "topic_entities": [],
                                       "extra": {**question.extra,
                                                 GOLD_TOPICS: [t.id or t.name for t in question.topic_entities]}})


def answerable(graph: Graph, ds: Dataset, questions: Sequence[Question]) -> list[Question]:
    """The questions whose own fact is in the KG (a gold answer at the end of their relation path from their topic),
    each with every entity that path reaches as its gold (any of them answers the question)."""
    topics = sorted({q.topic_entities[0].id or q.topic_entities[0].name for q in questions if q.topic_entities})
    known = {r["id"] for r in graph.run("kgqa/entity_names", kg=ds.kg, ids=topics)}
    kept = []
    for q in questions:
        topic = q.topic_entities[0].id or q.topic_entities[0].name
        if topic not in known:
            continue
        ends = follow(graph, ds.kg, topic, q.relation_path or [], [topic], 10_000)
        ids = [e["id"] for e in ends]
        if {a.id for a in q.answers} & set(ids):
            kept.append(q.model_copy(update={"answers": [EntityRef(id=e["id"], name=e["name"]) for e in ends],
                                             "extra": {**q.extra, "dataset_answers": [a.id for a in q.answers]}}))
    return kept


def ensure_bootstrap(graph: Graph, ds: Dataset, chat: Any, settings: BootstrapSettings) -> dict[str, Any]:
    """The KG's path memory made from the KG alone (``kgqa bootstrap``; labelled examples removed): no question of
    the dataset is used. With ``chat``, the model paraphrases a seeded sample of path types (cached in the graph)."""
    PathMemory(graph, ds.kg).forget_other_sources(BOOTSTRAP_SOURCE)
    report = bootstrap(graph, ds.kg, chat=chat, settings=settings, prepare=False)  # bench prepared it
    return {"source": BOOTSTRAP_SOURCE, "split": None, "questions_learned_from": 0,
            "examples": report.memory["examples"], "bootstrap": report.as_dict(),
            "bootstrap_settings": settings.model_dump(mode="json")}


def ensure_memory(graph: Graph, ds: Dataset, learned: list[Question], *, seed: int, relearn: bool,
                  workers: int) -> dict[str, Any]:
    """The KG's path memory holding exactly what was learned from this benchmark's ``train`` split."""
    source = f"bench {ds.name}: train split {ds.ratios or ds.parts} seed {seed}; labelled relation paths learned as " \
        "given"
    memory = PathMemory(graph, ds.kg)
    removed = memory.forget_other_sources(source)
    report = None
    if relearn or memory.count() == 0:
        report = learn(graph, ds.kg, learned, source=source, workers=workers).as_dict()
    return {"source": source, "split": "train", "questions_learned_from": len(learned),
            "examples": memory.count(), "removed_from_other_sources": removed, "learned_now": report}


def bench(graph: Graph, name: str, *, chat: Any = None, settings: KGQASettings | None = None,
          memory: bool = True, link: bool = False, sample: int | None = None, seed: int = 7, workers: int = 1,
          relearn: bool = False, out: Path | None = None,
          on_question: Callable[[QuestionResult], None] | None = None, variant: str | None = None,
          part: str = "test", boot: BootstrapSettings | None = None, paraphrase: Any = None,
          repeat: int = 1) -> dict[str, Any]:
    """Run one dataset's benchmark (mode ``no_llm`` when ``chat`` is None); write the files when ``out`` is given
    (``variant``: the settings changed from their defaults, in the file name). ``part``: the split answered — the
    test split (reported), or the dev split where the dataset has one (comparing settings without the test).
    ``repeat``: answer the questions this many times (no model only) and report the median throughput — a split of
    51 questions is answered in 2 s, too short for one run's questions/s to say much."""
    ds = dataset(name)
    if repeat > 1 and chat is not None:
        raise KgAgentsError("--repeat measures throughput without a chat model; drop --repeat or use --mode no_llm")
    if memory and ds.ratios is None and ds.parts is None and boot is None:
        raise KgAgentsError(f"{name} has no training split to learn a path memory from; use --no-memory")
    if part not in ("test", "dev"):
        raise KgAgentsError(f"--split {part}: answer the test split (reported) or a dev split")
    if part == "dev" and "dev" not in (ds.ratios or {}):
        raise KgAgentsError(f"{name} has no dev split (its split: {', '.join(ds.ratios or {}) or 'none'}); "
                            "compare settings on its train split with `bench kgqa-gate --set`")
    settings = (settings or KGQASettings()).model_copy(update={"memory": memory or boot is not None})
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    settings, model_defaults = with_model_defaults(settings, getattr(chat, "model_name", None))
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    kg = ensure_kg(graph, ds)
    prepared = prepare_kg(graph, ds.kg, get_embedder(), settings)
    learned, files = splits(ds, seed, part)
    if ds.only_answerable:  # the questions whose fact is in the KG, learned from and answered alike
        learned = answerable(graph, ds, learned)
        files = [(path, questions, answerable(graph, ds, part_questions)) for path, questions, part_questions in files]
    if boot is not None:
        memory_record: dict[str, Any] | None = ensure_bootstrap(graph, ds, paraphrase, boot)
    else:
        memory_record = ensure_memory(graph, ds, learned, seed=seed, relearn=relearn, workers=max(workers, 2)) \
            if memory else None
    questions, counts = test_questions(ds, files, sample, seed, link)
    run = run_questions(graph, ds.kg, questions, settings, chat, workers=workers, dataset=ds.name,
                        on_question=on_question)
    summary = run.output.summary()
    throughput = _repeated(graph, ds, questions, settings, workers, run, summary["questions_per_second"], repeat) \
        if repeat > 1 else None
    if throughput is not None:
        summary["questions_per_second"] = throughput["median_questions_per_second"]
    boot_kind = None if boot is None else (getattr(paraphrase, "model_name", None) or "templates")
    words = "templates" if boot_kind == "templates" else f"templates and {boot_kind} paraphrases"
    config = (f"bootstrap memory ({words}; no labelled question)" if boot_kind else "path memory" if memory
              else "zero-shot (no memory)") + (", topics linked from plain text" if link else "")
    result: dict[str, Any] = {
        "benchmark": f"KGQA {ds.name}: {len(questions)} {part} questions"
                     + (f" (seeded sample of {sample} per question file)" if sample else "") + f"; {config}",
        "label": (f"no-llm ({run.model})" if settings.mode == "no_llm" else f"ODA mode {settings.mode} with "
                  f"{run.model}") + f"; {config}",
        "dataset": ds.name, "kg": ds.kg, "mode": settings.mode, "model": run.model, "run_id": run.run_id,
        "memory": memory_record, "link": link, "confident": settings.confident,
        "ranking": settings.ranking if settings.mode == "gated" else None,
        "split": {"ratios": ds.ratios, "seed": seed, "reported": part},
        "sample_per_file": sample, "question_files": counts, "settings": run.output.settings,
        "model_defaults": model_defaults, "scores": run.scores, **summary, "llm": run.llm.model_dump(),
        "kg_load": kg, "kg_prepare": prepared,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_average_before": load_before, "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "anchors": ANCHORS.get(ds.name, {}),
        "timing_note": "measured on a machine shared with other jobs; see load averages",
        "throughput_repeats": throughput,
    }
    if out is not None:
        write_results(out, result_stem(ds.name, settings.mode, run.model, memory=memory, link=link, sample=sample,
                                       variant=variant, part=part, boot=boot_kind), result)
    return result


def _repeated(graph: Graph, ds: Dataset, questions: Sequence[Question], settings: KGQASettings, workers: int,
              first: Any, first_rate: float, repeat: int) -> dict[str, Any]:
    """The questions answered ``repeat - 1`` more times after ``first`` (which ran at ``first_rate``): each run's
    questions/s, their median (the file's ``questions_per_second``), and whether every run gave the same answers
    (scores are the first's)."""
    def answers(run: Any) -> list[tuple[str, str]]:
        return sorted((r.question_id, r.answer) for r in run.output.results)

    rates, same = [first_rate], True
    for _ in range(repeat - 1):
        again = run_questions(graph, ds.kg, questions, settings, None, workers=workers, dataset=ds.name)
        rates.append(again.output.summary()["questions_per_second"])
        same = same and answers(again) == answers(first)
    return {"runs": repeat, "questions_per_second": rates, "median_questions_per_second": statistics.median(rates),
            "identical_answers": same}


def calibrate(graph: Graph, name: str, *, settings: KGQASettings | None = None, sample: int | None = None,
              seed: int = 7, weak: float = 0.6, workers: int = 1, relearn: bool = False, out: Path | None = None,
              on_question: Callable[[QuestionResult], None] | None = None, variant: str | None = None,
              chat: Any = None) -> dict[str, Any]:
    """The LLM gate's threshold (``--confident``), learned on the TRAIN split only: the no-LLM agent answers a
    seeded sample of train questions (with the memory, each question's own examples left out); the model is asked
    only where the no-LLM answer is unreliable — below the largest confidence margin under which at most ``weak``
    of the no-LLM answers are right (:func:`~kgagents.agent.gating.cheap_threshold`). With ``chat``, the gate is then
    narrowed to where the model pays (:func:`kgagents.jobs.kgqa_gate.model_record`): the agent in mode ``gated``
    answers those unreliable train questions with the model, and the gate keeps only the confidences below which it
    fixed more answers than it broke (0.0 — never ask — when it fixed none net)."""
    ds = dataset(name)
    if ds.ratios is None:
        raise KgAgentsError(f"{name} has no training split to calibrate on")
    settings, _ = with_model_defaults(settings or KGQASettings(), getattr(chat, "model_name", None))
    settings = settings.model_copy(update={"mode": "no_llm"})  # the model's checks are kept for the gated run
    memory = settings.memory
    ensure_kg(graph, ds)
    prepare_kg(graph, ds.kg, get_embedder())
    learned, _ = splits(ds, seed)
    memory_record = ensure_memory(graph, ds, learned, seed=seed, relearn=relearn, workers=max(workers, 2)) \
        if memory else None
    usable = [q for q in learned if q.extra.get("kb_consistent", True)] if ds.only_kb_consistent else learned
    questions = [q.model_copy(update={"extra": {k: v for k, v in q.extra.items() if k != SPLIT}})
                 for q in seeded_sample(usable, sample, seed)]
    run = run_questions(graph, ds.kg, questions, settings, None, workers=workers, dataset=ds.name,
                        leave_one_out=memory, on_question=on_question)
    pairs = [(r.confidence, bool(r.correct)) for r in run.output.results]
    chosen = cheap_threshold(pairs, weak)
    above = [c for conf, c in pairs if conf >= chosen]
    below = [c for conf, c in pairs if conf < chosen]
    result: dict[str, Any] = {
        "benchmark": f"KGQA {ds.name}: LLM gate threshold on {len(questions)} TRAIN questions "
                     f"({'path memory, leave-one-out' if memory else 'zero-shot'})",
        "dataset": ds.name, "memory": memory_record, "split": {"ratios": ds.ratios, "seed": seed,
                                                               "calibrated_on": "train"},
        "weak_accuracy": weak, "confident": chosen, "run_id": run.run_id, "settings": settings.model_dump(mode="json"),
        "ranking": settings.ranking if chat is not None else None,
        **{k: v for k, v in run.output.summary().items() if k in ("hits_at_1", "hits_at_1_by_hops",
                                                                  "questions_by_hops", "decided_by")},
        "share_answered_without_model": round(len(above) / len(pairs), 4) if pairs else None,
        "accuracy_above_threshold": round(sum(above) / len(above), 4) if above else None,
        "accuracy_below_threshold": round(sum(below) / len(below), 4) if below else None,
    }
    if chat is not None:
        result["paid"] = model_record(graph, ds.kg, questions, run.output.results, settings, chat, chosen,
                                      leave_one_out=memory, dataset=ds.name)
        result["confident"] = result["paid"]["gate"]["threshold"]  # what `bench kgqa --confident` takes
    if out is not None:
        write_results(out, f"kgqa/{ds.name}/{'memory' if memory else 'zeroshot'}_gate"
                      + (f"_paid_{file_slug(result['paid']['model'])}" if chat is not None else "")
                      + (f"_{file_slug(variant)}" if variant else ""), result)
    return result


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def markdown(result: dict[str, Any]) -> str:
    """The results file's human-readable half."""
    cov = result["coverage"]
    lines = [f"# {result['benchmark']}", "", f"**{result['label']}** — run `{result['run_id']}`.", "",
             f"Command: `{result['command']}`", "",
             "| hops | questions | Hits@1 (%) | answer-set P / R / F1 (%) |", "|---|---|---|---|"]
    for h, v in result["hits_at_1_by_hops"].items():
        lines.append(f"| {h} | {result['questions_by_hops'][h]} | {_pct(v)} | {_pct(result['precision_by_hops'][h])} / "
                     f"{_pct(result['recall_by_hops'][h])} / {_pct(result['f1_by_hops'][h])} |")
    lines += [f"| all | {result['questions']} | **{_pct(result['hits_at_1'])}** | {_pct(result['precision'])} / "
              f"{_pct(result['recall'])} / {_pct(result['f1'])} |", ""]
    mem = result["memory"]
    lines += [
        "- question files: " + "; ".join(
            f"{Path(f['file']).name}: {f['evaluated']} evaluated of {f['test']} {result['split']['reported']} of "
            f"{f['questions']}"
            + (f" ({f['kb_consistent']} kb-consistent)" if f["kb_consistent"] is not None else "")
            for f in result["question_files"]),
        f"- split: {result['split']['ratios']} seed {result['split']['seed']}; answered: "
        f"{result['split']['reported']}",
        "- path memory: " + (f"{mem['examples']} examples learned from {mem['questions_learned_from']} train "
                             f"questions ({mem['source']})" if mem else "not used (zero-shot)"),
        f"- answers decided by: {result['decided_by']}"
        + ("" if result["mode"] == "no_llm" else f" (the model is asked when the best path leads by less than "
                                                 f"{result['confident']})"),
        *([f"- the model's own check values (not given with --set): {result['model_defaults']}"]
          if result.get("model_defaults") else []),
        *([] if result["mode"] == "no_llm" or "model_changed" not in result else [
            "- answers the model decided, against the best path's: {right} turned right, {wrong} turned wrong, "
            "{same} the same either way".format(**result["model_changed"])]),
        f"- coverage: topic entity in the KG for {cov['topic_in_kg']}, a gold answer in the KG for "
        f"{cov['gold_in_kg']}, both for {cov['topic_and_gold_in_kg']} (Hits@1 on those: "
        f"{_pct(result['hits_at_1_covered'])} %)",
        f"- the observation held a gold answer for {_pct(result['observation_answer_recall'])} % of the questions",
    ]
    if result["link"]:
        lines.append(f"- entity linking (plain-text questions): top-1 accuracy {_pct(result['linking_accuracy'])} % "
                     f"on {result['linked']} linked questions")
    lines += [
        f"- LLM calls per question {result['llm_calls_per_question']}, tokens per question "
        f"{result['tokens_per_question']}, seconds per question {result['seconds_per_question']}, mean iterations "
        f"{result['mean_iterations']}, cap-hit rate {result['cap_hit_rate']}",
        f"- observation time per question: p50 {result['observe_ms_p50']} ms, p95 {result['observe_ms_p95']} ms "
        f"(D {result['settings']['depth']}, N {result['settings']['top_n']}, P {result['settings']['top_percent']})",
        f"- throughput: {result['questions_per_second']} questions/s over the loop with {result['workers']} worker(s) "
        f"({result['questions_per_second_with_embedding']} including embedding the questions); wall "
        f"{result['wall_seconds']} s"
        + (f"; the median of {rep['runs']} runs of the same questions ({rep['questions_per_second']} questions/s; "
           f"the same answers every run: {'yes' if rep['identical_answers'] else 'no'})"
           if (rep := result.get("throughput_repeats")) else ""),
        f"- load average before {result['load_average_before']}, after {result['load_average_after']} "
        f"({result['machine']['cores']} cores): timings on a shared machine are noisy"]
    if result["anchors"]:
        lines.append("- anchors (published, other systems/models): "
                     + "; ".join(f"{k} {v}" for k, v in result["anchors"].items()))
    return "\n".join(lines) + "\n"
