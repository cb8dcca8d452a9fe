"""Getting answers a program can use out of a chat model: JSON objects, yes/no, one-of-these.

Why lenient parsing plus ONE repair retry: small local models wrap JSON in code fences and chatter,
or answer "Option 2." instead of "2". Extracting leniently accepts every reply that carries the
answer; showing the model its own reply and what was wrong fixes most of the rest; a second
failure is reported instead of looping, so one bad item never stalls a run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kgagents.errors import StructuredOutputError
from kgagents.llm.client import ChatModel, Message

T = TypeVar("T", bound=BaseModel)


# -- JSON objects ------------------------------------------------------------------------------------
def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``, wherever it starts (code fences and chatter are skipped)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError("the reply contains no JSON object")


def _explain(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors())


def _with_instruction(messages: Sequence[Message], instruction: str) -> list[Message]:
    """``messages`` with ``instruction`` added to the last user turn (small models may ignore system turns)."""
    out = [dict(m) for m in messages]
    if out and out[-1]["role"] == "user":
        out[-1]["content"] = f"{out[-1]['content']}\n\n{instruction}"
    else:
        out.append({"role": "user", "content": instruction})
    return out


def _repair(messages: Sequence[Message], reply: str, problem: str) -> list[Message]:
    return [*messages, {"role": "assistant", "content": reply},
            {"role": "user", "content": f"That reply could not be used: {problem}\n"}]


def structured(chat: ChatModel, messages: Sequence[Message], schema: type[T], *, purpose: str) -> T:
    """Ask for one JSON object matching ``schema``, validate it, repair once, else StructuredOutputError."""
    json_schema = schema.model_json_schema()
    ask = _with_instruction(
        messages,
        "Reply with only one JSON object (no prose, no code fences) that matches this JSON Schema:\n"
        + json.dumps(json_schema),
    )
    reply = chat.complete(ask, purpose=purpose, json_schema=json_schema).text
    problem = _validation_problem(reply, schema)
    if isinstance(problem, BaseModel):
        return problem
    repair = _repair(ask, reply, problem)
    repair[-1]["content"] += "Reply again with only a JSON object that matches the schema above."
    second = chat.complete(repair, purpose=f"{purpose}:repair", json_schema=json_schema).text
    result = _validation_problem(second, schema)
    if isinstance(result, BaseModel):
        return result
    raise StructuredOutputError(
        f"{purpose}: {chat.model_name} did not return JSON matching {schema.__name__} even after a repair "
        f"retry ({result}). Last reply: {second[:200]!r}"
    )


def _validation_problem(reply: str, schema: type[T]) -> T | str:
    """The validated object, or a one-line description of what is wrong with the reply."""
    try:
        return schema.model_validate(extract_json(reply))
    except ValueError as exc:  # ValidationError is a ValueError too
        return _explain(exc) if isinstance(exc, ValidationError) else str(exc)


# -- yes / no ----------------------------------------------------------------------------------------
_YES_NO = re.compile(
    r"^[\W_]*(?:(?:the\s+)?(?:final\s+)?answer(?:\s+is)?[\W_]*)?(yes|no|true|false)\b[\W_]*(.*)$", re.I | re.S
)
# Reply caps: room for the answer and a one-line reason, not for an essay.
YES_NO_MAX_TOKENS = 96
PICK_ONE_MAX_TOKENS = 32
_YES_NO_INSTRUCTION = "Start your reply with the word yes or no, then give a short reason on the same line."


def parse_yes_no(text: str) -> tuple[bool, str] | None:
    """``(answer, reason)`` if the reply starts with yes/no (or true/false), else ``None``."""
    match = _YES_NO.match(text.strip())
    if match is None:
        return None
    return match.group(1).lower() in ("yes", "true"), match.group(2).strip()


def ask_yes_no(chat: ChatModel, question: str, *, purpose: str) -> tuple[bool, str]:
    """A yes/no answer and the model's reason; one repair retry, then StructuredOutputError."""
    ask: list[Message] = [{"role": "user", "content": f"{question}\n\n{_YES_NO_INSTRUCTION}"}]
    reply = chat.complete(ask, purpose=purpose, max_tokens=YES_NO_MAX_TOKENS).text
    parsed = parse_yes_no(reply)
    if parsed is None:
        repair = _repair(ask, reply, "it did not start with yes or no.")
        repair[-1]["content"] += _YES_NO_INSTRUCTION
        reply = chat.complete(repair, purpose=f"{purpose}:repair", max_tokens=YES_NO_MAX_TOKENS).text
        parsed = parse_yes_no(reply)
    if parsed is None:
        raise StructuredOutputError(
            f"{purpose}: {chat.model_name} did not answer yes or no even after a repair retry. "
            f"Last reply: {reply[:200]!r}"
        )
    return parsed


# -- one of these options ----------------------------------------------------------------------------
_NUMBER = re.compile(
    r"^[\W_]*(?:(?:the\s+)?(?:(?:correct|right|best|final)\s+)?(?:answer|option|choice|number)(?:\s+is)?[\W_]*)?"
    r"(\d+)\b",
    re.I,
)


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text).strip().lower()


def parse_choice(text: str, options: Sequence[str]) -> str | None:
    """The option a reply names — by number ("2", "Option 2."), by its text, or by mentioning exactly one
    option — or ``None``."""
    reply = _norm(text)
    for option in options:  # first: the reply is an option's text (options may themselves be numbers)
        if reply == _norm(option):
            return option
    number = _NUMBER.match(text.strip())
    if number is not None:
        index = int(number.group(1))
        return options[index - 1] if 1 <= index <= len(options) else None
    padded = f" {reply} "
    mentioned = [o for o in options if _norm(o) and f" {_norm(o)} " in padded]
    # "Person name" mentions "Person" too: keep only options not contained in another mentioned one.
    maximal = [o for o in mentioned if not any(o != p and f" {_norm(o)} " in f" {_norm(p)} " for p in mentioned)]
    return maximal[0] if len(maximal) == 1 else None


def pick_one(chat: ChatModel, question: str, options: list[str], *, purpose: str) -> str | None:
    """The option the model picks; one repair retry; ``None`` if it still names none of them."""
    if not options:
        return None
    listing = "\n".join(f"{i}. {option}" for i, option in enumerate(options, start=1))
    instruction = f"Reply with the number of the correct option only (1-{len(options)})."
    ask: list[Message] = [{"role": "user", "content": f"{question}\n\nOptions:\n{listing}\n\n{instruction}"}]
    reply = chat.complete(ask, purpose=purpose, max_tokens=PICK_ONE_MAX_TOKENS).text
    choice = parse_choice(reply, options)
    if choice is None:
        repair = _repair(ask, reply, "it did not name one of the options.")
        repair[-1]["content"] += instruction
        repaired = chat.complete(repair, purpose=f"{purpose}:repair", max_tokens=PICK_ONE_MAX_TOKENS)
        choice = parse_choice(repaired.text, options)
    return choice
