"""A path memory without labelled questions: the KG's own relation paths, with questions written for them.

A user who loads their own KG has no answered questions to learn from. The KG itself says which relation paths
exist and how often; what it cannot say is how people ask for them. ``kgqa bootstrap`` therefore:

1. **samples path types** (:func:`sample_paths`): a seeded sample of topic entities, and from each the relation
   paths of 1 to ``depth`` relations that leave it (level by level in Cypher, ``kgqa/bootstrap_expand``: a few
   seeded branches per level, end sets too large to walk on are not walked on). A path type's *support* is how
   many sampled topics have it, so frequent kinds of facts are preferred; every instance keeps its topic and its
   end set — the answer set, computed in Cypher, so a generated question is never wrong;
2. **writes questions** for each chosen path type: templates over the relation labels, one step at a time, the
   inverse direction worded as such (:func:`template_questions`); where a chat model is configured, natural
   paraphrases of a seeded sample of path types, JSON-schema constrained (:func:`paraphrase_prompt`), cached in
   the graph by the job so that a re-run costs nothing;
3. the job (:mod:`kgagents.jobs.kgqa_bootstrap`) learns them into the memory as ``(:PathExample {source:
   'bootstrap'})``, apart from labelled examples, which the memory's calibrated vote threshold
   (:mod:`~kgagents.agent.kgqa.calibration`) then keeps from voting where they are not close enough.

Nothing here names a relation of any dataset: the words come from the KG's relation labels (its property ids when
it has none).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from kgagents.agent.kgqa.paths import PathKey, readable, split_step, step
from kgagents.agent.kgqa.questions import PLACEHOLDER, masked
from kgagents.graph.connection import Graph

#: frontiers per bootstrap_expand query
FRONTIER_BATCH = 200


@dataclass
class Instance:
    """One path from one topic: its end set (the answers, best supported first, at most the cap) and size."""

    topic: str
    topic_name: str
    path: PathKey
    size: int
    answers: list[str]
    answer_names: list[str]


@dataclass
class PathType:
    """A relation path and the sampled topics that have it (``support``: how many)."""

    path: PathKey
    instances: list[Instance] = field(default_factory=list)

    @property
    def support(self) -> int:
        return len({i.topic for i in self.instances})


def sample_paths(graph: Graph, kg: str, *, topics: int, depth: int, branch: int, max_frontier: int,
                 max_answers: int, seed: int) -> tuple[dict[PathKey, PathType], int]:
    """Path types of ``kg`` from a seeded sample of ``topics`` entities (see the module docstring), and how many
    topics were sampled. At each level each topic walks on along at most ``branch`` of its paths (seeded), those
    whose end sets hold at most ``max_frontier`` entities; an instance is kept when its answer set holds at most
    ``max_answers`` (a question with thousands of answers is not one people ask)."""
    rng = random.Random(seed)
    ids = [r["id"] for r in graph.run("kgqa/bootstrap_entities", kg=kg)]
    chosen = sorted(rng.sample(ids, min(topics, len(ids))))
    names = {r["id"]: r["name"] for r in graph.run("kgqa/entity_names", kg=kg, ids=chosen)}
    found: dict[PathKey, PathType] = {}
    frontiers = [{"key": json.dumps([t]), "topic": t, "ids": [t]} for t in chosen]
    for level in range(1, depth + 1):
        rows: list[dict[str, Any]] = []
        for start in range(0, len(frontiers), FRONTIER_BATCH):
            rows += graph.run("kgqa/bootstrap_expand", kg=kg, frontiers=frontiers[start:start + FRONTIER_BATCH],
                              cap=max(max_frontier, max_answers))
        by_topic: dict[str, list[tuple[PathKey, dict[str, Any]]]] = {}
        for row in rows:
            topic, *prefix = json.loads(row["key"])
            key = (*prefix, step(row["relation"], row["forward"]))
            by_topic.setdefault(topic, []).append((tuple(key), row))
            if row["size"] <= max_answers:
                found.setdefault(tuple(key), PathType(tuple(key))).instances.append(Instance(
                    topic, names.get(topic, topic), tuple(key), row["size"], row["ends"][:max_answers],
                    row["names"][:max_answers]))
        if level == depth:
            break
        frontiers = []
        for topic in sorted(by_topic):
            walkable = sorted((k, r) for k, r in by_topic[topic] if r["entities"] and r["size"] <= max_frontier)
            for key, row in rng.sample(walkable, min(branch, len(walkable))):
                frontiers.append({"key": json.dumps([topic, *key]), "topic": topic, "ids": row["entities"]})
        if not frontiers:
            break
    return found, len(chosen)


def choose_paths(found: Mapping[PathKey, PathType], *, max_paths: int, min_support: int) -> list[PathType]:
    """The path types questions are written for: those at least ``min_support`` sampled topics have (a path seen
    once may be a quirk of one entity), most supported first, at most ``max_paths``; cycles that only come back
    the way they went (a relation followed and at once followed back) are left out — the topic's own neighbours
    through a shared value are kept when the two relations differ."""
    kept = [p for p in found.values() if p.support >= min_support and not _back_and_forth(p.path)]
    kept.sort(key=lambda p: (-p.support, len(p.path), p.path))
    return kept[:max_paths]


def _back_and_forth(path: PathKey) -> bool:
    return any(split_step(a)[0] == split_step(b)[0] and split_step(a)[1] != split_step(b)[1]
               for a, b in zip(path, path[1:], strict=False))


def _nested(path: PathKey, names: Mapping[str, str], forward: str, inverse: str) -> str:
    """The path as a noun phrase about the topic X, built outward from it: each forward step wraps the phrase so
    far as ``forward``, each inverse step as ``inverse`` (``{r}``: the relation's words, ``{x}``: the phrase)."""
    phrase = PLACEHOLDER
    for s in path:
        relation, is_forward = split_step(s)
        words = readable(names.get(relation, relation))
        phrase = (forward if is_forward else inverse).format(r=words, x=phrase)
    return phrase


#: the template shapes: (question opening, forward step, inverse step)
TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("what is", "the {r} of {x}", "that whose {r} is {x}"),
    ("what are", "the {r} of {x}", "the things with {r} {x}"),
    ("what is", "{x}'s {r}", "something with {r} {x}"),
)


def template_questions(path: PathKey, names: Mapping[str, str]) -> list[str]:
    """Masked questions (topic ``X``) for a path, one per template shape, from its relations' labels."""
    out = []
    for opening, forward, inverse in TEMPLATES:
        out.append(" ".join(f"{opening} {_nested(path, names, forward, inverse)}".split()))
    return list(dict.fromkeys(out))


# -- paraphrases by a chat model -----------------------------------------------------------------------------
PARAPHRASE_SYSTEM = (
    "You write the questions people ask about facts in a knowledge graph. You are shown a chain of relations that "
    "leads from an entity X to the answers, with one example of X and its answers. Write different natural "
    "questions that ask for exactly those answers, as a person would type them. Always write the entity as the "
    "single capital letter X; never name the example entity or the answers.")


class Paraphrases(BaseModel):
    """The model's questions for one path (each must contain the placeholder X)."""

    questions: list[str] = Field(min_length=1, max_length=8)


def path_steps(path: PathKey, names: Mapping[str, str]) -> str:
    """The path for the prompt: ``X → directed by (inverse: X is the directed by of it) → release year``."""
    parts = [PLACEHOLDER]
    for s in path:
        relation, forward = split_step(s)
        words = readable(names.get(relation, relation))
        parts.append(words if forward else f"{words} (inverse: the previous entity is the {words} of it)")
    return " → ".join(parts)


def paraphrase_prompt(path: PathKey, names: Mapping[str, str], example: Instance, count: int) -> str:
    """The user prompt asking for ``count`` questions about ``path``, with one instance as its example."""
    answers = ", ".join(example.answer_names[:3]) + (f", … ({example.size} in all)" if example.size > 3 else "")
    return (f"Relation chain: {path_steps(path, names)}\n"
            f"Example: X = {example.topic_name}; the answers are: {answers}\n"
            f"Template question: {template_questions(path, names)[0]}\n"
            f"Write {count} different natural questions that ask for the answers, each with the letter X for the "
            "entity.")


_PLACEHOLDER_WORD = re.compile(rf"(?<![\w]){PLACEHOLDER}(?![\w])")


def usable_paraphrases(questions: Sequence[str], example: Instance) -> list[str]:
    """The model's questions as masked questions: the example topic's name, where the model wrote it in spite of
    the instruction, masked as X (a small model often does); kept when X is there once and no example answer is
    named (a question that gives its answer away teaches nothing); whitespace normalised, each once."""
    out = []
    for q in questions:
        text = masked(" ".join(q.split()), [example.topic_name])
        lowered = text.lower()
        if len(_PLACEHOLDER_WORD.findall(text)) != 1 or any(
                len(a) > 1 and re.search(rf"(?<!\w){re.escape(a.lower())}(?!\w)", lowered)
                for a in example.answer_names[:20]):
            continue
        out.append(text)
    return list(dict.fromkeys(out))
