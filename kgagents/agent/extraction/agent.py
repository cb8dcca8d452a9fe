"""The constrained extraction agent: a LangGraph ReAct loop whose only actions are compiled ontology tools.

    plan → act ⇄ execute (per plan step, until the model says done or the budget is spent) → validate → ground

* ``plan``: the seed's iteration plan (:data:`~kgagents.agent.extraction.prompts.PLAN`) — entities first,
  then attributes and relations — with, per step, the tools offered (those whose names share words
  with the document first, at most ``tools_per_step``).
* ``act``: the model picks one tool and its arguments, seeing the document, the step, the tools, what
  it created (as handles ``E1``…) and the result of its last call.
* ``execute``: :meth:`ToolRuntime.call` — one transaction, every axiom checked. A violation comes back as
  structured feedback (error type, field, message, allowed values) for the next ``act`` to repair; with
  ``feedback`` off (the seed's ablation) the model only learns that the call failed. Nothing invalid is
  written either way.
* ``validate``: the ``validate`` tool on every instance created (missing required properties are
  reported in the result, not repaired).
* ``ground``: optional lexical grounding of created instances in a reference KG (``owl:sameAs``).

The agent never writes to Neo4j except through the runtime.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from kgagents.agent.extraction.prompts import (
    DONE, PLAN, REPLY_MAX_TOKENS, act_messages, observation, offered_tools, parse_action, reply_schema,
)
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.llm.client import ChatModel
from kgagents.tools.compiler import ToolKind
from kgagents.tools.runtime import ToolRuntime


class ToolCall(BaseModel):
    """One action: what the model asked for and what the tool answered."""

    step: str
    tool: str
    args: dict[str, Any]
    result: dict[str, Any]


class ExtractionResult(BaseModel):
    """What one document's extraction did (the A-Box itself is in Neo4j)."""

    abox: str
    model: str
    feedback: bool
    calls: list[ToolCall]
    unparsed_replies: int
    created: list[dict[str, str]]
    validation: list[dict[str, Any]]
    grounded: list[dict[str, Any]]
    budget_exhausted: bool
    seconds: float

    @property
    def rejected(self) -> int:
        return sum(not c.result.get("ok") for c in self.calls)


class ExtractState(TypedDict, total=False):
    step: int
    calls: list[dict[str, Any]]
    created: list[dict[str, str]]  # handle, iri, class, label
    last: str | None
    pending: dict[str, Any] | None  # the parsed action waiting for execute
    unparsed: int
    repeats: int
    exhausted: bool
    validation: list[dict[str, Any]]
    grounded: list[dict[str, Any]]


class ExtractionAgent:
    """Extract one document into ``runtime``'s A-Box with ``chat``."""

    def __init__(self, runtime: ToolRuntime, chat: ChatModel, settings: ExtractionSettings | None = None,
                 ground: Callable[[ToolRuntime], list[dict[str, Any]]] | None = None) -> None:
        self.runtime = runtime
        self.chat = chat
        self.settings = settings or ExtractionSettings()
        self.ground_fn = ground
        self.document = ""
        self.offers: list[list[Any]] = []

    # -- nodes ----------------------------------------------------------------------------------------
    def plan(self, state: ExtractState) -> ExtractState:
        self.offers = [offered_tools(self.runtime.catalogue, step, self.document, self.settings.tools_per_step)
                       for step in PLAN]
        return {"step": 0, "calls": [], "created": [], "last": None, "pending": None, "unparsed": 0, "repeats": 0,
                "exhausted": False}

    def act(self, state: ExtractState) -> ExtractState:
        step = state["step"]
        created = [(c["handle"], c["class"], c["label"]) for c in state["created"]]
        tools = self.offers[step]
        messages = act_messages(self.document, PLAN[step], step + 1, len(PLAN), tools, created, state["last"])
        reply = self.chat.complete(messages, purpose=f"extract:{PLAN[step].name}", json_schema=reply_schema(tools),
                                   max_tokens=REPLY_MAX_TOKENS).text
        parsed = parse_action(reply)
        if isinstance(parsed, str):
            return {"pending": None, "unparsed": state["unparsed"] + 1,
                    "last": f"your reply could not be used: {parsed}. Reply with one JSON object."}
        tool, args = parsed
        if tool == DONE:
            return {"pending": None, "step": step + 1, "last": None, "repeats": 0}
        return {"pending": {"tool": tool, "args": args}}

    def execute(self, state: ExtractState) -> ExtractState:
        action = state["pending"] or {}
        handles = {c["handle"]: c["iri"] for c in state["created"]}
        args = {k: handles.get(v, v) if isinstance(v, str) and k.endswith("_iri") else v
                for k, v in action["args"].items()}
        result = self.runtime.call(action["tool"], args).as_dict()
        calls = [*state["calls"], {"step": PLAN[state["step"]].name, "tool": action["tool"], "args": args,
                                   "result": result}]
        created = list(state["created"])
        spec = self.runtime.catalogue.tools.get(action["tool"])
        if result.get("ok") and spec is not None and spec.kind is ToolKind.CREATE:
            known = next((c for c in created if c["iri"] == result["iri"]), None)
            if known is None:
                known = {"handle": f"E{len(created) + 1}", "iri": result["iri"],
                         "class": self.runtime.tbox.label_of(spec.target or ""), "label": str(args.get("label"))}
                created.append(known)
            result = {**result, "handle": known["handle"]}
        previous = state["calls"][-1] if state["calls"] else None
        repeats = state["repeats"] + 1 if previous and (previous["tool"], previous["args"]) == (action["tool"], args) \
            else 0
        return {"calls": calls, "created": created, "pending": None, "repeats": repeats,
                "last": observation(result, self.settings.feedback)}

    def validate(self, state: ExtractState) -> ExtractState:
        reports = [{"iri": c["iri"], "label": c["label"], **self.runtime.call("validate", {"instance_iri": c["iri"]})
                    .as_dict()} for c in state["created"]]
        return {"validation": reports}

    def ground(self, state: ExtractState) -> ExtractState:
        return {"grounded": self.ground_fn(self.runtime) if self.ground_fn is not None else []}

    # -- routing --------------------------------------------------------------------------------------
    def _turns(self, state: ExtractState) -> int:
        return len(state["calls"]) + state["unparsed"]

    def after_act(self, state: ExtractState) -> str:
        if state["step"] >= len(PLAN):
            return "validate"
        if state.get("pending"):
            return "execute"
        return "act" if self._turns(state) < self.settings.max_steps else "exhausted"

    def after_execute(self, state: ExtractState) -> str:
        if self._turns(state) >= self.settings.max_steps:
            return "exhausted"
        if state["repeats"] >= self.settings.max_repeats:  # the same call again and again: this step is stuck
            return "next_step"
        return "act"

    def exhausted(self, state: ExtractState) -> ExtractState:
        return {"exhausted": True}

    def next_step(self, state: ExtractState) -> ExtractState:
        return {"step": state["step"] + 1, "repeats": 0, "last": None}

    def after_next_step(self, state: ExtractState) -> str:
        return "validate" if state["step"] >= len(PLAN) else "act"

    def build(self) -> Any:
        g = StateGraph(ExtractState)
        for name in ("plan", "act", "execute", "validate", "ground", "exhausted", "next_step"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "plan")
        g.add_edge("plan", "act")
        g.add_conditional_edges("act", self.after_act, ["execute", "act", "validate", "exhausted"])
        g.add_conditional_edges("execute", self.after_execute, ["act", "next_step", "exhausted"])
        g.add_conditional_edges("next_step", self.after_next_step, ["act", "validate"])
        g.add_edge("exhausted", "validate")
        g.add_edge("validate", "ground")
        g.add_edge("ground", END)
        return g.compile()

    def run(self, document: str) -> ExtractionResult:
        """Extract ``document``; every write went through the tools."""
        start = time.perf_counter()
        self.document = " ".join(document.split())
        state = self.build().invoke({}, {"recursion_limit": 4 * self.settings.max_steps + 20})
        return ExtractionResult(
            abox=self.runtime.abox, model=self.chat.model_name, feedback=self.settings.feedback,
            calls=[ToolCall(**c) for c in state["calls"]], unparsed_replies=state["unparsed"],
            created=state["created"], validation=state.get("validation", []), grounded=state.get("grounded", []),
            budget_exhausted=state.get("exhausted", False), seconds=time.perf_counter() - start,
        )


def summary(result: ExtractionResult) -> str:
    """One line per call, for logs and the CLI."""
    return "\n".join(f"[{c.step}] {c.tool}({json.dumps(c.args, ensure_ascii=False)}) -> "
                     f"{'ok' if c.result.get('ok') else c.result.get('error_type')}" for c in result.calls)
