"""The KGQA scorer: Hits@1 by exact match after light normalisation, any-of over the gold answers; and answer-set
precision / recall / F1 (MetaQA's answers are sets).

Hits@1: the prediction is the answer's FIRST item: its first non-empty line (an agent answers a list one item per line),
or — when that line does not match and holds commas — the line's first comma-separated part. It is a hit when
it equals (after :func:`normalise`) any gold answer's name or alias, or when the entity the agent resolved it to
is a gold answer's KG id (Wikidata QIDs). Normalisation is light on purpose: lower case, underscores as spaces,
runs of whitespace collapsed, surrounding quotes and a trailing full stop removed — nothing dataset-specific.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgagents.loaders.qa import EntityRef

_WRAPPING = "\"'`“”‘’"


def normalise(text: str) -> str:
    """Lower case, ``_`` → space, whitespace collapsed, surrounding quotes and a trailing '.' removed."""
    text = " ".join(text.replace("_", " ").split())
    text = re.sub(r"\.$", "", text.strip(_WRAPPING)).strip().strip(_WRAPPING).strip()
    return text.lower()


def first_item(answer: str) -> str:
    """The answer's first non-empty line ('' for an empty answer)."""
    return next((line.strip() for line in answer.splitlines() if line.strip()), "")


def hits_at_1(answer: str, top_entity: str | None, gold: Sequence[EntityRef]) -> bool:
    """Whether the answer's first item is one of the gold answers (see the module docstring)."""
    if top_entity is not None and top_entity in {g.id for g in gold if g.id}:
        return True
    names = {normalise(n) for g in gold for n in (g.name, *g.aliases)}
    first = first_item(answer)
    if not first:
        return False
    return normalise(first) in names or ("," in first and normalise(first.split(",")[0]) in names)


def contains_gold(entities: Sequence[tuple[str, str]], gold: Sequence[EntityRef]) -> bool:
    """Whether any of ``entities`` ((id, name) pairs, e.g. an observation's far ends) is a gold answer — the
    observation's answer recall, i.e. whether the answer was in front of the agent at all."""
    ids = {g.id for g in gold if g.id}
    names = {normalise(n) for g in gold for n in (g.name, *g.aliases)}
    return any(e in ids or normalise(name) in names for e, name in entities)


def set_scores(predicted: Sequence[tuple[str, str]], gold: Sequence[EntityRef]) -> tuple[float, float, float]:
    """(precision, recall, F1) of a predicted answer *set* ((id, name) pairs) against the gold answers: a predicted
    entity is right when its id is a gold id or its name (normalised) a gold name or alias; every gold answer found
    counts once. An empty prediction scores 0 / 0 / 0."""
    if not predicted or not gold:
        return 0.0, 0.0, 0.0
    gold_ids = {a.id for a in gold if a.id is not None}
    gold_names = {normalise(n) for a in gold for n in (a.name, *a.aliases)}
    pred_ids = {e for e, _ in predicted}
    pred_names = {normalise(name) for _, name in predicted}
    right = sum(e in gold_ids or normalise(name) in gold_names for e, name in predicted)
    found = sum((a.id is not None and a.id in pred_ids) or any(normalise(n) in pred_names for n in (a.name, *a.aliases))
                for a in gold)
    precision, recall = right / len(predicted), found / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
