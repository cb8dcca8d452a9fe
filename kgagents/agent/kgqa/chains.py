"""The chat model writes a question's relation chain, taught by examples the KG writes about itself.

Why: the zero-shot scorer and the model's relation check read a question's relations one at a time, so they cannot
see a chain's order, direction or a relation taken twice — "who starred together with X" is ``starred actors
(inverse) → starred actors``, which both read as "starred actors" and answer with one step. A small chat model
can write the whole chain when it is shown how questions map to chains *on this KG*: few-shot examples written by
the bootstrap's templates (:func:`~kgagents.agent.kgqa.bootstrap.template_questions`) for the KG's own most
frequent path types, found by :func:`~kgagents.agent.kgqa.bootstrap.sample_paths` — every one-relation type and a
few longer ones, each about one of its sampled topics by name — and every relation with one stored fact, so the
model sees which side is its subject. No labelled question is used and nothing names a dataset's relations.

The chain comes back as JSON constrained to the KG's relation names (:meth:`ChainPrompt.schema`), without
directions: the 1.5B model names a question's relations in order well but almost never writes a step as inverse
("the movies directed by [X]" is ``directed by`` to it, read from the question's side), while the KG knows which
way each relation goes from the topic. The agent adds ``chain_weight`` to every observed path whose relations, in
order, are the chain (the scorer ranks the directions among themselves), a share of it to paths that keep part of
the chain in order (:func:`chain_gain`), and walks the chain's paths on their own when the observation reached none
of them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.agent.kgqa.bootstrap import sample_paths, template_questions
from kgagents.agent.kgqa.paths import PathKey, readable, split_step, step
from kgagents.agent.kgqa.questions import PLACEHOLDER
from kgagents.agent.kgqa.settings import BootstrapSettings
from kgagents.graph.connection import Graph
from kgagents.llm.client import Message
from kgagents.llm.structured import extract_json

CHAIN_SYSTEM = (
    "You translate a question about a knowledge graph into the chain of relations that leads from the entity in "
    "brackets to the answer. The relations, each with one stored fact (subject, relation, object):\n{facts}\n"
    "Write the relations in the order the chain takes them, starting from the entity in brackets; a relation the "
    "chain takes twice (to things that share something with the entity) is written twice. Reply with one JSON "
    'object {{"chain": [relations]}}.')


#: a chain as the model writes it: relationship types in order, without directions (the KG says which way each
#: step goes from the topic: a person is the object of "directed by", a film its subject)
Chain = tuple[str, ...]


@dataclass(frozen=True)
class ChainPrompt:
    """What the model is shown for one KG: the system text (relations and facts), the few-shot turns, and the
    relations it may write (their words → the relationship type)."""

    system: str
    shots: tuple[Message, ...]
    relations: Mapping[str, str]
    depth: int

    def messages(self, question: str) -> list[Message]:
        return [{"role": "system", "content": self.system}, *self.shots, {"role": "user", "content": question}]

    def schema(self) -> dict[str, Any]:
        """One JSON object whose ``chain`` lists 1 to ``depth`` of the KG's relations."""
        return {"type": "object", "required": ["chain"], "properties": {"chain": {
            "type": "array", "minItems": 1, "maxItems": self.depth,
            "items": {"type": "string", "enum": sorted(self.relations)}}}}

    def to_json(self) -> str:
        return json.dumps({"system": self.system, "shots": list(self.shots), "relations": dict(self.relations),
                           "depth": self.depth}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ChainPrompt:
        data = json.loads(text)
        return cls(data["system"], tuple(data["shots"]), data["relations"], int(data["depth"]))

    def parse(self, reply: str) -> Chain | None:
        """The relations a reply writes, as relationship types (None: not a JSON object, or a relation the KG does
        not have)."""
        try:
            chain = extract_json(reply).get("chain")
        except ValueError:
            return None
        if not isinstance(chain, list) or not chain or not all(str(s) in self.relations for s in chain):
            return None
        return tuple(self.relations[str(s)] for s in chain)


def undirected(path: PathKey) -> Chain:
    """A path's relationship types in order, without their directions (what a written chain is compared with)."""
    return tuple(split_step(s)[0] for s in path)


def collapsed(chain: Chain) -> Chain:
    """A chain with each run of one relation written once: what a question often names — "the films that share
    directors with X" takes "directed by" there and back, and names it once."""
    return tuple(r for i, r in enumerate(chain) if i == 0 or chain[i - 1] != r)


def common(a: Chain, b: Chain) -> int:
    """The length of the longest common subsequence of two chains (relations in the same order, gaps allowed)."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b):
            diagonal, row[j + 1] = row[j + 1], diagonal + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


def chain_gain(taken: Chain, written: Chain, *, weight: float, collapsed_share: float, partial_share: float
               ) -> float:
    """What a path taking the relations ``taken`` gains from the ``written`` chain: ``weight`` when they are the
    written ones; ``collapsed_share`` of it when they collapse to the same (a relation taken there and back);
    otherwise ``partial_share`` of it times the share of the longer chain the two have in common, in order (the
    longest common subsequence): the model often drops one relation of a three-relation chain or writes one wrong,
    and the path keeping the rest of its order is still the likelier."""
    if taken == written:
        return weight
    if collapsed(taken) == collapsed(written):
        return weight * collapsed_share
    return weight * partial_share * common(taken, written) / max(len(taken), len(written))


def expansions(chain: Chain, depth: int) -> list[Chain]:
    """The chains of at most ``depth`` relations that collapse to the same as ``chain`` (each relation of the
    collapsed chain taken once or more), shortest first."""
    base = collapsed(chain)
    out: list[Chain] = []
    for extra in range(depth - len(base) + 1):
        for counts in itertools.product(range(extra + 1), repeat=len(base)):
            if sum(counts) == extra:
                out.append(tuple(r for r, c in zip(base, counts, strict=True) for _ in range(c + 1)))
    return out


def directions(chain: Chain) -> list[PathKey]:
    """Every path a chain can stand for: each of its relations in either direction."""
    return [tuple(step(r, f) for r, f in zip(chain, forwards, strict=True))
            for forwards in itertools.product((True, False), repeat=len(chain))]


def chain_prompt(graph: Graph, kg: str, names: Mapping[str, str], *, depth: int, one_hop: int, longer: int,
                 seed: int) -> ChainPrompt:
    """The prompt for ``kg``: its relations with one fact each, and examples for its most supported path types
    (at most ``one_hop`` one-relation ones and ``longer`` longer ones, up to ``depth`` relations, a new relation
    sequence each), sampled as the bootstrap samples them (seeded). Unlike the bootstrap's questions, the longer
    ones include chains that go back along the relation they came by (what "shares a director with X" asks)."""
    sampling = BootstrapSettings()  # the bootstrap's own sampling defaults
    found, _ = sample_paths(graph, kg, topics=sampling.topics, depth=depth, branch=sampling.branch,
                            max_frontier=sampling.max_frontier, max_answers=sampling.max_answers, seed=seed)
    ranked = sorted((t for t in found.values() if t.support >= sampling.min_support),
                    key=lambda t: (-t.support, len(t.path), t.path))
    chosen = [t for t in ranked if len(t.path) == 1][:one_hop]
    per_length = max(1, longer // max(1, depth - 1))
    for length in range(2, depth + 1):
        seen: set[Chain] = set()
        for t in ranked:
            if len(t.path) == length and undirected(t.path) not in seen and len(seen) < per_length:
                seen.add(undirected(t.path))
                chosen.append(t)
    words = {r: readable(names.get(r, r)) for r in names}
    rng = random.Random(seed)
    shots: list[Message] = []
    for t in chosen:
        topic = t.instances[0].topic_name
        question = rng.choice(template_questions(t.path, names)).replace(PLACEHOLDER, f"[{topic}]", 1)
        written = [words.get(r, readable(r)) for r in undirected(t.path)]
        shots += [{"role": "user", "content": question},
                  {"role": "assistant", "content": json.dumps({"chain": written})}]
    facts = [f"- {words[r['type']]}: ({r['subject']}, {words[r['type']]}, {r['object']})"
             for r in graph.run("kgqa/relation_facts", kg=kg, types=sorted(names))]
    relations = {words[r]: r for r in sorted(names)}
    return ChainPrompt(CHAIN_SYSTEM.format(facts="\n".join(facts)), tuple(shots), relations, depth)


def stored_chain_prompt(graph: Graph, kg: str, names: Mapping[str, str], *, depth: int, one_hop: int, longer: int,
                        seed: int) -> ChainPrompt:
    """:func:`chain_prompt` made once per KG and settings and kept in the graph as ``(:ChainPrompt {kg, key})``:
    sampling a KG's paths takes ~10 s on MetaQA and minutes on a Wikidata subgraph, which every new agent (every
    `kgagents ask`) would otherwise pay before its first question. The key holds the settings, the bootstrap's
    sampling defaults and the KG's latest load, so a reloaded KG gets a new prompt."""
    loaded_at = graph.run("kgqa/kg_loaded_at", kg=kg)[0]["loaded_at"]
    made_with = {"depth": depth, "one_hop": one_hop, "longer": longer, "seed": seed, "loaded_at": loaded_at,
                 "relations": sorted(names.items()), "sampling": BootstrapSettings().model_dump(mode="json")}
    key = hashlib.sha256(json.dumps(made_with, sort_keys=True).encode()).hexdigest()[:24]
    found = graph.run("kgqa/chain_prompt_read", kg=kg, key=key)
    if found:
        return ChainPrompt.from_json(found[0]["prompt"])
    prompt = chain_prompt(graph, kg, names, depth=depth, one_hop=one_hop, longer=longer, seed=seed)
    graph.run("kgqa/chain_prompt_write", kg=kg, key=key, prompt=prompt.to_json(), loaded_at=loaded_at)
    return prompt


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
