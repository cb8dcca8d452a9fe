"""ODA (observe → act → reflect) over relation paths, as LangGraph ``StateGraph``s on the agent contract.

One question (:meth:`ODAAgent.question_graph` compiled, :meth:`ODAAgent.build_question_graph` not; state
:class:`QAState`):

    start → observe ─┬─ answer → END                       (mode no_llm, or a confident path: no model call)
                     └─ act ─┬─ answer → END               (the model answers with a path)
                             └─ tool → reflect ─┬─ observe (next iteration)
                                                └─ answer  (iteration cap hit)

* ``start``: the topic entities — given, in [brackets] (resolved by name), or linked from plain text
  (:mod:`linking`) — the question with its topic masked and embedded, and the path memory's prior
  (:mod:`pathmemory`): the vote of the nearest learned questions for their paths, shared among paths of one
  length in the order the question names its relations (:mod:`wording`).
* ``observe``: the recursive path observation from the topics (:mod:`observation`) at the first iteration; later
  iterations add the paths the reflection kept. The best path's lead over the next path with a different answer
  is the question's *confidence*.
* ``act``: the model picks a path to answer with, a path to extend (GetPath) or an entity to look around
  (GetNeighbor), seeing the best paths with their end entities, the kept paths and the memory's suggestion.
* ``tool``: GetPath extends the chosen path by one relation (Cypher, relation-level); GetNeighbor observes one
  level around an entity.
* ``reflect``: keeps at most K of the tool's paths (the model's choice; the ablations keep the best-scoring, a
  seeded random sample, or the paths closest to what the model writes).
* ``answer``: the chosen path — the model's, else the best-scoring kept or observed path — and its complete end
  set, ranked by support (how many walks reach each end).

A run (:meth:`ODAAgent.build`, state :class:`RunState`): ``begin`` → ``answer_batch`` (repeated) → ``finish``.
Each ``answer_batch`` step answers the next questions with the question graph (one per step with a model, a trace
batch without one), scores them and writes their traces, so a checkpointed run resumes at the first question it
had not finished; ``finish`` records the run with ``hits_at_1`` as its headline score. Both states are plain JSON.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any, TypedDict

import numpy as np
from langgraph.graph import END, START, StateGraph

from kgagents.agent.base import Agent, RunResult
from kgagents.agent.kgqa.calibration import Calibration, stored_or_calibrated
from kgagents.agent.kgqa.chains import (
    Chain,
    ChainPrompt,
    chain_gain,
    collapsed,
    directions,
    expansions,
    stored_chain_prompt,
    topics_bracketed,
    undirected,
)
from kgagents.agent.kgqa.composition import (
    ParsedChain,
    forwards,
    named_relations,
    parsed_chain,
    question_windows,
    shares_a_value,
    there_and_back,
    unnamed,
)
from kgagents.agent.kgqa.gate import stored_gate
from kgagents.agent.kgqa.linking import EntityLinker
from kgagents.agent.kgqa.llm_steps import Action, LLMSteps
from kgagents.agent.kgqa.observation import Observation, PathObserver, follow
from kgagents.agent.kgqa.pathmemory import PathMemory, Prior
from kgagents.agent.kgqa.paths import ObservedPath, PathKey, paths, relation_names, step
from kgagents.agent.kgqa.pathtexts import PathTextStore
from kgagents.agent.kgqa.prompts import ANSWER, GET_NEIGHBOR, GET_PATH
from kgagents.agent.kgqa.questions import bracketed, given_topics, masked, plain, presence
from kgagents.agent.kgqa.results import KGQARun, QuestionResult
from kgagents.agent.kgqa.scorer_calibration import LEARNED_WITH, ScorerCalibration
from kgagents.agent.kgqa.scorer_calibration import stored as stored_scorer
from kgagents.agent.kgqa.scoring import PathScorer, Query, words
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import trace_row, write_traces
from kgagents.agent.kgqa.wording import Wording
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.errors import Neo4jUnavailableError
from kgagents.graph.connection import GraphLike
from kgagents.loaders.qa import Question
from kgagents.settings import LEARNED

#: traces written per transaction
TRACE_BATCH = 500
#: the LLM gate (``confident``) of a run with a model, no gate learned for its KG and none given: closed — every
#: question is answered by its best path after the observation, the model's only use its checks (the chain
#: check for the local model, :data:`kgagents.llm.models.MODEL_SETTINGS`). Measured on held-out questions, that
#: paid (MetaQA 300 per hop, relation check: 76.1 against 68.6 without the model) where the full loop at the old
#: default gate 0.5 lost (0.65 against 0.90 without the model on 20 one-hop questions, at 11.5 s a question);
#: `kgqa learn-gate` opens the gate where the model pays on the KG's own training questions.
DEFAULT_GATE = 0.0
#: the learned-gate source of a run whose gate ``kgqa learn-gate`` stored
LEARN_GATE = "kgqa learn-gate"
#: memory votes an agent keeps, by masked question
PRIOR_CACHE = 50_000


class RunState(TypedDict, total=False):
    """A run over many questions (JSON-serialisable): the questions, how far it got, each one's result."""

    run_id: str
    dataset: str | None
    workers: int
    leave_one_out: bool
    questions: list[dict[str, Any]]
    index: int
    results: list[dict[str, Any]]
    embed_seconds: float
    loop_seconds: float
    path_texts: dict[str, int]  # path-text vectors read from the graph at the start, and embedded by the run


class QAState(TypedDict, total=False):
    """One question's run (JSON-serialisable)."""

    run_id: str
    question_id: str
    question: str
    topics: list[str]
    labels: dict[str, str]
    linked: list[dict[str, Any]]
    masked: str
    leave_out: bool
    question_vector: list[float]
    path_vector: list[float]  # the question in path space (scoring.Query)
    direct: float  # what one-relation paths gain from the model's direct check (scoring.Query)
    relation_odds: dict[str, float]  # the relation check: the model's log-odds per relation name asked about
    chain: list[str] | None  # the chain check: the relation chain the model wrote (None: not asked or unusable)
    parsed_chain: dict[str, list[str]] | None  # the question read as nested noun phrases: mentions, relations
    prior: list[dict[str, Any]]
    memory_verdict: str  # what the memory did: whose examples voted, 'abstained' (none close enough), '' (none)
    neighbours: list[dict[str, Any]]
    observation: list[dict[str, Any]]
    observed_best: list[str]  # [id, name] the first observation's best path answers first: the no-LLM answer
    memory: list[dict[str, Any]]
    shown: list[dict[str, Any]]
    history: list[dict[str, Any]]
    pending: dict[str, Any]
    output: list[dict[str, Any]]
    iteration: int
    steps: list[dict[str, Any]]
    confidence: float
    decided_by: str
    gate_note: str
    answer_path: dict[str, Any] | None
    answer_entities: list[str]
    answer_names: list[str]
    answer_size: int
    answer: str
    top_entity: str | None
    cap_hit: bool
    observe_seconds: list[float]
    reflect_fallbacks: int


def confidence(observed: Sequence[ObservedPath]) -> float:
    """How far the best path leads the best path with a different end set (its whole score without a rival)."""
    if not observed:
        return 0.0
    best = observed[0]
    rival = next((p for p in observed[1:] if (p.size, p.ends) != (best.size, best.ends)), None)
    return round(best.score - (rival.score if rival else 0.0), 4)


def _merge(observed: Sequence[ObservedPath], extra: Sequence[ObservedPath]) -> list[ObservedPath]:
    """Both lists as one, each (topic, path) once (its best score), best first."""
    best: dict[tuple[str, PathKey], ObservedPath] = {}
    for p in [*observed, *extra]:
        key = (p.topic, p.key)
        if key not in best or p.score > best[key].score:
            best[key] = p
    return sorted(best.values(), key=lambda p: (-p.score, p.length, p.path))


class ODAAgent(Agent[KGQASettings]):
    """The ODA graph over one KG in Neo4j and (except in mode ``no_llm``) one chat model."""

    job = "kgqa"
    settings_type = KGQASettings
    state_type = RunState
    metric = "hits_at_1"
    no_llm_label = "best-scoring relation path"

    def __init__(self, graph: GraphLike, chat: Any = None, settings: KGQASettings | Mapping[str, Any] | None = None,
                 *, kg: str, embedder: Embedder | None = None,
                 on_question: Callable[[QuestionResult], None] | None = None) -> None:
        """``kg``: the name of a loaded KG (entity names embedded with ``kgagents embed --kg NAME`` for the answer
        types; without them the scorer uses relation words only); ``embedder``: the text embedder (default:
        :func:`~kgagents.embeddings.get_embedder`); ``on_question``: called with each answered question's result
        (progress display)."""
        self.kg = kg  # before the settings are resolved: the learned gate is this KG's
        #: the scorer calibration this run uses (learned by the KG's bootstrap), None: the settings' own values
        self.scorer_calibration: ScorerCalibration | None = None
        super().__init__(graph, chat, settings)
        self.llm = LLMSteps(self.chat, self.settings.max_tokens) if self.chat is not None else None
        gate = self.settings_sources.get("confident", "")
        self.gate_source = ("settings" if not gate.startswith(LEARNED) else
                            "learned" if LEARN_GATE in gate else "default")
        #: the model's own values this run uses (kgagents.llm.models.MODEL_SETTINGS, not given explicitly)
        self.model_defaults: dict[str, Any] = {
            k: getattr(self.settings, k) for k, source in self.settings_sources.items() if source.startswith("model")}
        self._embedder = embedder
        self._scorer: PathScorer | None = None
        self._scorer_lock = threading.Lock()
        self._stored_texts = 0  # path-text vectors the scorer was made with
        self._observer: PathObserver | None = None
        self.memory = PathMemory(self.graph, kg)
        self.linker = EntityLinker(self.graph, kg)
        self._examples: dict[str, int] | None = None
        self._calibration: Calibration | None = None
        self._calibrating = threading.Lock()
        self._wording: Wording | None = None
        self._priors: dict[str, Prior] = {}
        self._chains: ChainPrompt | None = None
        self._chains_lock = threading.Lock()
        self._lock = threading.Lock()
        self.on_question = on_question

    def learned_settings(self, settings: KGQASettings, model: str | None) -> tuple[dict[str, Any], str] | None:
        """What was learned on this KG: the scorer's length penalty its bootstrap chose, when the run uses the
        bootstrap memory it was learned with (:mod:`~kgagents.agent.kgqa.scorer_calibration`); and the LLM gate
        of a run with a model — the one ``kgqa learn-gate`` stored for this model on this KG (gated mode: where
        the model paid on the KG's training questions), else :data:`DEFAULT_GATE` (closed)."""
        self.scorer_calibration = self._stored_scorer(settings)
        values = dict(self.scorer_calibration.values) if self.scorer_calibration is not None else {}
        where = [self.scorer_calibration.describe()] if self.scorer_calibration is not None else []
        if model is not None and settings.mode != "no_llm":
            learned = stored_gate(self.graph, self.kg, model, settings) if settings.mode == "gated" else None
            values["confident"] = DEFAULT_GATE if learned is None else learned
            where.append(f"no gate learned for KG {self.kg}: closed" if learned is None else
                         f"{LEARN_GATE}, {self.kg}")
        return (values, "; ".join(where)) if values else None

    def _stored_scorer(self, settings: KGQASettings) -> ScorerCalibration | None:
        """The scorer calibration of the KG's bootstrap memory, when this run uses that memory. An agent can be
        made before its server answers (the agent contract): then none is read, as for a KG without one."""
        try:
            if not settings.memory or not PathMemory(self.graph, self.kg).counts()["bootstrap"]:
                return None
            return stored_scorer(self.graph, self.kg, settings)
        except Neo4jUnavailableError:
            return None

    # -- collaborators ------------------------------------------------------------------------------
    @property
    def scorer(self) -> PathScorer:
        """The path scorer, made once with the KG's stored path-text vectors: whatever observes first — a run's
        questions, or the memory's calibration when the run starts (hundreds of observations: it embedded every
        text again, 5,366 on CoDEx-M) — reads them."""
        with self._scorer_lock:
            if self._scorer is None:
                scorer = PathScorer(self._embedder or get_embedder(), self.settings)
                stored = PathTextStore(self.graph, self.kg, scorer.space).load()
                scorer.preload(stored)
                self._stored_texts = len(stored)
                self._scorer = scorer
        return self._scorer

    @property
    def observer(self) -> PathObserver:
        if self._observer is None:
            self._observer = PathObserver(self.graph, self.kg, self.settings, self.scorer)
        return self._observer

    def path_texts(self) -> PathTextStore:
        """Where this KG's path-text vectors are kept between runs (:mod:`~kgagents.agent.kgqa.pathtexts`)."""
        return PathTextStore(self.graph, self.kg, self.scorer.space)

    def memory_examples(self) -> int:
        """Path examples the KG has, counted once per agent (what every run records)."""
        return self.memory_counts()["examples"]

    def memory_counts(self) -> dict[str, int]:
        """Path examples the KG has in all, labelled and generated by ``kgqa bootstrap`` (counted once)."""
        if self._examples is None:
            self._examples = self.memory.counts() if self.settings.memory else \
                {"examples": 0, "labelled": 0, "bootstrap": 0}
        return self._examples

    def calibration(self) -> Calibration | None:
        """The memory's vote threshold (:mod:`~kgagents.agent.kgqa.calibration`), read or computed once per agent;
        None without a memory or with ``memory_calibration`` off."""
        s = self.settings
        if not self.memory_examples() or not s.memory_calibration:
            return None
        with self._calibrating:
            if self._calibration is None:
                self._calibration = stored_or_calibrated(
                    self.graph, self.kg, self._zero_shot, k=s.memory_k, temperature=s.memory_temperature,
                    sample=s.memory_calibration_sample, seed=s.seed, scorer=",".join(
                        f"{k}={getattr(s, k)}" for k in ("length_penalty", *LEARNED_WITH)))
            return self._calibration

    def _zero_shot(self, asked: Sequence[tuple[str, str]]) -> list[PathKey | None]:
        """The best path the observation alone (no memory, no model) finds for each (question, topic): what the
        memory's vote is calibrated against (:mod:`~kgagents.agent.kgqa.calibration`)."""
        names = {r["id"]: r["name"] for r in self.graph.run("kgqa/entity_names", kg=self.kg,
                                                            ids=sorted({t for _, t in asked}))}
        queries = self.scorer.queries([masked(q, [names.get(t, t)]) for q, t in asked])

        def best(i: int) -> PathKey | None:
            topic = asked[i][1]
            found = self.observer.observe(queries[i], [topic]).paths if topic in names else []
            return found[0].key if found else None

        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(best, range(len(asked))))

    @staticmethod
    def _query(state: QAState) -> Query:
        """The question as :meth:`start` embedded it."""
        return Query(np.asarray(state["question_vector"], dtype=np.float32),
                     np.asarray(state["path_vector"], dtype=np.float32), words(state["masked"]),
                     float(state.get("direct") or 0.0))

    def wording(self) -> Wording:
        """The memory's wording table, learned once per agent."""
        with self._lock:
            if self._wording is None:
                self._wording = self.memory.wording()
            return self._wording

    def _prior(self, vector: np.ndarray, leave_out: str | None = None, masked_question: str | None = None) -> Prior:
        """The memory's vote for a question (its vector), put in the order of its words when ``masked_question``
        is given and ``memory_order_temperature`` is set. A phrasing asked again (a template's questions about
        other topics) is looked up once per agent: its vector, and so its vote, is the same."""
        if not self.memory_examples():
            return Prior()
        key = masked_question if leave_out is None else None
        if key is not None and key in self._priors:
            return self._priors[key]
        s = self.settings
        calibrated = self.calibration()
        floor = max(s.memory_min_similarity, calibrated.threshold if calibrated is not None else -1.0)
        prior = self.memory.prior(vector, k=s.memory_k, pool=s.memory_pool, min_similarity=floor,
                                  temperature=s.memory_temperature, leave_out=leave_out)
        if masked_question and s.memory_order_temperature and len(prior.shares) > 1:
            prior.shares = self.wording().reweight(prior.shares, masked_question, s.memory_order_temperature,
                                                   prior.voters)
        if key is not None:
            with self._lock:
                if len(self._priors) >= PRIOR_CACHE:
                    self._priors.clear()
                self._priors[key] = prior
        return prior

    def _context(self, masked_question: str, entity: str) -> float:
        """Linking context: with a memory, how close the masked question comes to a learned one; without, how
        well the entity's own relations fit it."""
        query = self.scorer.query(masked_question)
        if self.memory_examples():
            rows = self._prior(query.vector).neighbours
            return float(rows[0]["similarity"]) if rows else 0.0
        observed = self.observer.observe(query, [entity], depth=1).paths
        return max((p.similarity for p in observed), default=0.0)

    # -- graph ----------------------------------------------------------------------------------------
    def question_graph(self, checkpointer: Any = None) -> Any:
        """The compiled graph that answers ONE question (state :class:`QAState`), ready to use:
        ``agent.question_graph().invoke({"question": "who directed Kismet"})`` (optionally ``topics``) returns the
        final state (``answer``, ``answer_path``, ``confidence``, …). Add it as a node of your own LangGraph app to
        answer question by question; pass a ``checkpointer`` (then a ``thread_id`` in the config) to resume.
        Nothing is written to Neo4j: :meth:`run` records runs and traces."""
        return self.build_question_graph().compile(checkpointer=checkpointer)

    def build_question_graph(self) -> StateGraph:
        """The uncompiled one-question graph of :meth:`question_graph` (as :meth:`build` is to :meth:`compile`)."""
        g = StateGraph(QAState)
        for name in ("start", "observe", "choose", "act", "tool", "reflect", "answer"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "start")
        g.add_edge("start", "observe")
        g.add_conditional_edges("observe", self._after_observe, {"answer": "answer", "choose": "choose", "act": "act"})
        g.add_edge("choose", "answer")
        g.add_conditional_edges("act", lambda s: "answer" if s["pending"]["action"] == ANSWER else "tool",
                                {"answer": "answer", "tool": "tool"})
        g.add_edge("tool", "reflect")
        g.add_conditional_edges("reflect", self._after_reflect, {"observe": "observe", "answer": "answer"})
        g.add_edge("answer", END)
        return g

    def build(self) -> StateGraph:
        """The run's graph (state :class:`RunState`): ``begin`` → ``answer_batch`` (repeated: each step answers the
        next batch of questions with :meth:`question_graph`, scores them and writes their traces) → ``finish``."""
        g = StateGraph(RunState)
        for name in ("begin", "answer_batch", "finish"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "begin")
        g.add_edge("begin", "answer_batch")
        g.add_conditional_edges("answer_batch", lambda s: "answer_batch" if s["index"] < len(s["questions"])
                                else "finish", {"answer_batch": "answer_batch", "finish": "finish"})
        g.add_edge("finish", END)
        return g

    def batch_size(self) -> int:
        """Questions per ``answer_batch`` step (one checkpoint each): one with a model, else a trace batch."""
        return 1 if self.llm is not None else TRACE_BATCH

    def recursion_limit(self, state: Mapping[str, Any]) -> int:
        return len(state.get("questions") or []) // self.batch_size() + 10

    def _after_observe(self, state: QAState) -> str:
        if self.llm is None:
            return "answer"
        if state["iteration"] == 0 and state.get("observation") and state["confidence"] >= self.settings.confident:
            return "answer"
        if self.settings.mode == "gated":
            return "choose" if state.get("observation") else "answer"
        return "act"

    def _after_reflect(self, state: QAState) -> str:
        return "answer" if state["iteration"] >= self.settings.max_iterations else "observe"

    # -- nodes ----------------------------------------------------------------------------------------
    def start(self, state: QAState) -> dict[str, Any]:
        """Complete the input: ``{"question"}`` is enough (topics linked, question masked and embedded, prior
        looked up); given ``topics``, ``masked`` or ``question_vector`` are used as they are."""
        question = state["question"]
        out: dict[str, Any] = {"question_id": state.get("question_id") or "question", "memory": [], "history": [],
                               "iteration": 0, "cap_hit": False, "steps": [], "observe_seconds": [],
                               "reflect_fallbacks": 0, "decided_by": ""}
        topics = list(state.get("topics") or [])
        text = state.get("masked")
        if not topics:
            names = bracketed(question)
            if names:
                found = [self.linker.resolve(n, self._context, question) for n in names]
                topics = [t for t in found if t is not None]
            else:
                mentions = self.linker.link(plain(question), self._context)
                out["linked"] = [m.as_dict() for m in mentions]
                if mentions:
                    topics = [mentions[0].id]
                    text = text or masked(plain(question)[: mentions[0].start] + "[" + mentions[0].text + "]"
                                          + plain(question)[mentions[0].end:])
        labels = dict(state.get("labels") or {})
        missing = [t for t in topics if t not in labels]
        if missing:
            labels.update({r["id"]: r["name"] for r in self.graph.run("kgqa/entity_names", kg=self.kg, ids=missing)})
            topics = self._by_name(topics, labels, question)
        text = text or masked(question, [labels.get(t, t) for t in topics])
        given = state.get("question_vector")
        if given and state.get("path_vector"):
            query = self._query({**state, "masked": text})
        else:
            query = self.scorer.query(text, np.asarray(given, dtype=np.float32) if given else None)
        prior = self._prior(query.vector, question if state.get("leave_out") else None, text)
        out.update({"topics": topics, "labels": labels, "masked": text, "question_vector": query.vector.tolist(),
                    "path_vector": query.path_vector.tolist(), "prior": prior.as_state(),
                    "memory_verdict": prior.verdict,
                    "neighbours": prior.neighbours, "direct": self._direct(text, topics)})
        return out

    def _by_name(self, topics: Sequence[str], labels: dict[str, str], question: str) -> list[str]:
        """Given topics that are not ids of the KG, resolved as names (a user's file may name its topic, not give
        its id); ``labels`` gains the resolved entities' names. A topic that is neither is dropped."""
        out: list[str] = []
        for t in topics:
            found = t if t in labels else self.linker.resolve(t, self._context, question)
            if found is not None and found not in labels:
                labels.update({r["id"]: r["name"] for r in self.graph.run("kgqa/entity_names", kg=self.kg,
                                                                             ids=[found])})
            if found is not None:
                out.append(found)
        return list(dict.fromkeys(out))

    def _direct(self, masked_question: str, topics: Sequence[str]) -> float:
        """What one-relation paths gain from the model's answer to "is the answer stored directly about X?"
        (settings ``direct_weight`` / ``direct_center``); 0 without a model or without topics (nothing to
        observe)."""
        s = self.settings
        if self.llm is None or s.direct_weight <= 0 or not topics or s.mode == "no_observation":
            return 0.0
        return s.direct_weight * (self.llm.direct(masked_question) - s.direct_center)

    def observe(self, state: QAState) -> dict[str, Any]:
        if state["iteration"] == 0:
            if self.settings.mode == "no_observation" or not state["topics"]:
                return {"observation": [], "confidence": 0.0, "observed_best": []}
            prior = {tuple(x["path"]): x["share"] for x in state.get("prior", [])}
            reentry = {tuple(x["path"]) for x in state.get("prior", []) if x.get("reentry")}
            obs: Observation = self.observer.observe(self._query(state), state["topics"], prior, reentry=reentry)
            observed, chain, parsed = self._chain(state, obs.paths, voted=bool(prior))
            observed, odds = self._relations(state["masked"], observed, voted=bool(prior))
            best = observed[0] if observed and observed[0].ends else None
            return {"observation": [p.as_dict() for p in observed], "confidence": confidence(observed),
                    "observed_best": [best.ends[0], best.end_names[0]] if best else [], "relation_odds": odds,
                    "chain": list(chain) if chain else None,
                    "parsed_chain": ({"mentions": list(parsed.mentions), "chain": list(parsed.chain)} if parsed
                                     else None),
                    "observe_seconds": [*state.get("observe_seconds", []), round(obs.seconds, 4)]}
        merged = _merge(paths(state.get("observation", [])), paths(state.get("memory", [])))
        return {"observation": [p.as_dict() for p in merged]}

    def _chain(self, state: QAState, observed: list[ObservedPath], *, voted: bool = False
               ) -> tuple[list[ObservedPath], Chain | None, ParsedChain | None]:
        """The chain checks: the model's (settings ``chain_weight``, ``chain_collapsed``, ``chain_partial``) writes
        the question's relations in order (:mod:`~kgagents.agent.kgqa.chains`), and without a model a question
        worded as nested noun phrases is read as its chain (``parse_weight``, :mod:`~kgagents.agent.kgqa.composition`).
        An observed path that takes exactly a chain's relations, in either direction, gains the chain's weight, one
        that takes them with a relation repeated (there and back: "shares a director with X") ``chain_collapsed`` ×
        that, and one keeping part of them in order a share (:func:`~kgagents.agent.kgqa.chains.chain_gain`); where
        the observation reached none of the first two, the chain's paths are walked on their own first. Where the
        question asks for things sharing a value with its topic, a path taking a relation there and back gains
        ``share_weight``, and all of a chain that collapses to it (a chain names a shared relation once). A path
        taking a parsed step backwards gains ``parse_backward_share`` of the parse's weight, and a path loses
        ``unnamed_penalty`` per relation no word of the question names (:func:`~kgagents.agent.kgqa.composition.
        named_relations`). The paths are ranked again; returns them, the written chain and the parsed one (None:
        not made, or unusable). The model is not asked without a model, with its weight 0, or where the memory
        ``voted`` and ``relation_with_memory`` is off; the parse, the shared-value cue and the naming check are not
        used where the memory voted."""
        s = self.settings
        if not observed:
            return observed, None, None
        written = parsed = None
        if self.llm is not None and s.chain_weight > 0 and not (voted and not s.relation_with_memory):
            labels = state.get("labels", {})
            question = topics_bracketed(state["question"], [labels.get(t, t) for t in state["topics"]])
            written = self.llm.chain(self._chain_prompt(), question)
        if s.parse_weight > 0 and not voted:
            parsed = parsed_chain(state["masked"], self.observer.names.get(), self.scorer.word_vectors,
                                  depth=s.depth, clauses=s.parse_clauses)
        # read: a chain whose steps' direction the parse read (a clause reading's is not read)
        chains = [(c, w, read) for c, w, read in ((written, s.chain_weight, False),
                                                   (parsed.chain if parsed else None, s.parse_weight,
                                                    parsed is not None and parsed.directed)) if c]
        shared = s.share_weight > 0 and not voted and shares_a_value(state["masked"])
        named = named_relations(state["masked"], self.observer.names.get(), self.scorer.vectors,
                                margin=s.unnamed_margin) if s.unnamed_penalty > 0 and not voted else None
        if not chains and not shared and named is None:
            return observed, written, parsed
        query = self._query(state)
        for chain, _, read in chains:
            observed = [*observed, *self.walk_chain(chain, state["topics"], query, observed,
                                                    forward=read and s.parse_backward_share < 1)]
        for p in observed:
            back = shared and there_and_back(p.key)  # a chain written once, taken there and back: what was asked
            weights = [(c, w * (s.parse_backward_share if read and not forwards(p.key) else 1.0))
                       for c, w, read in chains]
            bonus = sum(chain_gain(undirected(p.key), c, weight=w, collapsed_share=1.0 if back else s.chain_collapsed,
                                   partial_share=s.chain_partial) for c, w in weights) if p.size > 0 else 0.0
            bonus += s.share_weight if back and p.size > 0 else 0.0
            bonus -= s.unnamed_penalty * unnamed(p.key, named) if named is not None else 0.0
            if bonus:
                p.score = round(p.score + bonus, 6)
        return sorted(observed, key=lambda p: (-p.score, p.length, p.path)), written, parsed

    def walk_chain(self, chain: Chain, topics: Sequence[str], query: Query, observed: Sequence[ObservedPath],
                   *, forward: bool = False) -> list[ObservedPath]:
        """The paths ``chain`` stands for (its relations, or them with one taken there and back), walked on their
        own from ``topics`` when ``observed`` holds none of them; ``forward``: the chain taken forwards too, when
        ``observed`` holds it only with a step backwards (a symmetric relation reaches the same things both ways;
        the parse prefers the forward path). Scored as the observation scores a path the memory did not vote
        for."""
        def taken(p: ObservedPath) -> bool:
            return p.size > 0 and collapsed(undirected(p.key)) == collapsed(chain)

        found: list[ObservedPath] = []
        if not any(taken(p) for p in observed):
            ways = [way for c in expansions(chain, self.settings.depth) for way in directions(c)]
            found = [p for p in self.observer.observe(query, topics, dict.fromkeys(ways, 1.0 / len(ways))).paths
                     if taken(p)]
        ahead = tuple(step(r, True) for r in chain)
        if forward and not any(p.key == ahead and p.size > 0 for p in [*observed, *found]):
            found += [p for p in self.observer.observe(query, topics, {ahead: 1.0}).paths
                      if p.key == ahead and p.size > 0]
        for p in found:
            p.prior = 0.0
            p.score = round(self.scorer.score(p.similarity, p.length, p.type_score, 0.0, query.words, query.direct),
                            4)
        return found

    def _chain_prompt(self) -> ChainPrompt:
        """The KG's chain prompt, made once per KG and settings and stored in the graph (it samples the KG's path
        types: seconds to minutes)."""
        with self._chains_lock:
            if self._chains is None:
                s = self.settings
                self._chains = stored_chain_prompt(self.graph, self.kg, self.observer.names.get(), depth=s.depth,
                                                   one_hop=s.chain_shots, longer=s.chain_longer, seed=s.seed)
            return self._chains

    def _relations(self, masked_question: str, observed: list[ObservedPath], *, voted: bool = False
                   ) -> tuple[list[ObservedPath], dict[str, float]]:
        """The relation check (settings ``relation_weight``): the best ``relation_paths`` paths re-scored with the
        model's log-odds that the question asks about each of their relations, ranked again ahead of the rest; the
        log-odds by relation name. Unchanged without a model, with the weight 0, or where the memory ``voted`` and
        ``relation_with_memory`` is off."""
        s = self.settings
        if self.llm is None or s.relation_weight <= 0 or not observed or (voted and not s.relation_with_memory):
            return observed, {}
        names = self.observer.names.get()
        head = observed[: s.relation_paths]
        asked = [relation_names(p.key, names) for p in head]
        odds = self.llm.relations(masked_question, [r for rs in asked for r in rs])
        for p, relations in zip(head, asked, strict=True):
            p.score = round(p.score + self.scorer.relation_term([odds[r] for r in relations]), 6)
        return sorted(head, key=lambda p: (-p.score, p.length, p.path)) + observed[s.relation_paths:], odds

    def _shown(self, state: QAState) -> list[ObservedPath]:
        return _merge(paths(state.get("memory", [])), [])[: self.settings.reflect_k] + [
            p for p in paths(state.get("observation", []))[: self.settings.paths_shown]
            if (p.topic, p.key) not in {(m["topic"], tuple(m["path"])) for m in state.get("memory", [])}]

    def choose(self, state: QAState) -> dict[str, Any]:
        """Mode gated, below the gate: the few best paths with different end sets are re-ranked by their score plus
        ``verify_weight`` × the model's grade of each (``ranking``: :meth:`LLMSteps.verify` or :meth:`LLMSteps.rank`);
        the note records the grades and what changed."""
        assert self.llm is not None
        candidates: list[ObservedPath] = []
        for p in paths(state["observation"]):
            if all(p.ends != c.ends for c in candidates):
                candidates.append(p)
            if len(candidates) == self.settings.choice_paths:
                break
        if len(candidates) < 2:
            return {"gate_note": "one answer observed: nothing to choose"}
        labels = state.get("labels", {})
        grade, what = ((self.llm.rank, "log-probabilities") if self.settings.ranking == "options"
                       else (self.llm.verify, "log-odds"))
        grades = grade(state["question"], labels.get(candidates[0].topic, candidates[0].topic), candidates,
                       ends=self.settings.ends_shown)
        combined = [c.score + self.settings.verify_weight * o for c, o in zip(candidates, grades)]
        pick = max(range(len(candidates)), key=lambda i: (combined[i], -i))
        shown = f"model {what} [" + ", ".join(f"{o:+.2f}" for o in grades) + "]"
        if not pick:
            return {"gate_note": f"{shown}: best path kept"}
        return {"gate_note": f"{shown}: path {pick + 1} outweighs the best path and replaces it",
                "pending": {"action": ANSWER, "path": pick + 1}, "shown": [p.as_dict() for p in candidates]}

    def act(self, state: QAState) -> dict[str, Any]:
        assert self.llm is not None
        shown = self._shown(state)
        labels = dict(state["labels"])
        for p in shown:
            labels.update(zip(p.ends[: self.settings.ends_shown], p.end_names[: self.settings.ends_shown],
                              strict=False))
        action = self.llm.act(plain(state["question"]), shown=shown, memory=paths(state.get("memory", [])),
                              prior=state.get("prior", []), history=state["history"], labels=labels,
                              ends=self.settings.ends_shown)
        return {"pending": action.as_dict(), "history": [*state["history"], action.as_dict()],
                "shown": [p.as_dict() for p in shown], "labels": labels}

    def tool(self, state: QAState) -> dict[str, Any]:
        action = Action.of(state["pending"])
        query = self._query(state)
        if action.name == GET_PATH and action.path is not None:
            found = self.observer.extend(query, paths([state["shown"][action.path - 1]]), state["topics"])
        elif action.name == GET_NEIGHBOR and action.entity is not None:
            found = self.observer.observe(query, [action.entity], depth=1).paths
        else:
            found = []
        return {"output": [p.as_dict() for p in found]}

    def reflect(self, state: QAState) -> dict[str, Any]:
        s, mode = self.settings, self.settings.mode
        output, iteration = paths(state["output"]), state["iteration"] + 1
        fallback = False
        if not output:
            kept: list[ObservedPath] = []
        elif mode == "reflect_similarity":
            kept = sorted(output, key=lambda p: -p.score)[: s.reflect_k]
        elif mode == "reflect_random":
            rng = random.Random(f"{s.seed}:{state['question_id']}:{iteration}")
            kept = rng.sample(output, min(s.reflect_k, len(output)))
        elif mode == "reflect_generated":
            assert self.llm is not None
            written = self.llm.generate(plain(state["question"]), output=output, ends=s.ends_shown)
            kept = self._closest(written, output)
        else:
            assert self.llm is not None
            kept, fallback = self.llm.reflect(plain(state["question"]), output=output, k=s.reflect_k,
                                              ends=s.ends_shown)
        step = {"iteration": iteration, "action": state["pending"], "output": len(output),
                "kept": [p.display for p in kept], "reflect_fallback": fallback}
        return {"memory": [p.as_dict() for p in _merge(paths(state["memory"]), kept)], "iteration": iteration,
                "steps": [*state["steps"], step], "reflect_fallbacks": state.get("reflect_fallbacks", 0) + fallback}

    def _closest(self, written: Sequence[str], output: Sequence[ObservedPath]) -> list[ObservedPath]:
        """For each written path, the output path whose display text is most similar (at most K, once each)."""
        if not written:
            return []
        sims = self.scorer.vectors(list(written)) @ self.scorer.vectors([p.display for p in output]).T
        picked = list(dict.fromkeys(int(i) for i in sims.argmax(axis=1)))
        return [output[i] for i in picked[: self.settings.reflect_k]]

    def answer(self, state: QAState) -> dict[str, Any]:
        """The answer path and its complete end set, ranked by support."""
        pending = state.get("pending") or {}
        chosen: ObservedPath | None = None
        if pending.get("action") == ANSWER and pending.get("path") and state.get("shown"):
            chosen = ObservedPath.of(state["shown"][pending["path"] - 1])
            decided = "llm_fallback" if pending.get("fallback") else "llm"
        else:
            pool = paths(state.get("memory", [])) or paths(state.get("observation", []))
            chosen = pool[0] if pool else None
            decided = ("cap" if self.llm is not None and state.get("history") else
                       "memory" if chosen is not None and chosen.prior > 0 else "observation")
        capped = self.llm is not None and bool(state.get("history")) and pending.get("action") != ANSWER
        if chosen is None:
            return {"answer": "", "top_entity": None, "answer_entities": [], "answer_names": [], "answer_size": 0,
                    "answer_path": None, "decided_by": "none", "cap_hit": capped}
        ends = self._ends(chosen, state["topics"])
        size = len(ends) if chosen.sampled else chosen.size  # a sampled path's size counted a part of its ends
        return {"answer_path": chosen.as_dict(), "answer_entities": [e["id"] for e in ends],
                "answer_names": [e["name"] for e in ends], "answer_size": size,
                "answer": "\n".join(e["name"] for e in ends), "top_entity": ends[0]["id"] if ends else None,
                "decided_by": decided, "cap_hit": capped}

    def _ends(self, path: ObservedPath, topics: Sequence[str]) -> list[dict[str, Any]]:
        cap = self.settings.answer_cap
        if path.complete and path.size <= len(path.ends):
            return [{"id": e, "name": n, "support": s}
                    for e, n, s in zip(path.ends, path.end_names, path.supports, strict=False)][:cap]
        exclude = [t for t in dict.fromkeys([*topics, path.topic]) if not (path.reentry and t == path.topic)]
        return follow(self.graph, self.kg, path.topic, path.path, exclude, cap)

    # -- a run over many questions ------------------------------------------------------------------------
    def run_properties(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        calibrated = self.calibration()
        counts = self.memory_counts()
        return {**super().run_properties(inputs), "kg": self.kg, "dataset": inputs.get("dataset"),
                "questions": len(inputs.get("questions") or []), "memory_examples": self.memory_examples(),
                "memory_labelled": counts["labelled"], "memory_bootstrap": counts["bootstrap"],
                "memory_threshold": calibrated.threshold if calibrated is not None else None,
                "scorer_calibration": self._scorer_record(),
                "leave_one_out": bool(inputs.get("leave_one_out", False)), "llm_gate": self.gate_source,
                "model_defaults": [f"{k}={v}" for k, v in sorted(self.model_defaults.items())],
                "ranking": self.settings.ranking if self.llm is not None and self.settings.mode == "gated" else None}

    def _scorer_record(self) -> str | None:
        """What the run records of a learned scorer calibration: the values it used, from which bootstrap run, on
        how many questions, the grid (None: none used — not learned, or given explicitly)."""
        found = self.scorer_calibration
        used = {k: v for k, v in (found.values if found else {}).items()
                if self.settings_sources.get(k, "").startswith(LEARNED)}
        if found is None or not used:
            return None
        return json.dumps({"values": used, "bootstrap_run": found.run_id, "questions": found.questions,
                           "questions_by_hops": found.questions_by_hops, "grid": [r["length_penalty"] for r in
                                                                                  found.grid], "rule": found.rule})

    def prepare(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The run's input state: the questions as JSON (validated as :class:`~kgagents.loaders.qa.Question`)."""
        questions = [q if isinstance(q, Question) else Question.model_validate(q) for q in inputs["questions"]]
        return {"run_id": inputs["run_id"], "dataset": inputs.get("dataset"), "workers": int(inputs.get("workers", 1)),
                "leave_one_out": bool(inputs.get("leave_one_out", False)),
                "questions": [q.model_dump(mode="json") for q in questions]}

    def begin(self, state: RunState) -> dict[str, Any]:
        self.start_run(state)
        if self.memory_examples() and self.settings.memory_order_temperature:
            self.wording()  # learned once, before the questions are timed
        # what the memory's calibration embedded is stored before the questions are timed
        calibrated = self.path_texts().save(self.scorer.take_fresh())
        return {"index": 0, "results": [], "embed_seconds": 0.0, "loop_seconds": 0.0,
                "path_texts": {"stored": self._stored_texts, "embedded": calibrated}}

    def initial_state(self, question: Question, run_id: str, labels: Mapping[str, str],
                      query: Query | None, leave_out: bool = False) -> QAState:
        topics = given_topics(question)
        state: QAState = {"run_id": run_id, "question_id": question.id, "question": question.question,
                          "topics": topics, "labels": {t: labels[t] for t in topics if t in labels},
                          "leave_out": leave_out}
        if query is not None:
            state["question_vector"] = query.vector.tolist()
            state["path_vector"] = query.path_vector.tolist()
        return state

    def answer_batch(self, state: RunState) -> dict[str, Any]:
        """The next batch: masked questions embedded at once, each answered by :meth:`question_graph` (``workers``
        at once without a model), scored, and its trace written (one transaction per batch)."""
        start = state["index"]
        questions = [Question.model_validate(q) for q in state["questions"][start:start + self.batch_size()]]
        run_id = state["run_id"]
        names, gold_ids, gold_names = presence(self.graph, self.kg, questions)
        started = time.perf_counter()
        given = [i for i, q in enumerate(questions) if given_topics(q)]
        texts = [masked(questions[i].question, [names.get(t, t) for t in given_topics(questions[i])]) for i in given]
        queries = dict(zip(given, self.scorer.queries(texts), strict=True))
        if self.settings.unnamed_penalty > 0:  # the naming check's words, embedded with the questions, at once
            self.scorer.vectors(list(dict.fromkeys(w for t in texts for w in question_windows(t))))
        embedded = time.perf_counter() - started
        app = self.question_graph()
        config = {"recursion_limit": 5 * self.settings.max_iterations + 10}

        def answer(i: int) -> tuple[QuestionResult, dict[str, Any]]:
            q = questions[i]
            calls_before = len(self.ledger.records)
            t0 = time.perf_counter()
            start = self.initial_state(q, run_id, names, queries.get(i), state.get("leave_one_out", False))
            final = dict(app.invoke(start, config))
            result = QuestionResult.of(q, final, seconds=time.perf_counter() - t0,
                                       calls=self.ledger.records[calls_before:],
                                       topic_in_kg=bool(final["topics"]),
                                       gold_ids=gold_ids, gold_names=gold_names)
            return result, trace_row(final, extra={**result.trace_fields(), "dataset": q.dataset,
                                                   "gold": [a.name for a in q.answers], "model": self.model_name})

        started = time.perf_counter()
        workers = state.get("workers", 1) if self.llm is None else 1
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            answered = list(pool.map(answer, range(len(questions))))
        write_traces(self.graph, run_id, self.kg, [row for _, row in answered])
        fresh = self.path_texts().save(self.scorer.take_fresh())
        counts = dict(state.get("path_texts") or {"stored": 0, "embedded": 0})
        counts["embedded"] = counts.get("embedded", 0) + fresh
        if self.on_question is not None:
            for result, _ in answered:
                self.on_question(result)
        return {"index": start + len(questions), "results": [*state["results"], *(asdict(r) for r, _ in answered)],
                "embed_seconds": state["embed_seconds"] + embedded,
                "loop_seconds": state["loop_seconds"] + time.perf_counter() - started, "path_texts": counts}

    def finish(self, state: RunState) -> dict[str, Any]:
        self.finish_run(state)
        return {}

    def result(self, state: Mapping[str, Any]) -> RunResult:
        run = KGQARun(state["run_id"], self.kg, self.settings.mode, self.model_name,
                      self.settings.model_dump(mode="json"), [QuestionResult(**r) for r in state.get("results", [])],
                      embed_seconds=state.get("embed_seconds", 0.0), loop_seconds=state.get("loop_seconds", 0.0),
                      workers=state.get("workers", 1) if self.llm is None else 1,
                      memory_examples=self.memory_examples(), memory_counts=self.memory_counts(),
                      memory_calibration=self.calibration(), path_texts=dict(state.get("path_texts") or {}),
                      scorer_calibration=self._scorer_record())
        summary = run.summary()
        scores = {k: v for k, v in summary.items() if k in run.SCORES and v is not None}
        properties = {k: v for k, v in summary.items() if k not in scores}
        return self.new_result(state, scores=scores, properties=properties, output=run)
