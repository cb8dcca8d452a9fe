"""Format-following of the embedded models: yes/no and pick-one, free text against JSON-schema-constrained.

Twenty yes/no and twenty pick-one questions with unambiguous, hand-written answers (easy ontology-matching
style; the right option's position varies; 10 yes, 10 no) are asked of each model through the same helpers the
agents use, in several ways:

* ``yes_no/start-with-yes-or-no``: the old instruction ("Start your reply with the word yes or no, then give a
  short reason on the same line"), free text, lenient parsing, one repair — the defect of issue 20;
* ``yes_no/constrained``: :func:`kgagents.llm.ask_yes_no` — ``{"reason": …, "answer": "yes"|"no"}`` decoded
  under the JSON schema by llama-server (results files before commit "yes/no reason first" have the
  answer-first form in this row and the reason-first form as ``constrained-reason-first``);
* ``yes_no/constrained-answer-only``: ``{"answer": "yes"|"no"}`` only (fewest tokens);
* ``yes_no/constrained-answer-first``: ``{"answer": …, "reason": …}`` (the answer before any reason);
* ``yes_no/unconstrained-json``: ask_yes_no's prompt with the schema *not* sent (the fallback path of an
  endpoint without JSON mode: the JSON is parsed from free text and repaired once);
* ``pick_one/constrained`` and ``pick_one/unconstrained-json``: :func:`kgagents.llm.pick_one` with and
  without the schema.

Parse rate (the reply followed the format) and accuracy are reported apart, with the share of "yes" answers
(a model that copies the first word of the prompt answers "yes" to everything), the ledger's per-purpose
outcomes, tokens and seconds. Temperature 0.

    kgagents bench llm [--model qwen2.5-coder-1.5b --model smollm2-135m ...] [--threads N] [--port 8799]
    kgagents bench llm --base-url http://127.0.0.1:8765/v1 --model NAME    # a server that already runs

Writes ``llm/local/tasks.json`` (into the results store with ``--record``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from benchmarks.provenance import write_results
from kgagents.config import LLMSettings
from kgagents.errors import StructuredOutputError
from kgagents.llm import (
    ChatModel,
    Ledger,
    Message,
    OpenAIChatModel,
    ask_with_repair,
    ask_yes_no,
    map_on_slots,
    pick_one,
)
from kgagents.llm.models import LOCAL_MODELS, model_file
from kgagents.llm.structured import YES_NO_MAX_TOKENS, parse_yes_no
from kgagents.servers.llama import LOCAL_MAX_TOKENS, LlamaServer, llm_home

# (question, expected answer): 10 yes, 10 no.
YES_NO: list[tuple[str, bool]] = [
    ("Is 'Paper' the same concept as 'Article'?", True),
    ("Is 'Author' the same concept as 'Writer'?", True),
    ("Is 'Car' the same concept as 'Automobile'?", True),
    ("Is 'Film' the same concept as 'Movie'?", True),
    ("Is 'Physician' the same concept as 'Doctor'?", True),
    ("Is 'Start date' the same concept as 'Begin date'?", True),
    ("Is 'Heart attack' the same concept as 'Myocardial infarction'?", True),
    ("Is 'Reviewer' the same concept as 'Referee'?", True),
    ("Is every 'Student' a 'Person'?", True),
    ("Is every 'Dog' an 'Animal'?", True),
    ("Is 'Author' the same concept as 'Paper'?", False),
    ("Is 'Car' the same concept as 'Bicycle'?", False),
    ("Is 'Reviewer' the same concept as 'Review'?", False),
    ("Is 'Conference' the same concept as 'Hotel'?", False),
    ("Is 'Start date' the same concept as 'End date'?", False),
    ("Is 'Student' the same concept as 'Teacher'?", False),
    ("Is 'City' the same concept as 'Country'?", False),
    ("Is 'Heart' the same concept as 'Lung'?", False),
    ("Is every 'Person' a 'Student'?", False),
    ("Is every 'Animal' a 'Dog'?", False),
]

# (term, options, index of the right option): the right position varies.
PICK_ONE: list[tuple[str, list[str], int]] = [
    ("Automobile", ["Bicycle", "Car", "Road", "Driver"], 1),
    ("Physician", ["Doctor", "Hospital", "Patient", "Medicine"], 0),
    ("Movie", ["Book", "Song", "Film", "Actor"], 2),
    ("Referee of a paper", ["Author", "Chair", "Paper", "Reviewer"], 3),
    ("Writer", ["Reader", "Author", "Publisher", "Library"], 1),
    ("Begin date", ["End date", "Deadline", "Start date", "Duration"], 2),
    ("Human", ["Person", "Animal", "Robot", "Plant"], 0),
    ("Article", ["Author", "Venue", "Journal editor", "Paper"], 3),
    ("Myocardial infarction", ["Stroke", "Heart attack", "Fracture", "Fever"], 1),
    ("Email address", ["Phone number", "Postal address", "E-mail", "Website"], 2),
    ("Nation", ["Country", "City", "River", "Language"], 0),
    ("Kid", ["Adult", "Parent", "School", "Child"], 3),
    ("Sofa", ["Table", "Couch", "Lamp", "Carpet"], 1),
    ("Large", ["Small", "Thin", "Big", "Old"], 2),
    ("Photograph", ["Photo", "Sculpture", "Poem", "Song"], 0),
    ("Fast", ["Slow", "Heavy", "Late", "Quick"], 3),
    ("Organization", ["Person", "Organisation", "Event", "Place"], 1),
    ("Conference participant", ["Sponsor", "Venue", "Attendee", "Hotel"], 2),
    ("Purchase", ["Buy", "Sell", "Lend", "Steal"], 0),
    ("Lecturer", ["Student", "Building", "Exam", "Teacher"], 3),
]

#: The instruction kgagents used before issue 20 (kept here only to measure what it did).
OLD_YES_NO_INSTRUCTION = "Start your reply with the word yes or no, then give a short reason on the same line."


class AnswerOnly(BaseModel):
    answer: Literal["yes", "no"]


class AnswerFirst(BaseModel):
    answer: Literal["yes", "no"]
    reason: str = Field(max_length=120)


def _old_yes_no(chat: ChatModel, question: str, purpose: str) -> bool | None:
    ask: list[Message] = [{"role": "user", "content": f"{question}\n\n{OLD_YES_NO_INSTRUCTION}"}]

    def parse(text: str) -> tuple[Any, None] | tuple[None, str]:
        parsed = parse_yes_no(text)
        return (parsed[0], None) if parsed is not None else (None, "it did not start with yes or no.")

    ok, value, _ = ask_with_repair(chat, ask, parse, purpose=purpose, again=OLD_YES_NO_INSTRUCTION,
                                   max_tokens=YES_NO_MAX_TOKENS)
    return value if ok else None


def _json_yes_no(schema: type[BaseModel], shape: str, max_tokens: int) -> Callable[[ChatModel, Any, str], Any]:
    """Ask for ``shape`` under ``schema`` (decoded under it where the endpoint can); the answer or None."""
    def ask_it(chat: ChatModel, question: str, purpose: str) -> bool | None:
        ask: list[Message] = [{"role": "user", "content": f"{question}\n\nReply with one JSON object: {shape}."}]

        def parse(text: str) -> tuple[Any, None] | tuple[None, str]:
            parsed = parse_yes_no(text)
            return (parsed[0], None) if parsed is not None else (None, "it was not a JSON answer.")

        ok, value, _ = ask_with_repair(chat, ask, parse, purpose=purpose, again=f"Reply with {shape}.",
                                       json_schema=schema.model_json_schema(), max_tokens=max_tokens)
        return value if ok else None

    return ask_it


def _yes_no(chat: ChatModel, question: str, purpose: str) -> bool | None:
    try:
        return ask_yes_no(chat, question, purpose=purpose)[0]
    except StructuredOutputError:
        return None


# (variant, task, uses the schema, ask)
VARIANTS: list[tuple[str, str, bool, Callable[[ChatModel, Any, str], Any]]] = [
    ("yes_no/start-with-yes-or-no", "yes_no", False, _old_yes_no),
    ("yes_no/constrained", "yes_no", True, _yes_no),
    ("yes_no/constrained-answer-only", "yes_no", True,
     _json_yes_no(AnswerOnly, '{"answer": "yes" or "no"}', 16)),
    ("yes_no/constrained-answer-first", "yes_no", True,
     _json_yes_no(AnswerFirst, '{"answer": "yes" or "no", "reason": "<one short sentence>"}', YES_NO_MAX_TOKENS)),
    ("yes_no/unconstrained-json", "yes_no", False, _yes_no),
    ("pick_one/constrained", "pick_one", True,
     lambda chat, item, purpose: pick_one(chat, item[0], item[1], purpose=purpose)),
    ("pick_one/unconstrained-json", "pick_one", False,
     lambda chat, item, purpose: pick_one(chat, item[0], item[1], purpose=purpose)),
]


class Recorder(ChatModel):
    """Keeps the raw replies, so the results show what the model actually wrote."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.replies: list[str] = []

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        result = self.inner.complete(messages, **kwargs)
        self.replies.append(result.text)
        return result


def _items(task: str) -> list[tuple[Any, Any]]:
    if task == "yes_no":
        return [(q, expected) for q, expected in YES_NO]
    return [((f"Which option means the same as '{term}'?", options), options[right])
            for term, options, right in PICK_ONE]


def run_variant(base_url: str, model: str, variant: str, task: str, constrained: bool,
                ask: Callable[[ChatModel, Any, str], Any]) -> dict[str, Any]:
    settings = LLMSettings(base_url=base_url, model=model, temperature=0.0)
    client = OpenAIChatModel(settings, max_tokens=LOCAL_MAX_TOKENS, json_format="json_schema" if constrained else None,
                             extra_body={"cache_prompt": True})
    ledger = Ledger(settings)
    recorder = Recorder(client)
    chat = ledger.wrap(recorder)
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    for item, expected in _items(task):
        before = len(recorder.replies)
        answer = ask(chat, item, variant)
        replies = recorder.replies[before:]
        question, options = (item, None) if task == "yes_no" else item
        rows.append({"question": question, "options": options,
                     "expected": expected, "answer": answer, "replies": replies,
                     "first_reply_parsed": answer is not None and len(replies) == 1, "parsed": answer is not None,
                     "correct": answer == expected})
    seconds = time.perf_counter() - start
    totals = ledger.totals()
    parsed = [r for r in rows if r["parsed"]]
    summary: dict[str, Any] = {
        "variant": variant, "task": task, "constrained": constrained, "n": len(rows),
        "accuracy": sum(r["correct"] for r in rows) / len(rows),
        "parse_rate_first_reply": sum(r["first_reply_parsed"] for r in rows) / len(rows),
        "parse_rate_after_repair": len(parsed) / len(rows),
        "accuracy_of_parsed": (sum(r["correct"] for r in parsed) / len(parsed)) if parsed else None,
        "seconds": round(seconds, 1), "calls": totals.calls, "prompt_tokens": totals.prompt_tokens,
        "completion_tokens": totals.completion_tokens,
        "outcomes": [asdict(o) for o in ledger.outcomes()],
    }
    if task == "yes_no":
        summary["yes_share"] = sum(r["answer"] is True for r in rows) / len(rows)
    summary["items"] = rows
    return summary


def bench_model(name: str, *, threads: int | None, slots: int, port: int, base_url: str | None,
                on_variant: Callable[[str], None]) -> dict[str, Any]:
    """All variants for one model; with ``slots`` > 1 that many variants run at once (their ``seconds`` are
    then wall time shared with the others)."""
    server: LlamaServer | None = None
    start = time.perf_counter()
    if base_url:
        served: dict[str, Any] = {"base_url": base_url, "slots": slots}
    else:
        server = LlamaServer(LLMSettings(base_url=None, local_port=port, local_ctx=2048))
        status = server.start(model=name, threads=threads, parallel=slots)
        base_url = status.base_url
        served = {"threads": status.threads, "threads_chosen": status.threads_chosen, "slots": status.parallel,
                  "ctx_per_slot": status.ctx_per_slot, "load_at_start": status.load_at_start}
    startup_s = time.perf_counter() - start
    url = base_url

    def one(spec: tuple[str, str, bool, Callable[[ChatModel, Any, str], Any]]) -> dict[str, Any]:
        variant, task, constrained, ask = spec
        on_variant(f"{name}: {variant}")
        return run_variant(url, name, variant, task, constrained, ask)

    try:
        variants = map_on_slots(None, one, VARIANTS, workers=slots)
    finally:
        if server is not None:
            server.stop()
    spec = LOCAL_MODELS.get(name)
    return {"model": name, "title": spec.title if spec else None,
            "gguf_sha256": spec.sha256 if spec else None,
            "gguf": str(model_file(spec, llm_home())) if spec else None,
            "server": served, "startup_s": round(startup_s, 1), "variants": variants}


def run(models: list[str], *, out: Path, threads: int | None = None, slots: int = 1, port: int = 8799,
        base_url: str | None = None, on_variant: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Every variant for every model; writes ``<out>/llm/local/tasks.json`` and returns the results."""
    started = time.time()
    load_start = os.getloadavg()
    results = [bench_model(name, threads=threads, slots=slots, port=port, base_url=base_url, on_variant=on_variant)
               for name in models]
    report: dict[str, Any] = {"load_average_at_start": load_start, "temperature": 0.0,
                              "wall_seconds": round(time.time() - started, 1), "models": results}
    write_results(out, "llm/local/tasks", report)
    return report
