"""The EA-Agent's tools: two triple selectors (no LLM), the aligner and the reflector (LLM).

Why selectors: a DBP15K entity can have hundreds of triples; showing the model a few informative ones keeps
prompts short and the decision focused. The aligner and the reflector answer with :func:`pick_one`, so an
answer is always one of the retrieved candidates — anything else gets one repair retry inside ``pick_one``
and then falls back to the retrieval top-1, and that fallback is recorded on the result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel
from kgagents.llm.structured import pick_one
from kgagents.loaders.kg_common import local_name

ATTRIBUTE_SELECTOR = "attribute_selector"
RELATION_SELECTOR = "relation_selector"
ALIGNER = "aligner"
REFLECTOR = "reflector"
SELECTORS = (ATTRIBUTE_SELECTOR, RELATION_SELECTOR)
TOOLS = (ATTRIBUTE_SELECTOR, RELATION_SELECTOR, ALIGNER, REFLECTOR)
#: cap on the triples shown per entity when selection is switched off (the "no selectors" ablation)
ALL_TRIPLES_CAP = 40
_NAME_LIKE = re.compile(r"(name|label|title)$", re.I)


@dataclass
class EntityContext:
    """What the tools may show about one entity: its name, attribute names and relation triples."""

    id: str
    name: str | None
    attributes: list[str] = field(default_factory=list)
    triples: list[dict[str, str]] = field(default_factory=list)  # {direction, rel, relation, other}
    score: float | None = None  # retrieval score (candidates only)


def entity_contexts(graph: Graph, kg: str, ids: Iterable[str]) -> dict[str, EntityContext]:
    """Contexts of the entities ``ids`` of ``kg`` (missing ids are left out)."""
    rows = graph.run("alignment_ea/agent_entity_context", kg=kg, ids=sorted(set(ids)))
    return {r["id"]: EntityContext(r["id"], r["name"], list(r["attributes"]), list(r["triples"])) for r in rows}


def relation_frequencies(graph: Graph, kg: str) -> dict[str, int]:
    """freq(r): relation triples of ``kg`` per relation id."""
    return {r["rel"]: r["freq"] for r in graph.run("alignment_ea/agent_relation_frequencies", kg=kg)}


# -- selectors -------------------------------------------------------------------------------------
def attribute_key(attribute: str) -> str:
    """Attributes are compared across KGs by case-folded local name (``…/property/name`` ~ ``…/ontology/name``)."""
    return local_name(attribute).casefold()


def is_name_like(attribute: str) -> bool:
    """Attributes that carry a name (local name ending in name/label/title) are always shown."""
    return bool(_NAME_LIKE.search(local_name(attribute)))


def attribute_entropy(attribute: str, candidate_attributes: Sequence[Iterable[str]]) -> float:
    """H(a) = −Σ_v p(v) log p(v) over the candidates.

    The benchmark files hold attribute NAMES only (no values), so the "value" of attribute a on a candidate is
    its presence: v ∈ {present, absent}, p(present) = share of candidates having a (by :func:`attribute_key`).
    H is 0 when every candidate or no candidate has a, and ln 2 when half of them do.
    """
    if not candidate_attributes:
        return 0.0
    key = attribute_key(attribute)
    present = sum(1 for attrs in candidate_attributes if key in {attribute_key(a) for a in attrs})
    p = present / len(candidate_attributes)
    return -sum(q * math.log(q) for q in (p, 1.0 - p) if q > 0.0)


class AttributeTripleSelector:
    """Keeps at most ``limit`` attributes of an entity: name-like ones always, then lower entropy first."""

    name = ATTRIBUTE_SELECTOR

    def __init__(self, limit: int = 5) -> None:
        self.limit = limit

    def select(self, attributes: Sequence[str], candidate_attributes: Sequence[Iterable[str]]) -> list[str]:
        unique = list(dict.fromkeys(attributes))
        named = [a for a in unique if is_name_like(a)]
        rest = sorted((a for a in unique if not is_name_like(a)),
                      key=lambda a: (attribute_entropy(a, candidate_attributes), a))
        return named + rest[: max(0, self.limit - len(named))]


def relation_information(rel: str, frequencies: Mapping[str, int], total: int) -> float:
    """I(r) = log(N / (freq(r) + 1)), N = relation triples of the KG: rare relations say more."""
    return math.log(max(total, 1) / (frequencies.get(rel, 0) + 1))


class RelationTripleSelector:
    """Keeps at most ``limit`` of an entity's outgoing and incoming triples, rarest relation (highest I) first."""

    name = RELATION_SELECTOR

    def __init__(self, frequencies: Mapping[str, int], limit: int = 5) -> None:
        self.frequencies = dict(frequencies)
        self.total = sum(self.frequencies.values())
        self.limit = limit

    def select(self, triples: Sequence[dict[str, str]]) -> list[dict[str, str]]:
        ranked = sorted(triples, key=lambda t: (-relation_information(t["rel"], self.frequencies, self.total),
                                                t["rel"], t["direction"], t["other"]))
        return ranked[: self.limit]


# -- LLM tools -------------------------------------------------------------------------------------
@dataclass
class Choice:
    """A tool's answer: the chosen target id, whether it fell back / changed, and a note for the trace."""

    target: str
    fallback: bool = False
    changed: bool = False
    note: str = ""


def render(entity: EntityContext, *, header: str) -> str:
    """One entity block of a prompt: name, (selected) attributes and triples."""
    lines = [f"{header}: {entity.name or entity.id}"]
    if entity.score is not None:
        lines[0] += f" (retrieval score {entity.score:.3f})"
    if entity.attributes:
        lines.append("  attributes: " + ", ".join(local_name(a) for a in entity.attributes))
    for t in entity.triples:
        head, tail = (entity.name, t["other"]) if t["direction"] == "out" else (t["other"], entity.name)
        lines.append(f"  ({head}, {local_name(t['relation'])}, {tail})")
    return "\n".join(lines)


def _options(candidates: Sequence[EntityContext]) -> list[str]:
    names = [c.name or c.id for c in candidates]
    return [n if names.count(n) == 1 else f"{n} [{c.id}]" for n, c in zip(names, candidates)]


def _ranked(candidates: Sequence[EntityContext]) -> list[EntityContext]:
    return sorted(candidates, key=lambda c: -(c.score or 0.0))


class EntityAlignmentTool:
    """Asks the model which candidate (blocks sorted by retrieval score) is the source entity's counterpart."""

    name = ALIGNER

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def align(self, source: EntityContext, candidates: Sequence[EntityContext]) -> Choice:
        ranked = _ranked(candidates)
        blocks = "\n\n".join(render(c, header=f"Candidate {i}") for i, c in enumerate(ranked, 1))
        question = ("Two knowledge graphs describe the same world in different languages. Which candidate from "
                    "the second graph is the same real-world entity as the source entity?\n\n"
                    f"{render(source, header='Source entity')}\n\n{blocks}")
        options = _options(ranked)
        picked = pick_one(self.chat, question, options, purpose="ea-agent:align")
        if picked is None:
            return Choice(ranked[0].id, fallback=True, note="aligner named no candidate after one retry: top-1 used")
        return Choice(ranked[options.index(picked)].id)


class Reflector:
    """Shows the model its initial choice and asks it to confirm it or pick another candidate."""

    name = REFLECTOR

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def reflect(self, source: EntityContext, candidates: Sequence[EntityContext], initial: str) -> Choice:
        ranked = _ranked(candidates)
        options = _options(ranked)
        first = next((o for o, c in zip(options, ranked) if c.id == initial), options[0])
        blocks = "\n\n".join(render(c, header=f"Candidate {i}") for i, c in enumerate(ranked, 1))
        question = (f"{render(source, header='Source entity')}\n\n{blocks}\n\n"
                    f"An earlier step chose '{first}' as the same real-world entity as the source. Check that "
                    "choice against the triples: keep it if it is right, otherwise pick the correct candidate.")
        picked = pick_one(self.chat, question, options, purpose="ea-agent:reflect")
        if picked is None:
            return Choice(initial, fallback=True, note="reflector named no candidate after one retry: kept initial")
        target = ranked[options.index(picked)].id
        return Choice(target, changed=target != initial)


def candidate_views(contexts: Mapping[str, EntityContext], stored: Sequence[dict[str, Any]]) -> list[EntityContext]:
    """Candidate contexts of one source in retrieval order, each carrying its retrieval score."""
    out = []
    for row in stored:
        ctx = contexts.get(row["target"]) or EntityContext(row["target"], None)
        out.append(EntityContext(ctx.id, ctx.name, list(ctx.attributes), list(ctx.triples), float(row["score"])))
    return out
