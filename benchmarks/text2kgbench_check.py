"""``kgagents bench text2kgbench-check``: the extraction check's two floors, learned on train sentences only.

Input: the results file of a recording run on the train split — `bench text2kgbench --split train --check-floor
-99 --propose-floor -99` keeps every stated and proposed fact and records each one's log-odds of "yes" (the
model's answer to "does the text state this fact?"). Each written triple is traced to its check (the same
normalised subject, relation and object); raising a floor removes the triples whose check is below it. The floors
chosen are those with the best Text2KGBench F1 (mean over ontologies of the mean sentence F1, the benchmark's
global figure) over a grid; ties: the higher floors. Triples no check produced (repairs re-typing an entity)
stay whatever the floors, so the figures are an estimate; the test run with the chosen floors is the measurement.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from benchmarks.provenance import file_slug, write_results
from kgagents.errors import InputFileError, KgAgentsError
from kgagents.metrics.text2kgbench import Sentence, load_ontology_data, normalise_triple, sentence_prf

#: floors tried for either source: log-odds from -5 to 5 in steps of 0.25 (the check's log-odds are clipped to
#: ±5), plus "keep every one" for stated facts and "propose none" for proposals
GRID = tuple(round(-5 + 0.25 * i, 2) for i in range(41))
KEEP_ALL, NONE = float("-inf"), float("inf")


def _traced(doc: Mapping[str, Any]) -> list[tuple[tuple[str, str, str], str | None, float]]:
    """Each written triple with the source and log-odds of its best-scoring check (None: no check wrote it)."""
    best: dict[str, tuple[str, float]] = {}
    for c in doc["checks"]:
        key = normalise_triple((c["subject"], c["relation"], c["object"]))
        if key not in best or c["log_odds"] > best[key][1]:
            best[key] = (c["source"], float(c["log_odds"]))
    out = []
    for s, r, o in doc["written"]:
        source, odds = best.get(normalise_triple((s, r, o)), (None, 0.0))
        out.append(((s, r, o), source, odds))
    return out


def _kept(traced: Sequence[tuple[tuple[str, str, str], str | None, float]], stated: float, proposed: float
          ) -> list[tuple[str, str, str]]:
    return [t for t, source, odds in traced
            if source is None or odds >= (stated if source == "stated" else proposed)]


def learn(result: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """The floors with the best train F1 on a recording run's ``result`` (see the module docstring)."""
    if result.get("split") != "train":
        raise KgAgentsError("text2kgbench-check learns on a train-split run only (bench text2kgbench --split train)")
    settings = result.get("agent_settings") or {}
    if settings.get("check_min_log_odds") is None or settings.get("propose_min_log_odds") is None:
        raise KgAgentsError("the run recorded no checks: run bench text2kgbench --split train --check-floor -99 "
                            "--propose-floor -99 first")
    docs: dict[str, list[tuple[Sentence, list[Any]]]] = defaultdict(list)
    graded: dict[str, list[tuple[float, bool]]] = {"stated": [], "proposed": []}  # (log-odds, in the ground truth)
    for oid, part in result["per_ontology"].items():
        sentences = {s.id: s for s in load_ontology_data(root, oid, "train").sentences}
        for doc in part.get("checked", []):
            sentence = sentences[doc["id"]]
            docs[oid].append((sentence, _traced(doc)))
            truth = {normalise_triple(t) for t in sentence.triples}
            for c in doc["checks"]:
                graded[c["source"]].append((float(c["log_odds"]), normalise_triple(
                    (c["subject"], c["relation"], c["object"])) in truth))

    def score(stated: float, proposed: float) -> float:
        return fmean(fmean(sentence_prf(s, _kept(t, stated, proposed))[2] for s, t in part)
                     for part in docs.values() if part)

    grid = [(s, p) for s, p in itertools.product((KEEP_ALL, *GRID), (*GRID, NONE))]
    scored = [(score(s, p), s, p) for s, p in grid]
    best = max(scored, key=lambda x: (round(x[0], 6), x[1], x[2]))
    return {
        "benchmark": "Text2KGBench extraction check: floors learned on train sentences",
        "model": result["model"], "recording_run": result.get("run_id"), "recording_command": result.get("command"),
        "recording_commit": result.get("git_commit"), "split": "train", "data": result.get("data"),
        "sample_per_ontology": result.get("sample_per_ontology"), "seed": result.get("seed"),
        "sentences": sum(len(v) for v in docs.values()), "ontologies": len(docs),
        "checks": {src: len(rows) for src, rows in graded.items()},
        "in_ground_truth": {src: sum(y for _, y in rows) for src, rows in graded.items()},
        "auc": {src: _auc(rows) for src, rows in graded.items()},
        "f1_without_check": round(score(KEEP_ALL, NONE), 4),
        "f1_chosen": round(best[0], 4),
        "chosen": {"check_min_log_odds": _floor(best[1]), "propose_min_log_odds": _floor(best[2])},
        "rule": "best global F1 (mean over ontologies of the mean sentence F1) over the grid; ties: higher floors",
        "grid": {"floors": list(GRID), "stated_also": "keep all", "proposed_also": "none"},
    }


def _auc(rows: Sequence[tuple[float, bool]]) -> float | None:
    """How well the log-odds rank the checked facts: the chance that a fact in the ground truth scores above one
    that is not (ties half), None without both kinds."""
    right = [o for o, y in rows if y]
    wrong = [o for o, y in rows if not y]
    if not right or not wrong:
        return None
    return round(sum((a > b) + 0.5 * (a == b) for a in right for b in wrong) / (len(right) * len(wrong)), 3)


def _floor(value: float) -> float | None:
    """A floor as a setting: None for 'propose none'; 'keep all' as the lowest log-odds there are."""
    if value == NONE:
        return None
    return -5.0 if value == KEEP_ALL else value


def markdown(r: Mapping[str, Any]) -> str:
    chosen = r["chosen"]
    flags = " ".join(f"--{k}-floor {v}" for k, v in (("check", chosen["check_min_log_odds"]),
                                                      ("propose", chosen["propose_min_log_odds"])) if v is not None)
    return "\n".join([
        f"# {r['benchmark']}", "", f"Command: `{r['command']}`  ", f"Model: {r['model']}  ",
        f"Recording run (train split, {r['sample_per_ontology']} sentences per ontology, seed {r['seed']}, "
        f"{r['sentences']} sentences): `{r['recording_command']}` (commit {str(r['recording_commit'])[:8]})", "",
        f"Checks recorded: {r['checks']['stated']} stated facts ({r['in_ground_truth']['stated']} in the ground "
        f"truth), {r['checks']['proposed']} proposals ({r['in_ground_truth']['proposed']}); how well the log-odds "
        f"rank them (area under the ROC curve): {r['auc']}.", "",
        "| floors | train F1 (estimate) |", "|---|---|",
        f"| no check (every stated fact, no proposals) | {r['f1_without_check']} |",
        f"| chosen: {chosen} | **{r['f1_chosen']}** |", "",
        f"Rule: {r['rule']}. Use: `kgagents bench text2kgbench {flags}`.", ""])


def read_recording(path: Path) -> dict[str, Any]:
    """A results file of `bench text2kgbench`, or an error naming the file and what is wrong with it."""
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc
    missing = [k for k in ("model", "per_ontology") if not isinstance(result, dict) or k not in result]
    if missing:
        raise InputFileError(f"{path}: not a results file of `kgagents bench text2kgbench` (no {', '.join(missing)})")
    return result


def run(path: Path, root: Path, out: Path | None) -> dict[str, Any]:
    result = learn(read_recording(path), root)
    if out is not None:
        write_results(out, f"extraction/text2kgbench/check_train_{file_slug(result['model'])}", result, markdown)
    return result
