"""ODA's three LLM steps — action, reflection, answer — with lenient parsing, one repair, a recorded fallback.

Why a fallback instead of an error: one unparseable reply from a small model must not end the question.
Every fallback is recorded on the step (``fallback: true`` and why), and counted per run:

* action: after a failed repair, GetNeighbor on the only entity id (GetPath on the first two when there are
  more), or Answer when that call was already made;
* reflection: after a failed repair, the K output triples most similar to the question (what the
  similarity-reflection ablation does anyway);
* answer: the reply's first non-empty line, whatever it is (scored as given).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgagents.agent.kgqa.memory import Path
from kgagents.agent.kgqa.prompts import (
    ANSWER, NEIGHBOR, PATH, action_prompt, answer_prompt, generation_prompt, reflection_prompt,
)
from kgagents.agent.kgqa.triples import Triple
from kgagents.llm.client import ChatModel, Message

_ACTION = re.compile(rf"({NEIGHBOR}|{PATH}|{ANSWER})\s*(?:\((.*?)\))?", re.I | re.S)
_NUMBER = re.compile(r"\d+")
_NONE = re.compile(r"^\W*none\b", re.I)
_ANSWER_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:\-]?\s*", re.I)


@dataclass
class Action:
    """A chosen action: ``name`` (GetNeighbor | GetPath | Answer), entity ids, and how it was chosen."""

    name: str
    args: list[str] = field(default_factory=list)
    fallback: bool = False
    note: str = ""

    @property
    def call(self) -> str:
        return f"{self.name}({', '.join(self.args)})" if self.args else self.name

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.name, "args": self.args, "call": self.call, "fallback": self.fallback,
                "note": self.note}


def _clean_id(text: str) -> str:
    return text.strip().strip("\"'`[]<> ").strip()


def resolve_entity(text: str, labels: Mapping[str, str]) -> str | None:
    """The entity id a reply names: an id, or a name (case-insensitive) of a known entity."""
    wanted = _clean_id(text)
    if wanted in labels:
        return wanted
    lowered = wanted.lower()
    for entity, name in labels.items():
        if entity.lower() == lowered or name.lower() == lowered:
            return entity
    return None


def _split_two(inner: str, labels: Mapping[str, str]) -> list[str] | None:
    """Two known entities from ``a, b`` — trying every comma as the split, since names may contain commas."""
    parts = inner.split(",")
    for i in range(1, len(parts)):
        a, b = resolve_entity(",".join(parts[:i]), labels), resolve_entity(",".join(parts[i:]), labels)
        if a is not None and b is not None and a != b:
            return [a, b]
    return None


def parse_action(text: str, *, entities: Sequence[str], labels: Mapping[str, str],
                 done: Sequence[str]) -> Action | str:
    """The action a reply names, validated (known ids, the GetNeighbor rule, no repeats), or why it is unusable."""
    match = _ACTION.search(text)
    if match is None:
        return f"it names none of {NEIGHBOR}, {PATH}, {ANSWER}"
    name = next(n for n in (NEIGHBOR, PATH, ANSWER) if n.lower() == match.group(1).lower())
    inner = match.group(2) or ""
    if name == ANSWER:
        return Action(ANSWER)
    if name == NEIGHBOR:
        if len(entities) >= 2:
            return f"{NEIGHBOR} is only allowed with fewer than two entity ids; use {PATH} or {ANSWER}"
        entity = resolve_entity(inner, labels)
        if entity is None:
            return f"{inner!r} is not one of the entity ids shown"
        action = Action(NEIGHBOR, [entity])
    else:
        pair = _split_two(inner, labels)
        if pair is None:
            return f"{PATH} needs two different entity ids from those shown, got {inner!r}"
        action = Action(PATH, pair)
    if action.call in done:
        return f"{action.call} was already done; choose another action"
    return action


def fallback_action(entities: Sequence[str], done: Sequence[str], note: str) -> Action:
    """The rule used when the model's action is unusable after a repair (see the module docstring)."""
    candidates = [Action(NEIGHBOR, [entities[0]])] if len(entities) == 1 else \
        [Action(PATH, list(entities[:2]))] if len(entities) > 1 else []
    for action in candidates:
        if action.call not in done:
            action.fallback, action.note = True, note
            return action
    return Action(ANSWER, fallback=True, note=note)


def parse_selection(text: str, n: int, k: int) -> list[int] | None:
    """0-based indices of the triples a reply selects (at most ``k``, in range, once each); [] for "none";
    None if the reply is neither."""
    if _NONE.match(text):
        return []
    picked = list(dict.fromkeys(i for i in (int(x) - 1 for x in _NUMBER.findall(text)) if 0 <= i < n))
    return picked[:k] if picked else None


def parse_facts(text: str, labels: Mapping[str, str], *, k: int, tag: str) -> list[Triple]:
    """Generated ``head | relation | tail`` lines as triples; ends resolved to entity ids where the name is known."""
    facts: list[Triple] = []
    for line in text.splitlines():
        parts = [p.strip().strip("-*• ").strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            continue
        head, relation, tail = parts
        h, t = resolve_entity(head, labels) or head, resolve_entity(tail, labels) or tail
        facts.append(Triple(rid=f"{tag}:{len(facts)}", head=h, head_name=labels.get(h, head), relation=relation,
                            relation_name=relation, tail=t, tail_name=labels.get(t, tail), source=h, target=t))
        if len(facts) == k:
            break
    return facts


def clean_answer(text: str) -> str:
    """The answer as given, minus an "Answer:" prefix and blank lines."""
    lines = [_ANSWER_PREFIX.sub("", ln).strip() for ln in text.strip().splitlines()]
    return "\n".join(ln for ln in lines if ln)


class LLMSteps:
    """The LLM side of the loop, over one (ledgered) chat model with the run's token cap."""

    def __init__(self, chat: ChatModel, max_tokens: int) -> None:
        self.chat = chat
        self.max_tokens = max_tokens

    def _ask(self, messages: list[Message], purpose: str) -> str:
        return self.chat.complete(messages, purpose=purpose, max_tokens=self.max_tokens).text

    def _with_repair(self, prompt: str, purpose: str, parse: Any) -> tuple[Any, str]:
        """``parse(reply)`` → value or problem string; one repair turn on a problem. Returns (value|problem, reply)."""
        ask: list[Message] = [{"role": "user", "content": prompt}]
        reply = self._ask(ask, purpose)
        parsed = parse(reply)
        if not isinstance(parsed, str):
            return parsed, reply
        repair = [*ask, {"role": "assistant", "content": reply},
                  {"role": "user", "content": f"That reply could not be used: {parsed}. Reply again, following "
                                              "the instructions exactly."}]
        reply = self._ask(repair, f"{purpose}:repair")
        return parse(reply), reply

    def act(self, question: str, *, entities: Sequence[str], labels: Mapping[str, str], memory: Sequence[Path],
            observation: Sequence[Triple], history: Sequence[Mapping[str, Any]]) -> Action:
        done = [str(h["call"]) for h in history]
        prompt = action_prompt(question, entities=entities, labels=labels, memory=memory, observation=observation,
                               history=history)
        result, _ = self._with_repair(prompt, "kgqa:action",
                                      lambda r: parse_action(r, entities=entities, labels=labels, done=done))
        return result if isinstance(result, Action) else fallback_action(entities, done, result)

    def reflect(self, question: str, *, memory: Sequence[Path], output: Sequence[Triple],
                k: int) -> tuple[list[Triple], bool]:
        """(kept triples, whether the similarity fallback was used)."""
        prompt = reflection_prompt(question, memory=memory, output=output, k=k)

        def parse(reply: str) -> list[int] | str:
            picked = parse_selection(reply, len(output), k)
            return picked if picked is not None else f"name triple numbers between 1 and {len(output)}, or none"

        result, _ = self._with_repair(prompt, "kgqa:reflect", parse)
        if isinstance(result, str):
            return sorted(output, key=lambda t: -t.score)[:k], True
        return [output[i] for i in result], False

    def generate(self, question: str, *, memory: Sequence[Path], output: Sequence[Triple], labels: Mapping[str, str],
                 k: int, tag: str) -> list[Triple]:
        prompt = generation_prompt(question, memory=memory, output=output, k=k)
        return parse_facts(self._ask([{"role": "user", "content": prompt}], "kgqa:generate"), labels, k=k, tag=tag)

    def answer(self, question: str, *, memory: Sequence[Path], observation: Sequence[Triple]) -> str:
        prompt = answer_prompt(question, memory=memory, observation=observation)
        return clean_answer(self._ask([{"role": "user", "content": prompt}], "kgqa:answer"))
