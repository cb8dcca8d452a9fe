"""ODA's LLM steps over relation paths — action and reflection — with JSON replies, one repair, a recorded fallback.

Why a fallback instead of an error: one unusable reply from a small model must not end the question. Every
fallback is recorded on the step (``fallback: true`` and why) and counted per run:

* action: after a failed repair, answer with the best-scoring path shown (what the no-LLM mode does);
* reflection: after a failed repair, the K output paths that score best (the similarity-reflection ablation).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.agent.kgqa.chains import Chain, ChainPrompt
from kgagents.agent.kgqa.paths import ObservedPath
from kgagents.agent.kgqa.prompts import (
    ACTION_SCHEMA,
    ACTION_SYSTEM,
    ACTIONS,
    ANSWER,
    GENERATE_SCHEMA,
    GENERATE_SYSTEM,
    GET_NEIGHBOR,
    GET_PATH,
    QUESTION_SYSTEM,
    RANK_SYSTEM,
    REFLECT_SCHEMA,
    REFLECT_SYSTEM,
    VERIFY_SYSTEM,
    action_prompt,
    direct_prompt,
    rank_prompt,
    reflection_prompt,
    relation_prompt,
    verify_prompt,
)
from kgagents.llm.client import ChatModel, Message
from kgagents.llm.parallel import map_on_slots
from kgagents.llm.structured import extract_json, option_log_probs, yes_log_odds


@dataclass
class Action:
    """A chosen action: ``name`` (answer | get_path | get_neighbor), its path (1-based, of the shown list) or
    entity, and how it was chosen."""

    name: str
    path: int | None = None
    entity: str | None = None
    fallback: bool = False
    note: str = ""

    @property
    def call(self) -> str:
        arg = self.path if self.path is not None else self.entity
        return f"{self.name}({arg})" if arg is not None else self.name

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.name, "path": self.path, "entity": self.entity, "call": self.call,
                "fallback": self.fallback, "note": self.note}

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Action:
        return cls(value["action"], value.get("path"), value.get("entity"), value.get("fallback", False),
                   value.get("note", ""))


def resolve_entity(text: str, labels: Mapping[str, str]) -> str | None:
    """The entity id a reply names: an id, or a name (case-insensitive) of a known entity."""
    wanted = text.strip().strip("\"'`[]<> ").strip()
    if wanted in labels:
        return wanted
    lowered = wanted.lower()
    return next((e for e, name in labels.items() if e.lower() == lowered or name.lower() == lowered), None)


def parse_action(reply: str, *, shown: int, labels: Mapping[str, str], done: Sequence[str]) -> Action | str:
    """The action a reply names, validated (a shown path number, a known entity, no repeat), or what is wrong."""
    try:
        value = extract_json(reply)
    except ValueError:
        return "the reply is not a JSON object"
    name = str(value.get("action", "")).strip().lower()
    if name not in ACTIONS:
        return f"action must be one of {', '.join(ACTIONS)}"
    if name in (ANSWER, GET_PATH):
        number = value.get("path")
        if not isinstance(number, int) or not 1 <= number <= shown:
            return f"{name} needs a path number between 1 and {shown}"
        action = Action(name, path=number)
    else:
        entity = resolve_entity(str(value.get("entity", "")), labels)
        if entity is None:
            return "get_neighbor needs the name of an entity shown in the paths"
        action = Action(GET_NEIGHBOR, entity=entity)
    if action.name != ANSWER and action.call in done:
        return f"{action.call} was already done; choose another action"
    return action


def parse_keep(reply: str, n: int, k: int) -> list[int] | str:
    """0-based indices of the paths a reflection keeps (at most ``k``), or what is wrong."""
    try:
        keep = extract_json(reply).get("keep")
    except ValueError:
        return "the reply is not a JSON object"
    if not isinstance(keep, list) or not all(isinstance(i, int) for i in keep):
        return '"keep" must be a list of path numbers'
    picked = list(dict.fromkeys(i - 1 for i in keep if 1 <= i <= n))
    return picked[:k]


class LLMSteps:
    """The LLM side of the loop, over one (ledgered) chat model with the run's token cap."""

    def __init__(self, chat: ChatModel, max_tokens: int) -> None:
        self.chat = chat
        self.max_tokens = max_tokens

    def _ask(self, system: str, prompt: str, purpose: str, schema: dict[str, Any],
             parse: Callable[[str], Any]) -> tuple[Any, str]:
        """``parse(reply)`` → value or problem string; one repair turn on a problem. (value | problem, reply)."""
        messages: list[Message] = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        reply = self.chat.complete(messages, purpose=purpose, json_schema=schema, max_tokens=self.max_tokens).text
        parsed = parse(reply)
        if not isinstance(parsed, str):
            return parsed, reply
        repair = [*messages, {"role": "assistant", "content": reply},
                  {"role": "user", "content": f"That reply could not be used: {parsed}. Reply again with one JSON "
                                              "object, following the instructions exactly."}]
        reply = self.chat.complete(repair, purpose=f"{purpose}:repair", json_schema=schema,
                                   max_tokens=self.max_tokens).text
        return parse(reply), reply

    def act(self, question: str, *, shown: Sequence[ObservedPath], memory: Sequence[ObservedPath],
            prior: Sequence[Mapping[str, Any]], history: Sequence[Mapping[str, Any]], labels: Mapping[str, str],
            ends: int) -> Action:
        done = [str(h["call"]) for h in history]
        prompt = action_prompt(question, shown=shown, memory=memory, prior=prior, history=history, ends=ends)
        result, _ = self._ask(ACTION_SYSTEM, prompt, "kgqa:action", ACTION_SCHEMA,
                              lambda r: parse_action(r, shown=len(shown), labels=labels, done=done))
        if isinstance(result, Action):
            return result
        return Action(ANSWER, path=1 if shown else None, fallback=True, note=result)

    def direct(self, question: str) -> float:
        """The model's log-odds that the (masked) question's answer is one relation from its topic (one one-token
        call; see :func:`~kgagents.agent.kgqa.prompts.direct_prompt` and the settings' ``direct_weight``)."""
        messages: list[Message] = [{"role": "system", "content": QUESTION_SYSTEM},
                                   {"role": "user", "content": direct_prompt(question)}]
        return yes_log_odds(self.chat, messages, purpose="kgqa:direct")

    def relations(self, question: str, relations: Sequence[str]) -> dict[str, float]:
        """For each relation name, the model's log-odds that the (masked) question asks about it (one one-token
        call per relation, on the server's parallel slots; see
        :func:`~kgagents.agent.kgqa.prompts.relation_prompt` and the settings' ``relation_weight``)."""
        def odds(relation: str) -> float:
            messages: list[Message] = [{"role": "system", "content": QUESTION_SYSTEM},
                                       {"role": "user", "content": relation_prompt(question, relation)}]
            return yes_log_odds(self.chat, messages, purpose="kgqa:relations")
        unique = list(dict.fromkeys(relations))
        return dict(zip(unique, map_on_slots(self.chat, odds, unique), strict=True))

    def chain(self, prompt: ChainPrompt, question: str) -> Chain | None:
        """The relations, in order, the model writes for ``question`` (its topic in brackets), taught by ``prompt``'s
        examples from the KG itself (:mod:`~kgagents.agent.kgqa.chains`); None when the reply is unusable (no
        repair turn: the check then simply does not vote). One call; the prompt's fixed part comes first, so a
        server's prompt cache reuses it across questions."""
        reply = self.chat.complete(prompt.messages(question), purpose="kgqa:chain", json_schema=prompt.schema(),
                                   max_tokens=16 * prompt.depth).text
        return prompt.parse(reply)

    def verify(self, question: str, topic: str, candidates: Sequence[ObservedPath], *, ends: int) -> list[float]:
        """Mode gated, ranking ``yes_no``: for each candidate path, the model's log-odds that it answers the question
        (one one-token call per path, on the server's parallel slots). One path at a time because the 1.5B model
        picks from a numbered list of chains no better than chance, while its yes/no log-odds still rank them
        (measured on MetaQA training questions; see the settings' ``verify_weight``)."""
        def odds(path: ObservedPath) -> float:
            messages: list[Message] = [{"role": "system", "content": VERIFY_SYSTEM},
                                       {"role": "user", "content": verify_prompt(question, topic, path, ends)}]
            return yes_log_odds(self.chat, messages, purpose="kgqa:verify")
        return map_on_slots(self.chat, odds, candidates)

    def rank(self, question: str, topic: str, candidates: Sequence[ObservedPath], *, ends: int) -> list[float]:
        """Mode gated, ranking ``options``: for each candidate path, the model's log-probability that its entities are
        what the question asks for — the candidates as lettered options
        (:func:`~kgagents.agent.kgqa.prompts.rank_prompt`), asked twice, in the given and the reversed order (on the
        server's parallel slots), and averaged: a small model favours a letter by its position, and the two orders
        cancel that out."""
        orders = [list(range(len(candidates))), list(reversed(range(len(candidates))))]

        def ask(order: list[int]) -> list[float]:
            messages: list[Message] = [
                {"role": "system", "content": RANK_SYSTEM},
                {"role": "user", "content": rank_prompt(question, topic, [candidates[i] for i in order], ends)}]
            logprobs = option_log_probs(self.chat, messages, len(order), purpose="kgqa:rank")
            return [logprobs[order.index(i)] for i in range(len(candidates))]

        asked = map_on_slots(self.chat, ask, orders)
        return [sum(x) / len(asked) for x in zip(*asked, strict=True)]

    def reflect(self, question: str, *, output: Sequence[ObservedPath], k: int,
                ends: int) -> tuple[list[ObservedPath], bool]:
        """(kept paths, whether the score fallback was used)."""
        prompt = reflection_prompt(question, output=output, k=k, ends=ends)
        result, _ = self._ask(REFLECT_SYSTEM, prompt, "kgqa:reflect", REFLECT_SCHEMA,
                              lambda r: parse_keep(r, len(output), k))
        if isinstance(result, str):
            return sorted(output, key=lambda p: -p.score)[:k], True
        return [output[i] for i in result], False

    def generate(self, question: str, *, output: Sequence[ObservedPath], ends: int) -> list[str]:
        """The generated-reflection ablation: the model writes the relation paths it believes in (matched to the
        output paths by the caller)."""
        prompt = reflection_prompt(question, output=output, k=len(output), ends=ends)

        def parse(reply: str) -> list[str] | str:
            try:
                written = extract_json(reply).get("paths")
            except ValueError:
                return "the reply is not a JSON object"
            return [str(p) for p in written] if isinstance(written, list) else '"paths" must be a list'

        result, _ = self._ask(GENERATE_SYSTEM, prompt, "kgqa:generate", GENERATE_SCHEMA, parse)
        return [] if isinstance(result, str) else result

