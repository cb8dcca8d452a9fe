"""One reader per kind of run, keyed on the run's ``job`` property: ``(:Run)`` in the graph → :class:`RunReport`.

Every job the library runs has a reader (matching, ea-retrieval, ea-agent, kgqa, extraction). To report a new
kind of run add a function decorated with ``@reader("<job>")`` that returns its predictions (scored pairs or
answers), its reference if one is known, and its stages. Any run, whatever its job, also shows the scores stored on
its ``(:Run)`` node; a job without a reader gets those, its stage times and its LLM cost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.llm.ledger import PurposeOutcomes
from kgagents.loaders.alignment import Alignment, stored_alignment
from kgagents.loaders.jape import gold_links
from kgagents.loaders.reference import declared_and_checked
from kgagents.loaders.sssom import read_alignment_file
from kgagents.metrics.oaei import equivalence_pairs
from kgagents.progress import MATCHING_STAGES
from kgagents.report.model import Prediction, Reference, RunReport, stage_rows, stage_seconds

Reader = Callable[[Graph, dict[str, Any], "Path | None"], RunReport]
READERS: dict[str, Reader] = {}

#: which stage each LLM call purpose belongs to, per job
MATCHING_PURPOSES = {"describe": "texts", "verbalise": "texts", "validate": "validate"}
EA_AGENT_PURPOSES = {"ea-agent:plan": "plan", "ea-agent:align": "execute: align",
                     "ea-agent:reflect": "execute: reflect", "ea-agent:rewrite": "rewrite"}


def reader(job: str) -> Callable[[Reader], Reader]:
    """Register the report reader of runs whose ``job`` is ``job``."""

    def register(fn: Reader) -> Reader:
        READERS[job] = fn
        return fn

    return register


class RunNotFoundError(KgAgentsError):
    """No stored run has the id the user gave (or the prefix is ambiguous)."""


def find_run(graph: Graph, run_id: str) -> dict[str, Any]:
    """The properties of the run with id ``run_id``, or of the one run whose id starts with it."""
    rows = [r["run"] for r in graph.run("report/run", run_id=run_id)]
    exact = [r for r in rows if r["id"] == run_id]
    if exact:
        return exact[0]
    if not rows:
        raise RunNotFoundError(f"no run with id '{run_id}' in the graph; `kgagents stats` lists the latest runs")
    if len(rows) > 1:
        raise RunNotFoundError(f"'{run_id}' is the start of several run ids ({', '.join(r['id'] for r in rows)}, "
                               "…): give more of the id")
    return rows[0]


def build_report(graph: Graph, run_id: str, reference: Path | None = None) -> RunReport:
    """The report of one stored run; ``reference``: an alignment file to score a matching run against."""
    run = find_run(graph, run_id)
    job = str(run.get("job") or "unknown")
    read = READERS.get(job, _generic)
    report = read(graph, run, reference)
    report.scores = {**stored_scores(run), **report.scores}
    report.outputs = [PurposeOutcomes(**row) for row in graph.run("report/llm_outcomes", run_id=run["id"])]
    status = run.get("status")
    if status == "failed":
        report.notes.insert(0, f"this run FAILED: {run.get('error') or 'no error recorded'}")
    elif status == "running":
        report.notes.insert(0, "this run did not finish (status running): it is still running, or its process was "
                               "killed; its numbers are partial")
    return report


def _llm(graph: Graph, run: Mapping[str, Any]) -> list[dict[str, Any]]:
    return graph.run("report/llm_by_purpose", run_id=run["id"])


def _mode(run: Mapping[str, Any]) -> str:
    return f"[{run.get('status', 'status unknown')}, {run.get('mode', '?')}, model: {run.get('model') or 'none'}]"


def stored_scores(run: Mapping[str, Any], names: tuple[str, ...] = ()) -> dict[str, float]:
    """The run's headline score (under its metric's name) and then each of ``names`` it stored, in that order."""
    scores: dict[str, float] = {}
    if run.get("metric") and isinstance(run.get("score"), (int, float)):
        scores[str(run["metric"])] = float(run["score"])
    for name in names:
        if isinstance(run.get(name), (int, float)) and not isinstance(run.get(name), bool):
            scores.setdefault(name, float(run[name]))
    return scores


def _generic(graph: Graph, run: dict[str, Any], reference: Path | None) -> RunReport:
    job = str(run.get("job") or "unknown")
    return RunReport(run["id"], job, f"{job} run {run['id']} {_mode(run)}", "score",
                     stages=stage_rows(stage_seconds(run), _llm(graph, run), {}))


# -- ontology matching ------------------------------------------------------------------------------------
def _channel_group(channels: list[str] | None) -> str:
    """Where a matching pair came from: the lexical pre-match, structural propagation, or vector retrieval."""
    channels = channels or []
    if channels and channels[0].startswith("background:"):
        return "background knowledge"
    if "lexical:contained" in channels:
        return "lexical containment"
    if any(c.startswith("lexical:") for c in channels):
        return "lexical pre-match"
    if channels == ["structural"]:
        return "structural propagation"
    return "retrieval (" + "+".join(sorted(channels)) + ")"


def _matching_reference(graph: Graph, run: Mapping[str, Any], path: Path | None) -> tuple[Alignment, str, bool] | None:
    """(alignment, where it came from, oriented source→target): the given file, else the file the run was scored
    against if it still exists, else the loaded alignment with the most links between the two ontologies."""
    stored = run.get("reference")
    for candidate in (path, Path(stored) if stored else None):
        if candidate is not None:
            if not candidate.is_file():
                if candidate is path:
                    raise KgAgentsError(f"reference file {candidate} not found")
                continue
            return read_alignment_file(candidate), str(candidate), True
    loaded = graph.run("report/loaded_references", source=run["source"], target=run["target"])
    if not loaded:
        return None
    best = loaded[0]
    forward = best["forward"] * 2 >= best["links"]
    return stored_alignment(graph, best["name"]), f"loaded alignment '{best['name']}'", forward


@reader("matching")
def matching(graph: Graph, run: dict[str, Any], path: Path | None) -> RunReport:
    rows = graph.run("report/matching_pairs", run_id=run["id"])
    # runs written before the confidence (or the cosine) was stored have none: the older number is shown, named
    field, label = next(((f, lab) for f, lab in (("confidence", "calibrated confidence"),
                                                 ("similarity", "best channel cosine (lexical matches = 1)"))
                         if all(row[f] is not None for row in rows)),
                        ("score", "fused rank score (pre-match 1, structural 0)"))
    report = RunReport(run["id"], "matching", f"matching {run['source']} → {run['target']} {_mode(run)}", label)
    for row in rows:
        report.predictions.append(Prediction(row["source"], row["target"], float(row[field]),
                                             _channel_group(row["channels"])))
    found = _matching_reference(graph, run, path)
    if found is not None:
        alignment, name, forward = found
        alignment, check = declared_and_checked(graph, alignment, [run["source"], run["target"]])
        pairs = equivalence_pairs(alignment)
        report.reference = Reference(name, frozenset(pairs if forward else {(b, a) for a, b in pairs}))
        report.notes += check.warnings()
    else:
        report.notes.append("no reference: give --reference FILE or load one (`kgagents load alignment`) "
                            "for precision/recall against threshold")
    report.stages = stage_rows(stage_seconds(run), _llm(graph, run), MATCHING_PURPOSES, MATCHING_STAGES)
    return report


# -- entity alignment -------------------------------------------------------------------------------------
def _gold(graph: Graph, dataset: str, sources: set[str]) -> Reference | None:
    """Test gold links of the sources a run covered (never train links: those were its seeds)."""
    pairs = frozenset((s, t) for s, t, split in gold_links(graph, dataset) if split == "test" and s in sources)
    return Reference(f"test gold links of {dataset} ({len(pairs)} covered by the run)", pairs) if pairs else None


@reader("ea-retrieval")
def ea_retrieval(graph: Graph, run: dict[str, Any], path: Path | None) -> RunReport:
    report = RunReport(run["id"], "ea-retrieval", f"EA candidate retrieval on {run.get('dataset')} (no LLM)",
                       "fused retrieval score of the rank-1 candidate")
    report.predictions = [Prediction(r["source"], r["target"], float(r["score"]), "rank-1 candidate")
                          for r in graph.run("report/ea_top_candidates", run_id=run["id"])]
    report.reference = _gold(graph, str(run.get("dataset")), {p.source for p in report.predictions})
    report.stages = stage_rows(stage_seconds(run), _llm(graph, run), {})
    return report


@reader("ea-agent")
def ea_agent(graph: Graph, run: dict[str, Any], path: Path | None) -> RunReport:
    report = RunReport(run["id"], "ea-agent", f"EA-Agent on {run.get('dataset')} {_mode(run)}",
                       "score of the chosen target")
    report.predictions = [Prediction(r["source"], r["target"], float(r["score"] or 0.0),
                                     "path " + " > ".join(r["path"] or ["?"]))
                          for r in graph.run("report/ea_alignments", run_id=run["id"])]
    sources = {r["source"] for r in graph.run("report/ea_sources", run_id=run["id"])}
    report.reference = _gold(graph, str(run.get("dataset")), sources | {p.source for p in report.predictions})
    report.stages = stage_rows(stage_seconds(run), _llm(graph, run), EA_AGENT_PURPOSES,
                               list(EA_AGENT_PURPOSES.values()))
    return report


# -- KG question answering --------------------------------------------------------------------------------
@reader("kgqa")
def kgqa(graph: Graph, run: dict[str, Any], path: Path | None) -> RunReport:
    """Each question's first answer with the agent's confidence in it; where the questions had gold answers, the
    curve is the share right (as the run scored them, Hits@1) among the answers at or above each confidence."""
    from kgagents.agent.kgqa.results import KGQARun

    rows = graph.run("report/kgqa_answers", run_id=run["id"])
    on = " / ".join(str(run[k]) for k in ("kg", "dataset") if run.get(k))
    report = RunReport(run["id"], "kgqa", f"KGQA on {on} {_mode(run)}", "confidence of the answer",
                       unit="questions", scores=stored_scores(run, KGQARun.SCORES))
    gold: set[tuple[str, str]] = set()
    for r in rows:
        first = (r["answer"] or "").split("\n")[0] or "(no answer)"
        report.predictions.append(Prediction(r["question_id"], first, float(r["confidence"] or 0.0),
                                             f"decided by {r['decided_by'] or '?'}"))
        if r["correct"] is not None:  # a question with gold answers: right as scored, else its first gold answer
            gold.add((r["question_id"], first if r["correct"] else f"gold: {(r['gold'] or ['?'])[0]}"))
    if gold:
        report.reference = Reference(f"the gold answers of {len(gold)} questions (right as the run scored them)",
                                     frozenset(gold))
    else:
        report.notes.append("the questions had no gold answers: no precision/recall")
    report.stages = stage_rows(stage_seconds(run), _llm(graph, run), {})
    return report


# -- ontology-to-tools extraction ------------------------------------------------------------------------
@reader("extraction")
def extraction(graph: Graph, run: dict[str, Any], path: Path | None) -> RunReport:
    """What the run wrote through the tools (documents, instances, assertions) and its Text2KGBench scores when
    its documents carried expected triples; an extraction scores no pairs, so there is no histogram."""
    from kgagents.metrics.text2kgbench import METRICS

    report = RunReport(run["id"], "extraction", f"extraction into {run.get('abox') or run.get('abox_prefix') or '?'} "
                       f"{_mode(run)}", "score", unit="triples", scores=stored_scores(run, METRICS))
    written = graph.run("report/extraction_written", run_id=run["id"])
    if written:
        w = written[0]
        report.notes.append(f"written through the tools: {w['instances']} instances, {w['assertions']} assertions "
                            f"in {w['documents']} A-Box{'' if w['documents'] == 1 else 'es'}")
    if not report.scores:
        report.notes.append("the documents carried no expected triples: the run is not scored")
    report.stages = stage_rows(stage_seconds(run), _llm(graph, run), {})
    return report
