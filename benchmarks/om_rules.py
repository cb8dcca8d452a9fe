"""Does each matching rule earn its place on tasks it was not designed on? Every rule switched one at a time, on
the conference pairs split into a tuning and a reporting half (seeded) and on small ontology pairs of our own making
from other domains (``tests/fixtures/matching/{vehicles,cooking,materials,commonkg}``: general vocabulary, a
materials-science pair and a common-knowledge class pair, written for this before any matcher ran on them, with
hand-made references). ``kgagents bench om-rules`` writes ``om/rules/<run>.json``.

What a results file records: for each rule, the mean F1 over the **decision groups** (the conference tuning half's
macro F1 and each own pair's F1) with the rule on and off; the rule *pays* when it is higher with the rule on. The
conference reporting half is reported, never decided on. A threshold sweep (``--threshold``) is recorded the same
way.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import file_slug, write_results
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import PairRun, ensure_loaded, match_pair
from kgagents.llm import ChatModel
from kgagents.metrics.oaei import Scores, macro_average
from kgagents.paths import data_dir

#: the boolean rules switched one at a time (from their default to the other value)
RULES = ("lexical_prematch", "structural", "contrasts", "domain_range", "structural_rounds_until_stable",
         "containment", "variants", "typos", "acronyms", "synonyms", "substitution", "repair", "property_ends",
         "skip_shared", "one_word_stems", "containment_no_subclasses", "background_veto", "background_stage_check",
         "background_duplicates", "background_corroboration", "lexical_tiebreak", "phrase_substitution",
         "containment_same_head", "llm_synonyms", "validate_lexical_rules")
#: our own pairs (source file, target file, reference), relative to the repository
OWN_PAIRS = {
    "vehicles": ("vehicles/vehicles_a.ttl", "vehicles/vehicles_b.ttl", "vehicles/reference.rdf"),
    "cooking": ("cooking/cooking_a.ttl", "cooking/cooking_b.ttl", "cooking/reference.rdf"),
    "materials": ("materials/materials_a.ttl", "materials/materials_b.ttl", "materials/reference.rdf"),
    "commonkg": ("commonkg/commonkg_a.ttl", "commonkg/commonkg_b.ttl", "commonkg/reference.rdf"),
}
OWN_DIR = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "matching"
DECISION_GROUPS = ("conference_tuning", *OWN_PAIRS)


@dataclass(frozen=True)
class Task:
    """One source/target pair with its reference, in a group."""

    group: str
    name: str
    source: Path
    target: Path
    reference: Path


def conference_split(seed: int, data: Path | None = None) -> tuple[list[str], list[str]]:
    """(tuning, reporting): the 21 conference pairs shuffled with ``random.Random(seed)``, the first 10 tuning."""
    names = sorted(ref.stem for ref in ((data or data_dir("om", "conference")) / "reference").glob("*.rdf"))
    random.Random(seed).shuffle(names)
    half = len(names) // 2
    return sorted(names[:half]), sorted(names[half:])


def tasks(seed: int, data: Path | None = None) -> list[Task]:
    data = data or data_dir("om", "conference")
    tuning, reporting = conference_split(seed, data)
    onto = data / "ontologies"
    out = [Task(group, name, onto / f"{name.split('-')[0]}.owl", onto / f"{name.split('-')[1]}.owl",
                data / "reference" / f"{name}.rdf")
           for group, names in (("conference_tuning", tuning), ("conference_reporting", reporting)) for name in names]
    out += [Task(name, name, OWN_DIR / a, OWN_DIR / b, OWN_DIR / r) for name, (a, b, r) in OWN_PAIRS.items()]
    return out


def _run_all(graph: Graph, settings: MatchSettings, todo: Sequence[Task], embedder: Any,
             on_pair: Callable[[PairRun], None] | None, chat: ChatModel | None = None) -> dict[str, dict[str, Any]]:
    """Per group: macro P/R/F1 and per pair F1 (with ``chat``'s model when given)."""
    by_group: dict[str, list[tuple[str, Scores]]] = {}
    for task in todo:
        source, target = ensure_loaded(graph, task.source), ensure_loaded(graph, task.target)
        run = match_pair(graph, source, target, settings, embedder=embedder, reference=task.reference, chat=chat)
        assert run.scores is not None
        by_group.setdefault(task.group, []).append((task.name, run.scores))
        if on_pair is not None:
            on_pair(run)
    return {group: {**macro_average(s for _, s in rows).model_dump(),
                    "pairs": {name: round(s.f1, 4) for name, s in rows}}
            for group, rows in by_group.items()}


def _mean_decision_f1(groups: dict[str, dict[str, Any]]) -> float:
    return round(sum(groups[g]["f1"] for g in DECISION_GROUPS) / len(DECISION_GROUPS), 4)


def rules(graph: Graph, settings: MatchSettings, *, out: Path, seed: int, rules_: Sequence[str] = RULES,
          thresholds: Sequence[float] = (), variant: str | None = None,
          on_pair: Callable[[PairRun], None] | None = None, chat: ChatModel | None = None) -> dict[str, Any]:
    """The default settings and each rule switched, on every task; each threshold of ``thresholds`` likewise. With
    ``chat`` every run uses that model (``settings.mode`` says how); the file records the model and its server."""
    started = time.perf_counter()
    embedder = get_embedder()
    todo = tasks(seed)
    base = _run_all(graph, settings, todo, embedder, on_pair, chat)
    base_mean = _mean_decision_f1(base)
    rows = []
    for rule in rules_:
        flipped = settings.model_copy(update={rule: not getattr(settings, rule)})
        groups = _run_all(graph, flipped, todo, embedder, on_pair, chat)
        mean = _mean_decision_f1(groups)
        rows.append({"rule": rule, "default": getattr(settings, rule), "switched_to": not getattr(settings, rule),
                     "groups": groups, "decision_mean_f1": mean,
                     "gain_of_default": round(base_mean - mean, 4),
                     "pays": base_mean > mean if getattr(settings, rule) else mean > base_mean})
    sweep = []
    for threshold in thresholds:
        groups = _run_all(graph, settings.model_copy(update={"threshold": threshold}), todo, embedder, on_pair,
                          chat)
        sweep.append({"threshold": threshold, "groups": groups, "decision_mean_f1": _mean_decision_f1(groups)})
    tuning, reporting = conference_split(seed)
    result = {
        "benchmark": "OM rule ablation and threshold sweep on tasks the rules were not designed on",
        "mode": settings.mode, "model": chat.model_name if chat is not None else None,
        "settings": settings.model_dump(mode="json"),
        "split": {"seed": seed, "conference_tuning": tuning, "conference_reporting": reporting,
                  "own_pairs": {k: [str(Path("tests/fixtures/matching") / f) for f in v]
                                for k, v in OWN_PAIRS.items()}},
        "decision": "a rule pays when the mean F1 over the decision groups "
                    f"({', '.join(DECISION_GROUPS)}: the conference tuning half's macro F1 and each own pair's F1) "
                    "is higher with the rule on than off; the conference reporting half is reported, never decided "
                    "on",
        "default": {"groups": base, "decision_mean_f1": base_mean}, "rules": rows, "thresholds": sweep,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    model = [file_slug(chat.model_name)] if chat is not None else []
    stem = "_".join(["rules", settings.mode, *model, f"seed{seed}", *([file_slug(variant)] if variant else [])])
    write_results(out, f"om/rules/{stem}", result)
    return result
