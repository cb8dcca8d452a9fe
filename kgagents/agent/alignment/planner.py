"""The EA-Agent's planners: which tools to run for one source entity, in which order.

A valid path has 2–4 distinct tools: any selectors first, then the aligner, then optionally the reflector
last. The LLM planner asks for a numbered list and validates it; an unparseable or invalid answer is replaced
by the rule-based plan and the replacement is recorded (``Plan.source = "fallback"``, ``Plan.note``). The
rule-based planner (the "no LLM planner" variant): a selector for each kind of triple the entity has, the
aligner, and the reflector iff top-1 − top-2 < ``close_margin`` (0.3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from kgagents.agent.alignment.statistics import EntityStatistics
from kgagents.agent.alignment.tools import ALIGNER, ATTRIBUTE_SELECTOR, REFLECTOR, RELATION_SELECTOR, SELECTORS, TOOLS
from kgagents.llm.client import ChatModel

CLOSE_MARGIN = 0.3
PLANNER_MAX_TOKENS = 40  # four numbered tool names fit in ~30 tokens
_STEP = re.compile(r"^\s*(\d+)\s*[.):-]\s*`?([A-Za-z_ ]+?)`?\s*$")

TOOL_HELP = {
    ATTRIBUTE_SELECTOR: "keeps the most informative attributes",
    RELATION_SELECTOR: "keeps the most informative relation triples",
    ALIGNER: "picks one candidate",
    REFLECTOR: "re-checks the pick; only when top scores are close",
}


class Plan(BaseModel):
    """A tool path and where it came from (``note`` explains a fallback)."""

    path: list[str]
    source: Literal["llm", "rule", "fallback", "fixed", "gate"]
    note: str = ""


def validate_path(path: Sequence[str]) -> str | None:
    """Why ``path`` is not a valid tool order, or None when it is."""
    if not 2 <= len(path) <= 4:
        return f"a path has 2-4 tools, got {len(path)}"
    if unknown := [t for t in path if t not in TOOLS]:
        return f"unknown tools {unknown}"
    if len(set(path)) != len(path):
        return "a tool appears twice"
    if ALIGNER not in path:
        return "the aligner is missing"
    i = path.index(ALIGNER)
    if any(t not in SELECTORS for t in path[:i]):
        return "only selectors may come before the aligner"
    if path[i + 1:] not in ([], [REFLECTOR]):
        return "only the reflector may follow the aligner"
    return None


def parse_path(text: str) -> list[str]:
    """The tools of a numbered list ("1. relation_selector"), in their numbered order; other lines ignored."""
    steps = []
    for line in text.splitlines():
        match = _STEP.match(line)
        if match is not None:
            steps.append((int(match.group(1)), match.group(2).strip().lower().replace(" ", "_")))
    return [tool for _, tool in sorted(steps)]


def rule_plan(stats: EntityStatistics, close_margin: float = CLOSE_MARGIN) -> Plan:
    """Selectors for what the entity has, the aligner, the reflector iff the top-2 scores are close.

    An entity with neither attributes nor relations still gets the relation selector (it selects nothing), so
    every path has at least two tools like the LLM planner's.
    """
    path = [t for t, n in ((ATTRIBUTE_SELECTOR, stats.attribute_count), (RELATION_SELECTOR, stats.relation_count))
            if n > 0]
    close = stats.margin < close_margin
    if not path and not close:
        path = [RELATION_SELECTOR]
    path.append(ALIGNER)
    if close:
        path.append(REFLECTOR)
    return Plan(path=path, source="rule")


TOOL_LIST = "\n".join(f"- {name}: {help_}" for name, help_ in TOOL_HELP.items())
PATH_REPLY = ("Reply with only a numbered list of 2-4 tools, one per line (e.g. '1. relation_selector'): "
              "selectors, then aligner, then reflector if needed.")


def ask_for_path(chat: ChatModel, prompt: str, *, purpose: str) -> tuple[list[str], str | None]:
    """The tool path the chat model answers to ``prompt`` and why it is invalid (None when it is valid)."""
    reply = chat.complete([{"role": "user", "content": prompt}], purpose=purpose, max_tokens=PLANNER_MAX_TOKENS).text
    path = parse_path(reply)
    return path, validate_path(path)


class LLMPlanner:
    """Asks the chat model for a numbered tool path from the entity's statistics."""

    def __init__(self, chat: ChatModel, close_margin: float = CLOSE_MARGIN) -> None:
        self.chat = chat
        self.close_margin = close_margin

    def prompt(self, stats: EntityStatistics) -> str:
        return ("Plan the tools that align this knowledge-graph entity with its counterpart in another graph.\n"
                f"Entity: {stats.describe()}\nTools:\n{TOOL_LIST}\n{PATH_REPLY}")

    def plan(self, stats: EntityStatistics) -> Plan:
        path, problem = ask_for_path(self.chat, self.prompt(stats), purpose="ea-agent:plan")
        if problem is None:
            return Plan(path=path, source="llm")
        fallback = rule_plan(stats, self.close_margin)
        return Plan(path=fallback.path, source="fallback", note=f"planner reply rejected ({problem}): rule plan used")
