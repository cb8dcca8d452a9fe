"""Getting answers a program can use out of a chat model: JSON objects, yes/no, one-of-these.

Why a JSON schema on every call, plus lenient parsing and ONE repair retry: where the endpoint decodes under
the schema (llama-server, OpenAI, vLLM — see :mod:`kgagents.llm.client`) the first reply is valid by
construction; elsewhere (an endpoint without JSON mode, a LangChain model) small models wrap JSON in code
fences and chatter, or answer "Option 2." instead of "2", so extracting leniently accepts every reply that
carries the answer; showing the model its own reply and what was wrong fixes most of the rest; a second
failure is reported instead of looping, so one bad item never stalls a run. Every reply's fate (parsed or
not) is recorded with :meth:`ChatModel.record_outcome`, so a ledger can report parse failures per purpose.

Yes/no is asked as ``{"reason": ..., "answer": "yes"|"no"}``: asked to *start* its reply with yes or no — or
made to write the answer first — Qwen2.5-Coder-1.5B says "yes" to everything (``benchmarks/llm_local.py``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from kgagents.errors import StructuredOutputError
from kgagents.llm.client import ChatModel, ChatResult, Message

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


#: A parser: the reply's value, or the problem with it (a one-line string the model is shown in the repair).
Parse = Callable[[str], "tuple[Any, None] | tuple[None, str]"]


def ask_with_repair(chat: ChatModel, ask: list[Message], parse: Parse, *, purpose: str, again: str,
                    json_schema: dict[str, Any] | None = None,
                    max_tokens: int | None = None) -> tuple[bool, Any, str]:
    """``(ok, value, last reply)``: ``ask``, parse the reply, and if that fails ask once more with the reply
    and its problem shown (``again`` says what to do). Each reply's outcome goes to ``chat.record_outcome``."""
    result = chat.complete(ask, purpose=purpose, json_schema=json_schema, max_tokens=max_tokens)
    value, problem = parse(result.text)
    chat.record_outcome(result, problem is None)
    if problem is None:
        return True, value, result.text
    repair = _repair(ask, result.text, problem)
    repair[-1]["content"] += again
    second = chat.complete(repair, purpose=f"{purpose}:repair", json_schema=json_schema, max_tokens=max_tokens)
    value, problem = parse(second.text)
    chat.record_outcome(second, problem is None)
    return problem is None, value, second.text


def structured(chat: ChatModel, messages: Sequence[Message], schema: type[T], *, purpose: str,
               max_tokens: int | None = None) -> T:
    """Ask for one JSON object matching ``schema``, validate it, repair once, else StructuredOutputError."""
    json_schema = schema.model_json_schema()
    ask = _with_instruction(
        messages,
        "Reply with only one JSON object (no prose, no code fences) that matches this JSON Schema:\n"
        + json.dumps(json_schema),
    )
    ok, value, reply = ask_with_repair(
        chat, ask, lambda text: _validated(text, schema), purpose=purpose, json_schema=json_schema,
        max_tokens=max_tokens, again="Reply again with only a JSON object that matches the schema above.")
    if ok:
        return value
    raise StructuredOutputError(
        f"{purpose}: {chat.model_name} did not return JSON matching {schema.__name__} even after a repair "
        f"retry ({_validated(reply, schema)[1]}). Last reply: {reply[:200]!r}"
    )


def _validated(reply: str, schema: type[T]) -> tuple[T, None] | tuple[None, str]:
    """The validated object, or a one-line description of what is wrong with the reply."""
    try:
        return schema.model_validate(extract_json(reply)), None
    except ValueError as exc:  # ValidationError is a ValueError too
        return None, _explain(exc) if isinstance(exc, ValidationError) else str(exc)


# -- yes / no ----------------------------------------------------------------------------------------
_YES_NO = re.compile(
    r"^[\W_]*(?:(?:the\s+)?(?:final\s+)?answer(?:\s+is)?[\W_]*)?(yes|no|true|false)\b[\W_]*(.*)$", re.I | re.S
)
# Reply caps: room for the answer and a one-line reason, not for an essay.
YES_NO_MAX_TOKENS = 96
PICK_ONE_MAX_TOKENS = 32


class YesNo(BaseModel):
    """A yes/no verdict, the reason FIRST: decoding the answer before any reason, Qwen2.5-Coder-1.5B answered
    "yes" to 20 of 20 easy questions; after a short reason it scored 15 of 20 (``benchmarks/llm_local.py``).
    The reason is capped, so the answer always fits the reply cap."""

    reason: str = Field(max_length=120)
    answer: Literal["yes", "no"]


_YES_NO_SCHEMA = YesNo.model_json_schema()
_YES_NO_INSTRUCTION = 'Reply with one JSON object: {"reason": "<one short sentence>", "answer": "yes" or "no"}.'


def parse_yes_no(text: str) -> tuple[bool, str] | None:
    """``(answer, reason)`` from a JSON object whose ``answer`` is yes or no, or from a reply that starts with
    yes/no (or true/false); else ``None``."""
    try:
        obj = extract_json(text)
    except ValueError:
        obj = {}
    if obj.get("answer") in ("yes", "no"):
        return obj["answer"] == "yes", str(obj.get("reason") or "")
    match = _YES_NO.match(text.strip())
    if match is None:
        return None
    return match.group(1).lower() in ("yes", "true"), match.group(2).strip()


def _yes_no(text: str) -> tuple[tuple[bool, str], None] | tuple[None, str]:
    parsed = parse_yes_no(text)
    return (parsed, None) if parsed is not None else (None, "it was neither a JSON answer nor a plain yes or no.")


def ask_yes_no(chat: ChatModel, question: str, *, purpose: str) -> tuple[bool, str]:
    """A yes/no answer and the model's reason; one repair retry, then StructuredOutputError."""
    ask: list[Message] = [{"role": "user", "content": f"{question}\n\n{_YES_NO_INSTRUCTION}"}]
    ok, value, reply = ask_with_repair(chat, ask, _yes_no, purpose=purpose, again=_YES_NO_INSTRUCTION,
                                       json_schema=_YES_NO_SCHEMA, max_tokens=YES_NO_MAX_TOKENS)
    if not ok:
        raise StructuredOutputError(
            f"{purpose}: {chat.model_name} did not answer yes or no even after a repair retry. "
            f"Last reply: {reply[:200]!r}"
        )
    return value


# -- graded yes / no --------------------------------------------------------------------------------
#: alternatives of the first reply token read for :func:`yes_log_odds`
YES_NO_TOP_LOGPROBS = 20
#: log-odds bound: a model certain either way cannot outweigh everything else
LOG_ODDS_LIMIT = 5.0
#: log-odds of a bare "yes" / "no" reply from a model that gives no log-probabilities
TEXT_LOG_ODDS = 1.0


def _first_token_mass(result: ChatResult, answers: Sequence[str]) -> dict[str, float]:
    """The probability the first reply token's alternatives give each of ``answers`` (case and surrounding space
    ignored: "Yes", " yes" and "yes" are one answer), 0.0 for those not among them."""
    mass = dict.fromkeys(answers, 0.0)
    keys = {a.casefold(): a for a in answers}
    for token, logprob in (result.first_token_logprobs or {}).items():
        answer = keys.get(token.strip().casefold())
        if answer is not None:
            mass[answer] += math.exp(logprob)
    return mass


def yes_log_odds(chat: ChatModel, messages: Sequence[Message], *, purpose: str) -> float:
    """How much more the model leans to "yes" than to "no": log P(yes) − log P(no) of its first reply token
    (clipped to ±``LOG_ODDS_LIMIT``), from one one-token call.

    Why a graded score: a small model's yes/no *text* says "yes" to nearly everything (see :class:`YesNo`), but
    its log-odds still rank options — which is all a caller comparing several options with one question needs.
    An endpoint without log-probabilities gives ±``TEXT_LOG_ODDS`` from the reply's text, 0.0 when the text is
    neither yes nor no (no evidence either way)."""
    result = chat.complete(messages, purpose=purpose, max_tokens=1, top_logprobs=YES_NO_TOP_LOGPROBS)
    mass = _first_token_mass(result, ("yes", "no"))
    if mass["yes"] or mass["no"]:
        chat.record_outcome(result, True)
        odds = math.log(mass["yes"] + 1e-9) - math.log(mass["no"] + 1e-9)
        return max(-LOG_ODDS_LIMIT, min(LOG_ODDS_LIMIT, odds))
    parsed = parse_yes_no(result.text)
    chat.record_outcome(result, parsed is not None)
    if parsed is None:
        return 0.0
    return TEXT_LOG_ODDS if parsed[0] else -TEXT_LOG_ODDS


# -- graded choice among lettered options ----------------------------------------------------------------
#: option labels of :func:`option_log_probs`
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: probability added to every option before the log: an option the model gives no mass stays comparable
OPTION_FLOOR = 1e-4
_LETTER = re.compile(r"^[\W_]*([A-Za-z])\b")


def option_log_probs(chat: ChatModel, messages: Sequence[Message], count: int, *, purpose: str) -> list[float]:
    """log(P(letter) + ``OPTION_FLOOR``) of the first reply token for options A, B, … (``count`` of them), from
    one one-token call: a graded choice, as :func:`yes_log_odds` is a graded yes/no.

    An endpoint without log-probabilities gives 0 to the option its reply names and log(``OPTION_FLOOR``) to the
    others; a reply naming none gives 0 to all (no evidence either way)."""
    if not 1 <= count <= len(LETTERS):
        raise ValueError(f"option_log_probs: between 1 and {len(LETTERS)} options, not {count}")
    result = chat.complete(messages, purpose=purpose, max_tokens=1, top_logprobs=YES_NO_TOP_LOGPROBS)
    mass = _first_token_mass(result, tuple(LETTERS[:count]))
    if not any(mass.values()):
        named = _LETTER.match(result.text.strip())
        letter = named.group(1).upper() if named else None
        if letter not in mass:
            chat.record_outcome(result, False)
            return [0.0] * count
        mass[letter] = 1.0
    chat.record_outcome(result, True)
    return [math.log(mass[letter] + OPTION_FLOOR) for letter in LETTERS[:count]]


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


def _option_schema(count: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"option": {"type": "integer", "enum": list(range(1, count + 1))}},
            "required": ["option"], "additionalProperties": False}


def _picked(text: str, options: Sequence[str]) -> tuple[str, None] | tuple[None, str]:
    """The option a ``{"option": n}`` object or a plain reply names."""
    try:
        number = extract_json(text).get("option")
    except ValueError:
        number = None
    if isinstance(number, int) and 1 <= number <= len(options):
        return options[number - 1], None
    choice = parse_choice(text, options)
    return (choice, None) if choice is not None else (None, "it did not name one of the options.")


def pick_one(chat: ChatModel, question: str, options: list[str], *, purpose: str) -> str | None:
    """The option the model picks; one repair retry; ``None`` if it still names none of them."""
    if not options:
        return None
    listing = "\n".join(f"{i}. {option}" for i, option in enumerate(options, start=1))
    instruction = f'Reply with one JSON object: {{"option": <the number of the correct option, 1-{len(options)}>}}.'
    ask: list[Message] = [{"role": "user", "content": f"{question}\n\nOptions:\n{listing}\n\n{instruction}"}]
    ok, value, _ = ask_with_repair(chat, ask, lambda text: _picked(text, options), purpose=purpose,
                                   again=instruction, json_schema=_option_schema(len(options)),
                                   max_tokens=PICK_ONE_MAX_TOKENS)
    return value if ok else None
