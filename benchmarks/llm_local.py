"""Pick the embedded model: speed and format-following of each candidate GGUF model on this machine.

For each model in kgagents.llm.local_server.LOCAL_MODELS: start the embedded llama.cpp server with
``--threads`` threads, measure prompt and generation tokens/s, then ask 20 yes/no and 20 pick-one
questions with unambiguous, hand-written answers (easy ontology-matching style) through the same
helpers the agents use ("text": plain reply, lenient parsing, one repair) and through structured()
with the schema sent as JSON mode ("json": grammar-constrained by llama.cpp). Parse rate (the reply
followed the format) and accuracy are reported apart: a model that follows the format but answers at
random is as useless as one that rambles.

    .venv/bin/python benchmarks/llm_local.py [--models NAME ...] [--threads 2] [--port 8799]

Writes benchmarks/results/llm_local.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Literal

from openai import OpenAI
from pydantic import BaseModel

from kgagents.config import LLMSettings
from kgagents.errors import StructuredOutputError
from kgagents.llm import ChatModel, ChatResult, Ledger, Message, OpenAIChatModel, ask_yes_no, pick_one, structured
from kgagents.llm.local_server import LOCAL_JSON_FORMAT, LOCAL_MAX_TOKENS, LOCAL_MODELS, LocalLLMServer

RESULTS = Path(__file__).resolve().parent / "results" / "llm_local.json"

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

PROMPT_TEXT = (
    "An ontology describes the concepts of a domain and the relations between them. In a conference "
    "ontology there are papers, authors, reviewers, program committee members, sessions, tracks, "
    "deadlines, registrations, fees and venues. Ontology matching finds which concepts of two "
    "ontologies mean the same thing, for example a class named Paper in one ontology and a class named "
    "Article in another. Matchers compare names, labels, comments, superclasses and properties. "
)


class YesNo(BaseModel):
    answer: Literal["yes", "no"]
    reason: str


class Pick(BaseModel):
    option: int


class Recorder(ChatModel):
    """Keeps the raw replies, so the results show what the model actually wrote."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.replies: list[str] = []

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def complete(self, messages: Sequence[Message], *, purpose: str, json_schema: dict[str, Any] | None = None,
                 max_tokens: int | None = None) -> ChatResult:
        result = self.inner.complete(messages, purpose=purpose, json_schema=json_schema, max_tokens=max_tokens)
        self.replies.append(result.text)
        return result


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _speed(base_url: str, model: str) -> dict[str, Any]:
    """Prompt tokens/s: a long, new chat prompt with a 1-token reply. Generation tokens/s: a raw text
    prompt (plain completion, so a base model continues it too) is sent once for 1 token, then again for
    128 — llama.cpp reuses the cached prompt, so the second call's time is generation only. Best of two
    tries (the machine is shared)."""
    client = OpenAI(base_url=base_url, api_key="not-needed", max_retries=0, timeout=600)

    def timed(content: str, max_tokens: int) -> tuple[float, Any]:
        start = time.perf_counter()
        r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": content}],
                                           max_tokens=max_tokens, temperature=0)
        return time.perf_counter() - start, r.usage

    def timed_text(text: str, max_tokens: int) -> tuple[float, Any]:
        start = time.perf_counter()
        r = client.completions.create(model=model, prompt=text, max_tokens=max_tokens, temperature=0)
        return time.perf_counter() - start, r.usage

    prompt_tps: list[float] = []
    gen_tps: list[float] = []
    for attempt in range(2):
        seconds, usage = timed(f"Text {attempt}:\n{PROMPT_TEXT * 6}\nSummarise the text above in one word.", 1)
        prompt_tps.append(usage.prompt_tokens / seconds)
        listing = f"A list of {30 + attempt} things found at a scientific conference, one per line:\n1."
        timed_text(listing, 1)
        seconds, usage = timed_text(listing, 128)
        if usage.completion_tokens >= 8:  # a model that stops at once has no measurable generation speed
            gen_tps.append(usage.completion_tokens / seconds)
    return {
        "prompt_tokens_per_s": round(max(prompt_tps), 1),
        "generation_tokens_per_s": round(max(gen_tps), 1) if gen_tps else None,
    }


def _ask(mode: str, chat: ChatModel, task: str, question: str, options: list[str]) -> Any:
    """One benchmark question. ``text``: the agents' helpers (plain-text reply, lenient parsing, one
    repair). ``json``: structured() with the schema sent as JSON mode (grammar-constrained on llama.cpp)."""
    try:
        if mode == "text" and task == "yes_no":
            return ask_yes_no(chat, question, purpose=f"bench-{task}")[0]
        if mode == "text":
            return pick_one(chat, question, options, purpose=f"bench-{task}")
        if task == "yes_no":
            return structured(chat, [{"role": "user", "content": question}], YesNo,
                              purpose=f"bench-{task}").answer == "yes"
        listing = "\n".join(f"{i}. {o}" for i, o in enumerate(options, start=1))
        number = structured(chat, [{"role": "user", "content": f"{question}\n\nOptions:\n{listing}\n\n"
                                                              "Give the number of the correct option."}],
                            Pick, purpose=f"bench-{task}").option
        return options[number - 1] if 1 <= number <= len(options) else None
    except StructuredOutputError:
        return None


def _format_check(chat: OpenAIChatModel, mode: str) -> dict[str, Any]:
    ledger = Ledger(LLMSettings())
    recorder = Recorder(chat)
    wrapped = ledger.wrap(recorder)
    questions = [("yes_no", q, [], expected) for q, expected in YES_NO] + [
        ("pick_one", f"Which option means the same as '{term}'?", options, options[right])
        for term, options, right in PICK_ONE
    ]
    items: list[dict[str, Any]] = []
    start = time.perf_counter()
    for task, question, options, expected in questions:
        before = len(recorder.replies)
        answer = _ask(mode, wrapped, task, question, options)
        replies = recorder.replies[before:]
        parsed = answer is not None
        items.append({"task": task, "question": question, "options": options or None, "expected": expected,
                      "answer": answer, "replies": replies, "first_reply_parsed": parsed and len(replies) == 1,
                      "parsed": parsed, "correct": answer == expected})
    seconds = time.perf_counter() - start

    def summary(task: str) -> dict[str, Any]:
        rows = [i for i in items if i["task"] == task]
        parsed = [i for i in rows if i["parsed"]]
        return {
            "n": len(rows),
            "parse_rate_first_reply": sum(i["first_reply_parsed"] for i in rows) / len(rows),
            "parse_rate_after_repair": len(parsed) / len(rows),
            "accuracy": sum(i["correct"] for i in rows) / len(rows),
            "accuracy_of_parsed": (sum(i["correct"] for i in parsed) / len(parsed)) if parsed else None,
        }

    totals = ledger.totals()
    return {"yes_no": summary("yes_no"), "pick_one": summary("pick_one"), "seconds": round(seconds, 1),
            "calls": totals.calls, "prompt_tokens": totals.prompt_tokens,
            "completion_tokens": totals.completion_tokens, "items": items}


def bench_model(name: str, port: int, threads: int) -> dict[str, Any]:
    settings = LLMSettings(base_url=None, local_model=name, local_port=port, local_threads=threads)
    server = LocalLLMServer(settings)
    model = LOCAL_MODELS[name]
    gguf = model.locate(server.home)
    start = time.perf_counter()
    status = server.start()
    startup_s = time.perf_counter() - start
    try:
        chat = OpenAIChatModel(settings, base_url=status.base_url, model=name, max_tokens=LOCAL_MAX_TOKENS,
                               json_format=LOCAL_JSON_FORMAT)
        speed = _speed(status.base_url, name)
        checks = {mode: _format_check(chat, mode) for mode in ("text", "json")}
    finally:
        server.stop()
    return {"model": name, "requirement": model.requirement, "gguf": gguf.name,
            "gguf_bytes": gguf.stat().st_size, "startup_s": round(startup_s, 1), **speed, "format_check": checks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    results = []
    for name in args.models:
        print(f"== {name}", flush=True)
        result = bench_model(name, args.port, args.threads)
        brief = {**result, "format_check": {m: {k: v for k, v in c.items() if k != "items"}
                                            for m, c in result["format_check"].items()}}
        print(json.dumps(brief, indent=1), flush=True)
        results.append(result)
    # Default: best mean accuracy of the agents' text helpers, then their parse rate, then prompt speed.
    def rank(r: dict[str, Any]) -> tuple[float, float, float]:
        text = r["format_check"]["text"]
        return ((text["yes_no"]["accuracy"] + text["pick_one"]["accuracy"]) / 2,
                (text["yes_no"]["parse_rate_after_repair"] + text["pick_one"]["parse_rate_after_repair"]) / 2,
                r["prompt_tokens_per_s"])

    best = max(results, key=rank)
    report = {
        "command": " ".join([".venv/bin/python", "benchmarks/llm_local.py", *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "threads": args.threads, "platform": platform.platform(),
                    "load_average_at_end": os.getloadavg()},
        "server": {"llama_cpp_python": _package_version("llama_cpp_python"), "temperature": 0.0},
        "chosen_default": best["model"],
        "models": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"chosen default: {best['model']}; wrote {args.out}")


if __name__ == "__main__":
    main()
