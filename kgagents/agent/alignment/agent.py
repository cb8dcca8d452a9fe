"""The EA-Agent as a LangGraph ``StateGraph`` over the candidates of a retrieval run stored in Neo4j.

    start → select → statistics → plan → execute → record ⟲ (while sources are left) → write

* ``start``: from the input ``{dataset | kg1 and kg2, retrieval_run_id[, sources][, run_id]}``, the two KGs, the
  run id and the queue of sources (default: every source the retrieval run stored candidates for); clears an
  earlier run of that id. Embedded in another LangGraph app, the compiled graph (:meth:`EAAgent.compile`) takes
  that input.
* ``select``: the next ``batch_size`` source entities of the run.
* ``statistics``: attribute / relation counts, name, top-3 candidate scores (:mod:`statistics`).
* ``plan``: a tool path per source (LLM planner, rule planner or a fixed path, by mode).
* ``execute``: the path — selectors shape what the aligner sees, the aligner picks, the reflector re-checks.
  A kind of triple reaches the LLM only through its selector (in the ``no_selectors`` ablation every triple
  does, up to :data:`ALL_TRIPLES_CAP` per entity).
* ``record``: per batch, in one transaction, ``(s)-[:SAME_AS {score, run_id, path, model}]->(t)`` and
  ``(:AlignTrace {run_id, source, path, initial, final, tokens, prompt_tokens, completion_tokens, seconds, reward,
  fallback, query, rewritten_path})-[:TRACE_OF]->(s)``, so an interrupted run keeps what it decided and its
  trajectories can be exported later (:mod:`kgagents.agent.alignment.export`). Tokens and seconds of a source
  include its planner call.
* ``write``: the trajectory JSONL, then the run is scored and marked finished (the ``(:Run {job: 'ea-agent'})`` node
  is written by the run store: ``start`` marks it running, ``write`` finished, :meth:`EAAgent.run` failed on error).

Gold links feed only the reward (γ_μ, c) and the run's Hits@1, never a decision; the nodes read them from Neo4j
(once per dataset), so a run embedded in another graph or resumed from a checkpoint scores like :meth:`EAAgent.run`.

Modes: ``full`` (LLM planner + tools), ``rule_planner``, ``no_planning`` (all four tools), ``llm_only`` (aligner
on names and scores, no triples), ``no_selectors`` (LLM planner, selectors replaced by all triples) and
``no_llm`` (retrieval top-1, fully offline).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from kgagents.agent.alignment.planner import LLMPlanner, Plan, rule_plan
from kgagents.agent.alignment.retrieval import pair_kgs, split_links
from kgagents.agent.alignment.reward import reward, rewrite_path, write_trajectories
from kgagents.agent.alignment.settings import EASettings, Mode
from kgagents.agent.alignment.statistics import EntityStatistics, entity_statistics
from kgagents.agent.alignment.tools import (
    ALIGNER,
    ALL_TRIPLES_CAP,
    ATTRIBUTE_SELECTOR,
    REFLECTOR,
    RELATION_SELECTOR,
    SELECTORS,
    TOOLS,
    AttributeTripleSelector,
    EntityAlignmentTool,
    EntityContext,
    GatedAligner,
    Reflector,
    RelationTripleSelector,
    candidate_views,
    entity_contexts,
    ranked,
    relation_frequencies,
)
from kgagents.agent.base import Agent, RunResult
from kgagents.graph.connection import GraphLike
from kgagents.graph.runs import new_run_id

NO_LLM_STEP = "retrieval_top1"


class EAState(TypedDict, total=False):
    """Everything a run carries between steps (JSON-serialisable, so any checkpointer can store it).

    Input: ``dataset`` (a loaded pair) or ``kg1`` and ``kg2``, and ``retrieval_run_id``, optionally ``sources`` and
    ``run_id``; ``start`` fills in the rest."""

    run_id: str
    retrieval_run_id: str
    dataset: str | None
    sources: list[str]
    kg1: str
    kg2: str
    queue: list[str]
    batch: list[str]
    statistics: dict[str, dict[str, Any]]
    plans: dict[str, dict[str, Any]]
    plan_costs: dict[str, dict[str, float]]
    results: list[dict[str, Any]]
    trajectories: list[dict[str, Any]]
    done: int


class EARunResult(BaseModel):
    """The EA-Agent's output in :attr:`RunResult.output` (the same numbers land on its (:Run) node)."""

    run_id: str
    mode: Mode
    sources: int
    aligned: int
    hits_at_1: float | None
    aligner_fallbacks: int
    plan_fallbacks: int
    mean_reward: float
    trajectories: int


class EAAgent(Agent[EASettings]):
    """The EA-Agent graph over one Neo4j database and (except in ``no_llm`` mode) one chat model.

    ``run({"dataset", "retrieval_run_id"[, "sources"][, "run_id"]})`` aligns the sources (default: every source of
    the retrieval run) and returns a :class:`~kgagents.agent.base.RunResult` whose ``output`` is an
    :class:`EARunResult`."""

    job = "ea-agent"
    settings_type = EASettings
    state_type = EAState
    metric = "hits_at_1"
    no_llm_label = "retrieval top-1"

    def __init__(self, graph: GraphLike, chat: Any = None, settings: EASettings | Mapping[str, Any] | None = None, *,
                 trajectories_path: Path | str | None = None) -> None:
        """``trajectories_path``: write the run's trajectories (JSONL) there at the end."""
        super().__init__(graph, chat, settings)
        self.trajectories_path = Path(trajectories_path) if trajectories_path else None
        self._frequencies: dict[str, dict[str, int]] = {}
        self._gold: dict[str, dict[str, str]] = {}

    # -- public ------------------------------------------------------------------------------------
    def build(self) -> StateGraph:
        """The uncompiled graph, for embedding as a subgraph in another LangGraph app."""
        g = StateGraph(EAState)
        for name in ("start", "select", "statistics", "plan", "execute", "record", "write"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "start")
        g.add_edge("start", "select")
        g.add_edge("select", "statistics")
        g.add_edge("statistics", "plan")
        g.add_edge("plan", "execute")
        g.add_edge("execute", "record")
        g.add_conditional_edges("record", lambda s: "select" if s.get("queue") else "write",
                                {"select": "select", "write": "write"})
        g.add_edge("write", END)
        return g

    def recursion_limit(self, state: Mapping[str, Any]) -> int:
        """Each batch of ``settings.batch_size`` sources takes 5 steps (with a margin). Embedding the compiled graph
        elsewhere, pass LangGraph at least ``agent.steps_for(number of sources)``."""
        return self.steps_for(len(state.get("sources") or state.get("queue") or []))

    def steps_for(self, sources: int) -> int:
        """LangGraph steps a run over ``sources`` source entities needs (with a margin)."""
        return 10 + 6 * (sources // self.settings.batch_size + 1)

    def prepare(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The input with its sources resolved (default: every source the retrieval run stored)."""
        return {**inputs, "sources": self._queue(inputs)}

    def run_properties(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        return {**super().run_properties(inputs), "dataset": inputs.get("dataset"),
                "retrieval_run_id": inputs.get("retrieval_run_id")}

    # -- nodes -------------------------------------------------------------------------------------
    def start(self, state: EAState) -> dict[str, Any]:
        kg1, kg2 = self._kgs(state)
        run_id = state.get("run_id") or new_run_id(self.job)
        self.start_run({**state, "run_id": run_id})
        self.graph.run("alignment_ea/agent_delete_alignments", kg1=kg1, run_id=run_id)
        return {"run_id": run_id, "kg1": kg1, "kg2": kg2, "queue": self._queue(state), "trajectories": [], "done": 0}

    def select(self, state: EAState) -> dict[str, Any]:
        self.ledger.run_id = state["run_id"]  # a resumed process: its calls belong to the run
        n = self.settings.batch_size
        return {"batch": state["queue"][:n], "queue": state["queue"][n:]}

    def statistics(self, state: EAState) -> dict[str, Any]:
        stats = entity_statistics(self.graph, kg1=state["kg1"], run_id=state["retrieval_run_id"],
                                  sources=state["batch"])
        return {"statistics": {s: st.model_dump() for s, st in stats.items()}}

    def plan(self, state: EAState) -> dict[str, Any]:
        plans, costs = {}, {}
        for source, raw in state["statistics"].items():
            started, calls_before = time.perf_counter(), len(self.ledger.records)
            plans[source] = self._plan(EntityStatistics(**raw)).model_dump()
            costs[source] = {**self._tokens_since(calls_before), "seconds": time.perf_counter() - started}
        return {"plans": plans, "plan_costs": costs}

    def execute(self, state: EAState) -> dict[str, Any]:
        kg1, kg2, batch = state["kg1"], state["kg2"], state["batch"]
        rows = self.graph.run("alignment_ea/agent_candidates", kg1=kg1, run_id=state["retrieval_run_id"], sources=batch)
        stored = {r["source"]: r["candidates"] for r in rows}
        sources = entity_contexts(self.graph, kg1, batch)
        targets = entity_contexts(self.graph, kg2, {c["target"] for cands in stored.values() for c in cands})
        results = []
        for source in batch:
            if source not in state["statistics"]:
                continue  # not an entity of kg1
            started = time.perf_counter()
            calls_before = len(self.ledger.records)
            result = self._execute_one(source, sources.get(source) or EntityContext(source, None), targets,
                                       stored.get(source, []), Plan(**state["plans"][source]), state)
            planner = state.get("plan_costs", {}).get(source, {})
            tokens = self._tokens_since(calls_before)
            result["prompt_tokens"] = int(tokens["prompt_tokens"] + planner.get("prompt_tokens", 0))
            result["completion_tokens"] = int(tokens["completion_tokens"] + planner.get("completion_tokens", 0))
            result["tokens"] = result["prompt_tokens"] + result["completion_tokens"]
            result["seconds"] = round(time.perf_counter() - started + planner.get("seconds", 0.0), 4)
            results.append(result)
        return {"results": results}

    def record(self, state: EAState) -> dict[str, Any]:
        results = state["results"]
        stored = ("source", "path", "initial", "final", "tokens", "prompt_tokens", "completion_tokens", "seconds",
                  "reward", "score", "plan_source", "notes", "fallback", "rewritten_path")
        with self.graph.transaction() as tx:
            self.graph.write_rows(tx, "alignment_ea/agent_write_alignments",
                                  [{**{k: r[k] for k in stored}, "query": json.dumps(r["query"], ensure_ascii=False)}
                                   for r in results],
                                  kg1=state["kg1"], kg2=state["kg2"], run_id=state["run_id"],
                                  model=self.model_name, mode=self.settings.mode)
        kept = ("query", "path", "reward", "rewritten_path", "source", "final", "fallback", "plan_fallback")
        trajectories = [*state.get("trajectories", []), *({k: r[k] for k in kept} for r in results)]
        return {"trajectories": trajectories, "done": state.get("done", 0) + len(results), "results": []}

    def write(self, state: EAState) -> dict[str, Any]:
        if self.trajectories_path is not None:
            write_trajectories(self.trajectories_path, state["trajectories"])
        self.finish_run(state)
        return {}

    # -- helpers -----------------------------------------------------------------------------------
    def _queue(self, state: Mapping[str, Any]) -> list[str]:
        """The input's sources, else every source the retrieval run stored candidates for."""
        if state.get("sources") is not None:
            return list(state["sources"])
        kg1, _ = self._kgs(state)
        return [r["source"] for r in self.graph.run("alignment_ea/agent_run_sources", kg1=kg1,
                                                     run_id=state["retrieval_run_id"])]

    def _kgs(self, state: Mapping[str, Any]) -> tuple[str, str]:
        """(source KG, target KG): the input's, else those of its dataset."""
        if state.get("kg1") and state.get("kg2"):
            return state["kg1"], state["kg2"]
        return pair_kgs(self.graph, state["dataset"])

    def _gold_of(self, dataset: str | None) -> dict[str, str]:
        """Test gold links of ``dataset`` (source → target), read once; empty when ``use_gold`` is off or there is
        no dataset."""
        if dataset is None:
            return {}
        if dataset not in self._gold:
            self._gold[dataset] = dict(split_links(self.graph, dataset)) if self.settings.use_gold else {}
        return self._gold[dataset]

    def _plan(self, stats: EntityStatistics) -> Plan:
        mode = self.settings.mode
        if mode == "no_llm":
            return Plan(path=[NO_LLM_STEP], source="fixed")
        if mode == "no_planning":
            return Plan(path=list(TOOLS), source="fixed")
        if mode == "llm_only":
            return Plan(path=[ALIGNER], source="fixed")
        if mode == "gated":
            gate = self.settings.gate_margin
            if gate is not None and stats.margin >= gate:
                return Plan(path=[NO_LLM_STEP], source="gate", note=f"margin {stats.margin:.3f} >= gate {gate:g}")
            return Plan(path=[RELATION_SELECTOR, ALIGNER], source="gate")
        if mode == "rule_planner":
            return rule_plan(stats, self.settings.close_margin)
        assert self.chat is not None
        plan = LLMPlanner(self.chat, self.settings.close_margin).plan(stats)
        if mode == "no_selectors":
            plan.path = [t for t in plan.path if t not in SELECTORS]
        return plan

    def _tokens_since(self, calls_before: int) -> dict[str, int]:
        records = self.ledger.records[calls_before:]
        return {"prompt_tokens": sum(r.prompt_tokens for r in records),
                "completion_tokens": sum(r.completion_tokens for r in records)}

    def _frequencies_of(self, kg: str) -> dict[str, int]:
        if kg not in self._frequencies:
            self._frequencies[kg] = relation_frequencies(self.graph, kg)
        return self._frequencies[kg]

    def _execute_one(self, source: str, raw_src: EntityContext, raw_targets: Mapping[str, EntityContext],
                     stored: Sequence[dict[str, Any]], plan: Plan, state: EAState) -> dict[str, Any]:
        """Run one source's path on copies of the raw contexts (the selectors read the raw ones)."""
        src = EntityContext(raw_src.id, raw_src.name, list(raw_src.attributes), list(raw_src.triples))
        retrieved = candidate_views(raw_targets, stored)
        cands = ranked(retrieved, self.settings.prompt_candidates)  # what the selectors and LLM tools work on

        def raw(ctx: EntityContext) -> EntityContext:
            return raw_src if ctx is src else raw_targets.get(ctx.id, EntityContext(ctx.id, None))

        stats = EntityStatistics(**state["statistics"][source])
        notes = [plan.note] if plan.note else []
        gold = self._gold_of(state.get("dataset")).get(source)
        empty: list[str] = []
        fallback = asked_confirmer = False
        if not cands:
            initial = final = None
            notes.append("no candidates stored for this source")
        elif NO_LLM_STEP in plan.path:
            initial = final = retrieved[0].id
        else:
            assert self.chat is not None
            shown = [src, *cands]
            keep_all = self.settings.mode == "no_selectors"
            for ctx in shown:  # a kind of triple reaches the LLM only through its selector
                ctx.attributes = ctx.attributes[:ALL_TRIPLES_CAP] if keep_all else []
                ctx.triples = ctx.triples[:ALL_TRIPLES_CAP] if keep_all else []
            initial = final = cands[0].id
            for tool in plan.path:
                if tool == ATTRIBUTE_SELECTOR:
                    pool = [raw(c).attributes for c in cands]
                    selector = AttributeTripleSelector(self.settings.attribute_limit)
                    for ctx in shown:
                        ctx.attributes = selector.select(raw(ctx).attributes, pool)
                    if not src.attributes:
                        empty.append(tool)
                elif tool == RELATION_SELECTOR:
                    s = self.settings
                    limit = s.gated_triples if s.mode == "gated" else s.relation_limit
                    for ctx, kg in ((src, state["kg1"]), *((c, state["kg2"]) for c in cands)):
                        selector_r = RelationTripleSelector(self._frequencies_of(kg), limit)
                        ctx.triples = selector_r.select(raw(ctx).triples)
                    if not src.triples:
                        empty.append(tool)
                elif tool == ALIGNER and self.settings.mode == "gated":
                    choice, confirmed = GatedAligner(self.chat).align(src, cands)
                    initial = final = choice.target
                    fallback = choice.fallback
                    asked_confirmer = confirmed
                    notes.append(choice.note)
                elif tool == ALIGNER:
                    choice = EntityAlignmentTool(self.chat).align(src, cands)
                    initial = final = choice.target
                    fallback = choice.fallback
                    if choice.note:
                        notes.append(choice.note)
                elif tool == REFLECTOR:
                    choice = Reflector(self.chat).reflect(src, cands, initial)
                    final = choice.target
                    if choice.note:
                        notes.append(choice.note)
        path = [*plan.path, REFLECTOR] if asked_confirmer else plan.path
        score = next((c.score for c in retrieved if c.id == final), None)
        return {
            "source": source, "path": path, "initial": initial, "final": final, "score": score,
            "plan_source": plan.source, "notes": notes, "fallback": fallback,
            "plan_fallback": plan.source == "fallback",
            "gold": gold, "reward": reward(path=path, initial=initial, final=final, gold=gold),
            "rewritten_path": rewrite_path(path, initial=initial, final=final, margin=stats.margin,
                                           empty_selectors=empty, close_margin=self.settings.close_margin),
            "query": stats.model_dump(),
        }

    def result(self, state: Mapping[str, Any]) -> RunResult:
        traj = state.get("trajectories", [])
        gold = self._gold_of(state.get("dataset"))
        golds = [(t["final"], gold[t["source"]]) for t in traj if t["source"] in gold]
        output = EARunResult(
            run_id=state["run_id"], mode=self.settings.mode, sources=len(traj),
            aligned=sum(1 for t in traj if t["final"] is not None),
            hits_at_1=(sum(f == g for f, g in golds) / len(golds)) if golds else None,
            aligner_fallbacks=sum(1 for t in traj if t["fallback"]),
            plan_fallbacks=sum(1 for t in traj if t["plan_fallback"]),
            mean_reward=(sum(t["reward"] for t in traj) / len(traj)) if traj else 0.0,
            trajectories=len(traj) if self.trajectories_path is not None else 0,
        )
        counts = output.model_dump(exclude={"run_id", "mode", "hits_at_1"})
        return self.new_result(state, scores={"hits_at_1": output.hits_at_1}, output=output,
                               properties={**counts, "dataset": state.get("dataset"), "kg1": state.get("kg1"),
                                           "kg2": state.get("kg2"), "retrieval_run_id": state["retrieval_run_id"]})
