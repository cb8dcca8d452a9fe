"""The chat model writes a question's relation chain, taught by examples the KG writes about itself.

Why: the zero-shot scorer and the model's relation check read a question's relations one at a time, so they cannot
see a chain's order, direction or a relation taken twice — "who starred together with X" is ``starred actors
(inverse) → starred actors``, which both read as "starred actors" and answer with one step. A small chat model
can write the whole chain when it is shown how questions map to chains *on this KG*: few-shot examples written by
the bootstrap's templates (:func:`~kgagents.agent.kgqa.bootstrap.template_questions`) for the KG's own most
frequent path types, found by :func:`~kgagents.agent.kgqa.bootstrap.sample_paths` — every one-relation type and a
few longer ones, each about one of its sampled topics by name — and every relation with one stored fact, so the
model sees which side is its subject. No labelled question is used and nothing names a dataset's relations.

The chain comes back as JSON constrained to the KG's steps (:meth:`ChainPrompt.schema`); the agent adds
``chain_weight`` to the observed path equal to it (the settings' ``chain_weight``), and walks it on its own when
the observation did not reach it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.agent.kgqa.bootstrap import choose_paths, sample_paths, template_questions
from kgagents.agent.kgqa.paths import PathKey, Step, readable, split_step, step
from kgagents.agent.kgqa.questions import PLACEHOLDER
from kgagents.graph.connection import Graph
from kgagents.llm.client import Message
from kgagents.llm.structured import extract_json

INVERSE_WORDS = " (inverse)"

CHAIN_SYSTEM = (
    "You translate a question about a knowledge graph into the chain of relations that leads from the entity in "
    "brackets to the answer. The relations, each with one stored fact (subject, relation, object):\n{facts}\n"
    "A step follows a relation from its subject to its object (written as the relation), or back from its object "
    "to its subject (written as the relation followed by ' (inverse)'). Reply with one JSON object "
    '{{"chain": [the steps in order, starting from the entity in brackets]}}.')


@dataclass(frozen=True)
class ChainPrompt:
    """What the model is shown for one KG: the system text (relations and facts), the few-shot turns, and the steps
    it may write (their text → the step)."""

    system: str
    shots: tuple[Message, ...]
    steps: Mapping[str, Step]
    depth: int

    def messages(self, question: str) -> list[Message]:
        return [{"role": "system", "content": self.system}, *self.shots, {"role": "user", "content": question}]

    def schema(self) -> dict[str, Any]:
        """One JSON object whose ``chain`` lists 1 to ``depth`` of the KG's steps."""
        return {"type": "object", "required": ["chain"], "properties": {"chain": {
            "type": "array", "minItems": 1, "maxItems": self.depth,
            "items": {"type": "string", "enum": sorted(self.steps)}}}}

    def parse(self, reply: str) -> PathKey | None:
        """The chain a reply writes, as a path (None: not a JSON object, or a step the KG does not have)."""
        try:
            chain = extract_json(reply).get("chain")
        except ValueError:
            return None
        if not isinstance(chain, list) or not chain or not all(str(s) in self.steps for s in chain):
            return None
        return tuple(self.steps[str(s)] for s in chain)


def step_text(value: Step, names: Mapping[str, str]) -> str:
    """A step as the model reads and writes it: ``directed by`` or ``directed by (inverse)``."""
    relation, forward = split_step(value)
    words = readable(names.get(relation, relation))
    return words if forward else words + INVERSE_WORDS


def chain_prompt(graph: Graph, kg: str, names: Mapping[str, str], *, depth: int, one_hop: int, longer: int,
                 seed: int) -> ChainPrompt:
    """The prompt for ``kg``: its relations with one fact each, and examples for its most supported path types
    (at most ``one_hop`` one-relation ones and ``longer`` longer ones, up to ``depth`` relations), sampled as the
    bootstrap samples them (seeded)."""
    found, _ = sample_paths(graph, kg, topics=300, depth=depth, branch=3, max_frontier=50, max_answers=50,
                            seed=seed)
    types = choose_paths(found, max_paths=400, min_support=2)
    chosen = [t for t in types if len(t.path) == 1][:one_hop]
    multi = [t for t in types if len(t.path) > 1]
    per_length = max(1, longer // max(1, depth - 1))
    for length in range(2, depth + 1):
        chosen += [t for t in multi if len(t.path) == length][:per_length]
    rng = random.Random(seed)
    shots: list[Message] = []
    for t in chosen:
        topic = t.instances[0].topic_name
        question = rng.choice(template_questions(t.path, names)).replace(PLACEHOLDER, f"[{topic}]", 1)
        shots += [{"role": "user", "content": question},
                  {"role": "assistant", "content": json.dumps({"chain": [step_text(s, names) for s in t.path]})}]
    facts = [f"- {readable(names.get(r['type'], r['type']))}: ({r['subject']}, "
             f"{readable(names.get(r['type'], r['type']))}, {r['object']})"
             for r in graph.run("kgqa/relation_facts", kg=kg, types=sorted(names))]
    steps = {step_text(step(r, f), names): step(r, f) for r in sorted(names) for f in (True, False)}
    return ChainPrompt(CHAIN_SYSTEM.format(facts="\n".join(facts)), tuple(shots), steps, depth)


def topics_bracketed(question: str, names: Sequence[str]) -> str:
    """The question as the examples write theirs: its topics' names in brackets (the first occurrence of each,
    case-insensitive) — unchanged when it brackets them already; a topic its text does not name is added in
    brackets at the end, so the model still knows where the chain starts."""
    if "[" in question:
        return question
    out = question
    for name in dict.fromkeys(n for n in names if n):
        found = re.search(re.escape(name), out, flags=re.IGNORECASE)
        out = (f"{out[:found.start()]}[{found.group(0)}]{out[found.end():]}" if found else f"{out} [{name}]")
    return out
