"""ODA (observe → act → reflect) as a LangGraph ``StateGraph``; every KG access is a Cypher query in Neo4j.

    observe → act ─┬─ GetNeighbor / GetPath → tool → reflect ─┬─ observe   (next iteration)
                   │                                          └─ answer    (iteration cap hit)
                   └─ Answer → answer → END
    observe → baseline → END                                               (mode no_llm)

* ``observe``: the recursive observation from the current entities (:mod:`observation`); none in the
  ``no_observation`` ablation.
* ``act``: the LLM picks GetNeighbor (only with fewer than two entity ids), GetPath or Answer, seeing the
  question, memory, entity ids, the best observation triples, labels and the actions taken so far.
* ``tool``: runs the chosen tool (:mod:`tools`).
* ``reflect``: keeps at most K of the tool's triples in memory (LLM selection; the ablations select by
  similarity, at random, or let the LLM write facts instead), and their far ends become the next entities.
* ``answer``: the LLM answers from memory and observation, after Answer or after ``max_iterations`` rounds
  (``cap_hit`` recorded). ``baseline`` (no LLM): the far end of the best-scoring observed triple.

The state is plain JSON, so any LangGraph checkpointer can store and resume one question. :meth:`ODAAgent.run`
answers a list of questions and stores their traces in Neo4j in batches (:mod:`kgagents.agent.kgqa.store`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any, TypedDict

import numpy as np
from langgraph.graph import END, START, StateGraph

from kgagents.agent.kgqa.llm_steps import Action, LLMSteps, resolve_entity
from kgagents.agent.kgqa.memory import next_entities, remember
from kgagents.agent.kgqa.observation import Observer
from kgagents.agent.kgqa.prompts import ANSWER, NEIGHBOR
from kgagents.agent.kgqa.questions import presence, question_text, topic_ids
from kgagents.agent.kgqa.readings import require_triple_vectors
from kgagents.agent.kgqa.results import KGQARun, QuestionResult
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import trace_row, write_run, write_traces
from kgagents.agent.kgqa.tools import get_neighbor, get_path
from kgagents.agent.kgqa.triples import Triple, triples
from kgagents.candidates import CandidateEngine
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.errors import ChatModelRequiredError
from kgagents.graph import runs
from kgagents.graph.connection import GraphLike, connect
from kgagents.llm.langchain import as_chat_model
from kgagents.llm.ledger import Ledger
from kgagents.loaders.qa import Question

NO_LLM_MODEL = "none (no-llm: best-scoring observed tail)"
#: traces written per transaction
TRACE_BATCH = 500


def new_run_id() -> str:
    return runs.new_run_id("kgqa")


class QAState(TypedDict, total=False):
    """One question's run (JSON-serialisable)."""

    question_id: str
    question: str
    question_vector: list[float]
    topics: list[str]
    entities: list[str]
    labels: dict[str, str]
    observation: list[dict[str, Any]]
    memory: list[list[dict[str, Any]]]
    history: list[dict[str, Any]]
    pending: dict[str, Any]
    output: list[dict[str, Any]]
    iteration: int
    answer: str
    top_entity: str | None
    answer_entities: list[str]
    cap_hit: bool
    steps: list[dict[str, Any]]
    observe_seconds: list[float]
    reflect_fallbacks: int


def _labels(state: Mapping[str, Any], found: Sequence[Triple]) -> dict[str, str]:
    labels = dict(state.get("labels", {}))
    for t in found:
        labels.setdefault(t.head, t.head_name)
        labels.setdefault(t.tail, t.tail_name)
    return labels


class ODAAgent:
    """The ODA graph over one KG in Neo4j and (except in mode ``no_llm``) one chat model."""

    def __init__(self, graph: GraphLike, chat: Any = None, settings: KGQASettings | None = None, *, kg: str,
                 engine: CandidateEngine | None = None) -> None:
        """``graph``: a :class:`Graph`, ``neo4j.Driver`` or URI; ``kg``: the name of a loaded KG whose triple
        readings are embedded (``kgagents embed --kg NAME --triples``); ``chat``: any chat model
        :func:`~kgagents.llm.as_chat_model` accepts, required unless ``settings.mode == 'no_llm'``. Its calls are
        recorded in ``self.ledger``. The sampling temperature is the chat model's own: the CLI builds it with
        ``settings.temperature`` (0.4)."""
        self.graph = connect(graph)
        self.kg = kg
        self.settings = settings or KGQASettings()
        if self.settings.mode != "no_llm" and chat is None:
            raise ChatModelRequiredError(f"KGQA mode '{self.settings.mode}' needs a chat model (chat=...); use "
                                         "KGQASettings(mode='no_llm') for the offline baseline")
        self.ledger = Ledger()
        self.chat = self.ledger.wrap(as_chat_model(chat)) if self.settings.mode != "no_llm" else None
        self.llm = LLMSteps(self.chat, self.settings.max_tokens) if self.chat is not None else None
        self.engine = engine or CandidateEngine(self.graph)
        self.embedder: Embedder | None = None
        self.observer = Observer(self.graph, kg, self.settings, self.engine)

    @property
    def model_name(self) -> str:
        return self.chat.model_name if self.chat is not None else NO_LLM_MODEL

    # -- graph ---------------------------------------------------------------------------------
    def build(self) -> StateGraph:
        """The uncompiled graph (embeddable as a subgraph)."""
        g = StateGraph(QAState)
        for name in ("start", "observe", "act", "tool", "reflect", "answer", "baseline"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "start")
        g.add_edge("start", "observe")
        g.add_conditional_edges("observe", lambda s: "baseline" if self.llm is None else "act",
                                {"baseline": "baseline", "act": "act"})
        g.add_conditional_edges("act", lambda s: "answer" if s["pending"]["action"] == ANSWER else "tool",
                                {"answer": "answer", "tool": "tool"})
        g.add_edge("tool", "reflect")
        g.add_conditional_edges("reflect", self._after_reflect, {"observe": "observe", "answer": "answer"})
        g.add_edge("answer", END)
        g.add_edge("baseline", END)
        return g

    def compile(self, checkpointer: Any = None) -> Any:
        return self.build().compile(checkpointer=checkpointer)

    def _after_reflect(self, state: QAState) -> str:
        return "answer" if state["iteration"] >= self.settings.max_iterations else "observe"

    @staticmethod
    def initial_state(question_id: str, question: str, vector: np.ndarray, topics: Mapping[str, str]) -> QAState:
        """Input for one question with its vector already computed (a run embeds all its questions at once);
        ``topics`` maps topic entity ids to names."""
        return {"question_id": question_id, "question": question, "question_vector": vector.tolist(),
                "topics": list(topics), "labels": dict(topics)}

    # -- nodes ---------------------------------------------------------------------------------
    def start(self, state: QAState) -> dict[str, Any]:
        """Complete the input: ``{"question", "topics"}`` is enough (the question is embedded and the topics'
        names read from the KG when not given)."""
        out: dict[str, Any] = {"question_id": state.get("question_id") or "question", "entities": list(state["topics"]),
                               "memory": [], "history": [], "iteration": 0, "cap_hit": False, "steps": [],
                               "observe_seconds": [], "reflect_fallbacks": 0}
        if not state.get("question_vector"):
            out["question_vector"] = self._embedder().embed([question_text(state["question"])])[0].tolist()
        if not state.get("labels"):
            names = {r["id"]: r["name"] for r in self.graph.run("kgqa/entity_names", kg=self.kg, ids=state["topics"])}
            out["labels"] = {t: names.get(t, t) for t in state["topics"]}
        return out

    def _embedder(self) -> Embedder:
        if self.embedder is None:
            self.embedder = get_embedder()
        return self.embedder

    # -- nodes ---------------------------------------------------------------------------------
    def observe(self, state: QAState) -> dict[str, Any]:
        if self.settings.mode == "no_observation":
            return {"observation": []}
        obs = self.observer.observe(np.asarray(state["question_vector"], dtype=np.float32), state["entities"])
        return {"observation": [t.as_dict() for t in obs.triples], "labels": _labels(state, obs.triples),
                "observe_seconds": [*state.get("observe_seconds", []), obs.seconds]}

    def _shown(self, state: QAState) -> list[Triple]:
        return triples(state.get("observation", [])[: self.settings.observation_shown])

    def act(self, state: QAState) -> dict[str, Any]:
        assert self.llm is not None
        action = self.llm.act(state["question"], entities=state["entities"], labels=state["labels"],
                              memory=state["memory"], observation=self._shown(state), history=state["history"])
        return {"pending": action.as_dict(), "history": [*state["history"], action.as_dict()]}

    def tool(self, state: QAState) -> dict[str, Any]:
        action = Action(state["pending"]["action"], state["pending"]["args"])
        question = np.asarray(state["question_vector"], dtype=np.float32)
        if action.name == NEIGHBOR:
            found = get_neighbor(self.graph, self.engine, self.kg, action.args[0], question, self.settings)
        else:
            found = get_path(self.graph, self.kg, action.args[0], action.args[1], self.settings)
        return {"output": [t.as_dict() for t in found], "labels": _labels(state, found)}

    def reflect(self, state: QAState) -> dict[str, Any]:
        s, mode = self.settings, self.settings.mode
        output, iteration = triples(state["output"]), state["iteration"] + 1
        fallback = False
        if not output:
            kept: list[Triple] = []
        elif mode == "reflect_similarity":
            kept = sorted(output, key=lambda t: -t.score)[: s.reflect_k]
        elif mode == "reflect_random":
            rng = random.Random(f"{s.seed}:{state['question_id']}:{iteration}")
            kept = rng.sample(output, min(s.reflect_k, len(output)))
        elif mode == "reflect_generated":
            assert self.llm is not None
            kept = self.llm.generate(state["question"], memory=state["memory"], output=output,
                                     labels=state["labels"], k=s.reflect_k, tag=f"generated:{iteration}")
        else:
            assert self.llm is not None
            kept, fallback = self.llm.reflect(state["question"], memory=state["memory"], output=output,
                                              k=s.reflect_k)
        known = [e for e in next_entities(kept) if e in state["labels"]]
        step = {"iteration": iteration, "action": state["pending"], "observed": len(state.get("observation", [])),
                "output": len(output), "kept": [t.as_dict() for t in kept], "reflect_fallback": fallback}
        return {"memory": remember(state["memory"], kept), "entities": known or state["entities"],
                "iteration": iteration, "steps": [*state["steps"], step],
                "reflect_fallbacks": state.get("reflect_fallbacks", 0) + int(fallback)}

    def answer(self, state: QAState) -> dict[str, Any]:
        assert self.llm is not None
        text = self.llm.answer(state["question"], memory=state["memory"], observation=self._shown(state))
        resolved = [resolve_entity(line, state["labels"]) for line in text.splitlines()]
        capped = state["pending"]["action"] != ANSWER
        return {"answer": text, "top_entity": resolved[0] if resolved else None,
                "answer_entities": list(dict.fromkeys(e for e in resolved if e)), "cap_hit": capped}

    def baseline(self, state: QAState) -> dict[str, Any]:
        best = next((t for t in triples(state["observation"]) if t.target not in state["topics"]), None)
        if best is None:
            return {"answer": "", "top_entity": None, "answer_entities": []}
        return {"answer": best.target_name, "top_entity": best.target, "answer_entities": [best.target]}

    # -- a run over many questions -------------------------------------------------------------
    def run(self, questions: Sequence[Question], *, run_id: str | None = None, workers: int = 1,
            embedder: Embedder | None = None, dataset: str | None = None,
            on_question: Callable[[QuestionResult], None] | None = None) -> KGQARun:
        """Answer ``questions``: check the KG has its triple readings, embed the questions once, run the graph per
        question (``workers`` at once in mode ``no_llm``; one at a time with an LLM, whose calls are counted per
        question from the ledger), score answers that have gold, and store the traces in batches."""
        require_triple_vectors(self.graph, self.kg)
        s = self.settings
        run_id = run_id or new_run_id()
        self.ledger.run_id = run_id
        workers = workers if self.llm is None else 1
        run = KGQARun(run_id, self.kg, s.mode, self.model_name, s.model_dump(), workers=workers)
        write_run(self.graph, run_id, {"kg": self.kg, "mode": s.mode, "model": run.model, "dataset": dataset,
                                       "started_at": datetime.now(timezone.utc).isoformat(), **run.settings})
        names, gold_ids, gold_names = presence(self.graph, self.kg, questions)
        started = time.perf_counter()
        if embedder is not None:
            self.embedder = embedder
        vectors = self._embedder().embed([question_text(q.question) for q in questions]) if questions else []
        run.embed_seconds = time.perf_counter() - started
        app = self.compile()
        config = {"recursion_limit": 5 * s.max_iterations + 10}

        def answer(i: int) -> tuple[QuestionResult, dict[str, Any]]:
            q = questions[i]
            topics = {t: names.get(t, t) for t in topic_ids(q)}
            calls_before = len(self.ledger.records)
            t0 = time.perf_counter()
            state = app.invoke(self.initial_state(q.id, q.question, vectors[i], topics), config)
            result = QuestionResult.of(q, state, seconds=time.perf_counter() - t0,
                                       calls=self.ledger.records[calls_before:], topic_in_kg=any(t in names for t in topics),
                                       gold_ids=gold_ids, gold_names=gold_names, shown=s.observation_shown)
            return result, trace_row(state, shown=s.observation_shown,
                                     extra={**result.trace_fields(), "dataset": q.dataset,
                                            "gold": [a.name for a in q.answers], "model": run.model})

        pending: list[dict[str, Any]] = []
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for result, row in pool.map(answer, range(len(questions))):
                run.results.append(result)
                pending.append(row)
                if len(pending) >= TRACE_BATCH:
                    write_traces(self.graph, run_id, self.kg, pending)
                    pending = []
                if on_question is not None:
                    on_question(result)
        write_traces(self.graph, run_id, self.kg, pending)
        run.loop_seconds = time.perf_counter() - started
        if self.chat is not None:
            self.ledger.flush(self.graph, run_id)
        write_run(self.graph, run_id, {f"summary_{k}": v for k, v in run.summary().items() if not isinstance(v, dict)}
                  | {"finished_at": datetime.now(timezone.utc).isoformat()})
        return run
