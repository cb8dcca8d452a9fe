"""What the extraction agent shows the model each turn, and how it reads the reply.

The model never sees Cypher or writes to the graph: it picks one compiled tool and its arguments.
Instances it created are shown as short handles (``E1``, ``E2``) that it may use instead of IRIs —
tiny models cannot copy 60-character IRIs reliably — and the agent maps them back before calling
the tool. The reply is one JSON object, ``{"tool": name, "args": {...}}`` or ``{"tool": "done"}``; the
JSON-schema hint lists the offered tool names, so a grammar-constrained server can only name those.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.llm.client import Message
from kgagents.llm.structured import extract_json
from kgagents.tools.compiler import ToolCatalogue, ToolGroup, ToolSpec

DONE = "done"
REPLY_MAX_TOKENS = 160


@dataclass(frozen=True)
class PlanStep:
    """One step of the seed's iteration plan and the tool groups it offers."""

    name: str
    instruction: str
    groups: tuple[ToolGroup, ...]


PLAN: tuple[PlanStep, ...] = (
    PlanStep("entities", "Create every entity the text mentions, each with the create tool of its class.",
             (ToolGroup.CREATE,)),
    PlanStep("attributes and relations",
             "Add the facts the text states: relations between the entities you created, attribute values and "
             "quantities. Use the E-numbers of created entities as subject_iri / object_iri (create a missing "
             "entity first).",
             (ToolGroup.RELATE, ToolGroup.ATTRIBUTE, ToolGroup.QUANTITY, ToolGroup.CREATE)),
)


def _words(text: str) -> set[str]:
    """Lower-case word stems of a text or a camelCase name (``hasTargetTemperature`` → has, target, temperature)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w[:5] for w in re.findall(r"[a-z0-9]+", spaced.lower()) if len(w) > 3}


def offered_tools(catalogue: ToolCatalogue, step: PlanStep, document: str, limit: int) -> list[ToolSpec]:
    """The step's tools, at most ``limit``: those whose class / property words occur in the document first
    (5-letter prefixes), then the rest, each group in catalogue order. Deterministic."""
    doc = _words(document)
    tools = [t for t in catalogue.tools.values() if t.group in step.groups]
    def overlap(t: ToolSpec) -> int:
        return len(_words(t.name.split("_", 1)[-1]) & doc)
    ranked = sorted(tools, key=lambda t: (-overlap(t), step.groups.index(t.group)))
    return ranked[:limit]


def _tool_line(tool: ToolSpec) -> str:
    rule = tool.description.split("(", 1)[1].split(")", 1)[0] if tool.group is not ToolGroup.CREATE else ""
    return f"- {tool.signature()}" + (f": {rule}" if rule else "")


def act_messages(document: str, step: PlanStep, step_number: int, steps: int, tools: Sequence[ToolSpec],
                 created: Sequence[tuple[str, str, str]], last: str | None) -> list[Message]:
    """The one user turn for the next action (small models follow a single user turn best)."""
    made = "\n".join(f"{h} = {cls} \"{label}\"" for h, cls, label in created) or "(nothing yet)"
    parts = [
        "You build a knowledge graph from a text, only by calling tools.",
        f"Text: \"{document}\"",
        f"Step {step_number} of {steps}: {step.instruction}",
        "Tools:\n" + "\n".join(_tool_line(t) for t in tools),
        f"Created so far:\n{made}",
    ]
    if last:
        parts.append(f"Result of your last call: {last}")
    parts.append('Reply with one JSON object: {"tool": "<tool name>", "args": {...}} to call a tool, or '
                 '{"tool": "done"} when this step is finished.')
    return [{"role": "user", "content": "\n\n".join(parts)}]


def reply_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    return {"type": "object", "properties": {"tool": {"type": "string", "enum": [*(t.name for t in tools), DONE]},
                                             "args": {"type": "object"}}, "required": ["tool"]}


def parse_action(text: str) -> tuple[str, dict[str, Any]] | str:
    """``(tool, args)`` from a reply (also ``{"name", "arguments"}``), or what is wrong with it."""
    try:
        obj = extract_json(text)
    except ValueError:
        return "the reply contains no JSON object"
    tool = obj.get("tool") or obj.get("name") or (DONE if obj.get("done") else None)
    args = obj.get("args", obj.get("arguments", {}))
    if not isinstance(tool, str) or not tool.strip():
        return 'the JSON object has no "tool"'
    if not isinstance(args, dict):
        return '"args" must be a JSON object'
    return tool.strip(), args


def observation(result: dict[str, Any], feedback: bool) -> str:
    """What the model sees of a tool result: all of it, or (feedback off, the ablation) only ok / failed."""
    if feedback or result.get("ok"):
        return json.dumps(result, ensure_ascii=False)
    return json.dumps({"ok": False})
