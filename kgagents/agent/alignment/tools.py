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
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model

from kgagents.errors import StructuredOutputError
from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel
from kgagents.llm.structured import pick_one, structured
from kgagents.loaders.kg_common import local_name

ATTRIBUTE_SELECTOR = "attribute_selector"
RELATION_SELECTOR = "relation_selector"
ALIGNER = "aligner"
REFLECTOR = "reflector"
SELECTORS = (ATTRIBUTE_SELECTOR, RELATION_SELECTOR)
TOOLS = (ATTRIBUTE_SELECTOR, RELATION_SELECTOR, ALIGNER, REFLECTOR)
#: cap on the triples shown per entity when selection is switched off (the "no selectors" ablation)
ALL_TRIPLES_CAP = 40
T = TypeVar("T", bound=BaseModel)
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


#: how a block shows a triple of the entity: ``-> rel: other`` (entity rel other), ``<- rel: other`` (other rel entity)
TRIPLE_LEGEND = "'-> r: x' means (entity, r, x); '<- r: x' means (x, r, entity)."


def short_name(entity: EntityContext) -> str:
    """The name a prompt shows: the entity's name, else the local name of its id (never a full URI)."""
    return entity.name or local_name(entity.id)


def render(entity: EntityContext, *, header: str) -> str:
    """One compact entity block: ``header name (score)``, the selected attribute names, one triple per line
    without repeating the entity's own name (see :data:`TRIPLE_LEGEND`). Only what the selectors kept is shown."""
    lines = [f"{header} {short_name(entity)}"]
    if entity.score is not None:
        lines[0] += f" ({entity.score:.2f})"
    if entity.attributes:
        lines.append(" attrs: " + ", ".join(local_name(a) for a in entity.attributes))
    lines += [f" {'->' if t['direction'] == 'out' else '<-'} {local_name(t['relation'])}: {t['other']}"
              for t in entity.triples]
    return "\n".join(lines)


def blocks(source: EntityContext, candidates: Sequence[EntityContext]) -> str:
    """The source block and the numbered candidate blocks (numbers = option numbers), with the triple legend
    only when some block shows triples."""
    parts = [render(source, header="Source:"), *(render(c, header=f"[{i}]") for i, c in enumerate(candidates, 1))]
    legend = [TRIPLE_LEGEND] if source.triples or any(c.triples for c in candidates) else []
    return "\n".join([*legend, *parts])


def _options(candidates: Sequence[EntityContext]) -> list[str]:
    """One option per candidate: its short name, made unique by the option number when names repeat (so every
    answer still maps to exactly one candidate id)."""
    names = [short_name(c) for c in candidates]
    return [n if names.count(n) == 1 else f"{n} #{i}" for i, (n, c) in enumerate(zip(names, candidates), 1)]


def ranked(candidates: Sequence[EntityContext], limit: int | None = None) -> list[EntityContext]:
    """Candidates in retrieval order (rank 1 first: the one-to-one assignment's target, which need not have the
    highest score), at most ``limit`` of them."""
    return list(candidates) if limit is None else list(candidates[:limit])


class EntityAlignmentTool:
    """Asks the model which candidate (blocks in retrieval order) is the source entity's counterpart."""

    name = ALIGNER

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def align(self, source: EntityContext, candidates: Sequence[EntityContext]) -> Choice:
        cands = ranked(candidates)
        question = ("Which candidate (another knowledge graph, retrieval score in brackets) is the same "
                    f"real-world entity as the source?\n{blocks(source, cands)}")
        options = _options(cands)
        picked = pick_one(self.chat, question, options, purpose="ea-agent:align")
        if picked is None:
            return Choice(cands[0].id, fallback=True, note="aligner named no candidate after one retry: top-1 used")
        return Choice(cands[options.index(picked)].id)


class Reflector:
    """Shows the model its initial choice and asks it to confirm it or pick another candidate."""

    name = REFLECTOR

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def reflect(self, source: EntityContext, candidates: Sequence[EntityContext], initial: str) -> Choice:
        cands = ranked(candidates)
        options = _options(cands)
        first = next((f"{i}. {o}" for i, (o, c) in enumerate(zip(options, cands), 1) if c.id == initial), options[0])
        question = (f"{blocks(source, cands)}\nAn earlier step chose {first} as the same real-world entity as the "
                    "source. Check it against the triples: keep it if right, else pick the correct candidate.")
        picked = pick_one(self.chat, question, options, purpose="ea-agent:reflect")
        if picked is None:
            return Choice(initial, fallback=True, note="reflector named no candidate after one retry: kept initial")
        target = cands[options.index(picked)].id
        return Choice(target, changed=target != initial)


# -- constrained, gated tools ------------------------------------------------------------------------
#: the fixed first message of every gated-aligner and confirmer call: identical across entities, so a server's
#: prompt cache keeps it (the entity blocks follow in the user message)
GATED_SYSTEM = ("You match entities between two knowledge graphs in different languages. Names may be translated "
                "or transliterated. " + TRIPLE_LEGEND + " Answer only with the JSON object asked for.")


class AlignerAnswer(BaseModel):
    """The gated aligner's constrained reply: an option number and whether the model is sure."""

    choice: int
    sure: bool


class ConfirmAnswer(BaseModel):
    """The confirmer's constrained reply: which of two candidates, "A" or "B", is the source's counterpart."""

    same_as: Literal["A", "B"]


def _choice_schema(n: int) -> type[AlignerAnswer]:
    """:class:`AlignerAnswer` with ``choice`` limited to 1..n, so a JSON-schema-constrained server can only
    answer with an existing option."""
    return create_model("AlignerAnswer", __base__=AlignerAnswer,
                        choice=(int, Field(ge=1, le=n, description="number of the matching candidate")))


class GatedAligner:
    """The aligner and reflector for sources retrieval is unsure about, with constrained answers.

    The model may override retrieval's rank-1 candidate only when it is sure of another candidate AND a second,
    pairwise question (rank-1 as A or B against its pick, order fixed by id so position does not decide) confirms
    it; any unusable reply keeps rank 1. Every call starts with :data:`GATED_SYSTEM`."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def _ask(self, content: str, schema: type[T], purpose: str) -> T | None:
        try:
            return structured(self.chat, [{"role": "system", "content": GATED_SYSTEM},
                                          {"role": "user", "content": content}], schema, purpose=purpose)
        except StructuredOutputError:
            return None

    def align(self, source: EntityContext, candidates: Sequence[EntityContext]) -> tuple[Choice, bool]:
        """(the choice, whether the confirmer was asked)."""
        top = candidates[0].id
        answer = self._ask(f"Which candidate is the same real-world entity as the source?\n"
                           f"{blocks(source, candidates)}", _choice_schema(len(candidates)), "ea-agent:align")
        if answer is None:
            return Choice(top, fallback=True, note="aligner reply unusable: rank 1 kept"), False
        pick = candidates[answer.choice - 1].id
        if pick == top:
            return Choice(top, note="aligner agrees with rank 1"), False
        if not answer.sure:
            return Choice(top, note=f"aligner unsure about option {answer.choice}: rank 1 kept"), False
        first, second = sorted((c for c in candidates if c.id in (top, pick)), key=lambda c: c.id)
        confirm = self._ask(f"Which of the two is the same real-world entity as the source?\n"
                            f"{render(source, header='Source:')}\n{render(first, header='A:')}\n"
                            f"{render(second, header='B:')}", ConfirmAnswer, "ea-agent:reflect")
        if confirm is None:
            return Choice(top, fallback=True, note="confirmer reply unusable: rank 1 kept"), True
        confirmed = (first if confirm.same_as == "A" else second).id
        if confirmed != pick:
            return Choice(top, note="confirmer did not confirm the aligner's pick: rank 1 kept"), True
        return Choice(pick, changed=True, note="sure and confirmed: rank 1 overridden"), True


def candidate_views(contexts: Mapping[str, EntityContext], stored: Sequence[dict[str, Any]]) -> list[EntityContext]:
    """Candidate contexts of one source in retrieval order, each carrying its retrieval score."""
    out = []
    for row in stored:
        ctx = contexts.get(row["target"]) or EntityContext(row["target"], None)
        out.append(EntityContext(ctx.id, ctx.name, list(ctx.attributes), list(ctx.triples), float(row["score"])))
    return out
