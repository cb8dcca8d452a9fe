"""The agent contract: one shape for the four agents (matching, alignment, KGQA, extraction).

Why a contract: a LangGraph app embeds any of our agents the same way, a resumed run works the same way for all
four, and a Neo4j user finds every run as the same ``(:Run)`` node. Modelled on neo4j-graphrag's
``Retriever.search()`` (a template method over one abstract hook) and langgraph's small typed core:

* ``Agent(graph, chat=None, settings=None, **job_specific)``: ``graph`` is a :class:`~kgagents.graph.Graph`, a
  ``neo4j.Driver``, a URI or :class:`~kgagents.config.Neo4jSettings`; ``chat`` is any LangChain chat model or a
  kgagents :class:`~kgagents.llm.ChatModel` (anything else: :class:`UnsupportedObjectError`); ``settings`` is the
  agent's pydantic settings or a mapping of them (invalid: one :class:`AgentSettingsError`). Every LLM call goes
  through ``self.ledger``. The no-LLM rule is enforced here once: ``mode='no_llm'`` never calls a model, and any
  other mode without a chat model is a :class:`ChatModelRequiredError`.
* ``build()`` → the uncompiled ``StateGraph`` (embed it as a subgraph); ``compile(checkpointer=None)`` → runnable.
  All run state lives in the graph state (never on ``self``), so a checkpointer can resume any agent.
* ``run(inputs, *, checkpointer=None, thread_id=None) -> RunResult``: the template method. It starts the run in
  the run store (``running``), resumes from the checkpoint when the thread has one, calls :meth:`Agent.run_graph`,
  scores the final state with :meth:`Agent.result`, and marks the run ``finished`` with the scores — or
  ``failed`` with the error.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from langgraph.graph import StateGraph
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgagents.errors import AgentSettingsError, ChatModelRequiredError
from kgagents.graph.connection import GraphLike, connect
from kgagents.graph.runs import RunStore, new_run_id
from kgagents.llm.client import ChatModel
from kgagents.llm.langchain import as_chat_model
from kgagents.llm.ledger import Ledger
from kgagents.settings import NO_LLM, AgentSettings, job_of, resolve


class LLMUsage(BaseModel):
    """What a run asked of its chat model (every request, retries and repairs included)."""

    calls: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


class RunResult(BaseModel):
    """What :meth:`Agent.run` returns; the same numbers are on the run's ``(:Run)`` node.

    ``scores`` hold the run's quality numbers (empty when there is nothing to score against), ``metric`` names the
    headline one, ``output`` the job's own result (pairs, answers, created instances, …) and ``properties`` the
    counts and settings the run node records beside the scores."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str
    job: str
    status: str = "finished"
    model: str
    mode: str
    metric: str | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    seconds: float = 0.0
    llm: LLMUsage = Field(default_factory=LLMUsage)
    properties: dict[str, Any] = Field(default_factory=dict)
    output: Any = None

    @property
    def score(self) -> float | None:
        return self.scores.get(self.metric) if self.metric else None


SettingsT = TypeVar("SettingsT", bound=AgentSettings)


class Agent(ABC, Generic[SettingsT]):
    """Base class of the four agents (see the module docstring)."""

    #: the ``job`` property of this agent's ``(:Run)`` nodes
    job: ClassVar[str]
    #: the agent's settings model
    settings_type: ClassVar[type[AgentSettings]]
    #: the graph's state schema (a TypedDict): a parent graph that embeds the agent shares its keys
    state_type: ClassVar[type]
    #: name of the headline score in :attr:`RunResult.scores`
    metric: ClassVar[str | None] = None

    def __init__(self, graph: GraphLike, chat: Any = None,
                 settings: SettingsT | Mapping[str, Any] | None = None) -> None:
        self.graph = connect(graph)
        model = as_chat_model(chat).model_name if chat is not None else None
        #: where each setting's value came from (kgagents.settings.resolve's layers)
        self.settings_sources: dict[str, str] = {}
        self.settings: SettingsT = self._resolve(settings, model)
        if self.settings.uses_llm and chat is None:
            raise ChatModelRequiredError(
                f"The {self.job} agent's mode '{self.settings.mode}' needs a chat model (chat=...): pass any "
                f"LangChain chat model or a kgagents ChatModel, or use mode '{NO_LLM}' to run without one.")
        self.ledger = Ledger()
        self.chat: ChatModel | None = self.ledger.wrap(as_chat_model(chat)) if self.settings.uses_llm else None
        self.runs = RunStore(self.graph)

    def _resolve(self, settings: Any, model: str | None) -> Any:
        """``settings`` (explicit values) over the environment, the model's defaults, a learned gate and the
        defaults — :func:`kgagents.settings.resolve`, the one place a value is decided."""
        if settings is not None and not isinstance(settings, (Mapping, self.settings_type)):
            raise AgentSettingsError(f"{type(self).__name__} settings must be a {self.settings_type.__name__} or a "
                                     f"mapping of its fields, not a {type(settings).__name__}.")
        spec = job_of(self.settings_type)
        if spec is None:  # a settings class no job registers (an agent of the caller's own): validated as given
            if isinstance(settings, self.settings_type):
                return settings
            try:
                return self.settings_type.model_validate(dict(settings or {}))
            except ValidationError as exc:
                problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}"
                                     for e in exc.errors())
                raise AgentSettingsError(f"Invalid {self.settings_type.__name__}: {problems}") from None
        resolved = resolve(spec, arguments=settings, model=model)
        learned = self.learned_settings(resolved.settings, model)
        if learned is not None:
            resolved = resolve(spec, arguments=settings, model=model, learned=learned[0], learned_from=learned[1])
        self.settings_sources = resolved.sources
        return resolved.settings

    def learned_settings(self, settings: Any, model: str | None) -> tuple[dict[str, Any], str] | None:
        """Values a gate learned for ``model`` on this agent's data (and what learned them), or None; the layer
        above the model's defaults (a learned gate is the model's, measured on this agent's own data). Agents with
        learned gates override this."""
        return None

    @property
    def model_name(self) -> str:
        """The chat model's name, or what the no-LLM mode does instead."""
        return self.chat.model_name if self.chat is not None else f"none ({NO_LLM}: {self.no_llm_label})"

    #: what the agent does without a model, shown as the model of its no-LLM runs
    no_llm_label: ClassVar[str] = "offline ablation"

    # -- the graph ------------------------------------------------------------------------------------
    @abstractmethod
    def build(self) -> StateGraph:
        """The uncompiled graph (embeddable as a subgraph in another LangGraph app)."""

    def compile(self, checkpointer: Any = None) -> Any:
        return self.build().compile(checkpointer=checkpointer)

    def recursion_limit(self, state: Mapping[str, Any]) -> int:
        """LangGraph steps one :meth:`run_graph` may take for this (prepared or resumed) state; agents with loops
        raise it."""
        return 100

    # -- a run ----------------------------------------------------------------------------------------
    def run(self, inputs: Mapping[str, Any], *, checkpointer: Any = None, thread_id: str | None = None) -> RunResult:
        """Run the agent on ``inputs`` and record the run (see the module docstring). With a ``checkpointer`` the
        run's thread is ``thread_id`` (default: the run id); a thread with unfinished work resumes from its last
        checkpoint, and ``inputs`` other than ``run_id`` are then ignored."""
        inputs = dict(inputs)
        run_id = inputs.get("run_id") or new_run_id(self.job)
        app = self.compile(checkpointer)
        config: dict[str, Any] = {}
        resumed: dict[str, Any] | None = None
        if checkpointer is not None:
            config["configurable"] = {"thread_id": thread_id or run_id}
            snapshot = app.get_state(config)
            if snapshot.next:  # unfinished work on this thread: resume it, under the run it started
                resumed = dict(snapshot.values)
                run_id = resumed.get("run_id", run_id)
        inputs["run_id"] = run_id
        started = time.perf_counter()
        with self.runs.running(self.job, run_id=run_id, model=self.model_name, mode=self.settings.mode,
                               properties=self.run_properties(inputs if resumed is None else resumed)):
            state = self.prepare(inputs) if resumed is None else None
            config["recursion_limit"] = self.recursion_limit(state if state is not None else resumed or {})
            final = self.run_graph(app, state, config)
            result = self.finish_run(final)
        result.seconds = time.perf_counter() - started
        return result

    # -- what the graph's first and last nodes call (so an embedded graph records its run too) ---------
    def start_run(self, state: Mapping[str, Any]) -> None:
        """Mark the state's run ``running`` and tie the ledger to it (idempotent: :meth:`run` starts it too)."""
        run_id = state["run_id"]
        self.runs.start(self.job, run_id=run_id, model=self.model_name, mode=self.settings.mode,
                        properties=self.run_properties(state))
        if self.chat is not None:
            self.ledger.attach(self.graph, run_id)

    def finish_run(self, state: Mapping[str, Any]) -> RunResult:
        """Score the final state (:meth:`result`), write the ledger's totals and mark the run ``finished``."""
        result = self.result(state)
        if self.chat is not None:
            totals = self.ledger.flush(self.graph, result.run_id)
            result.llm = LLMUsage(calls=totals.calls, failed=totals.failed, prompt_tokens=totals.prompt_tokens,
                                  completion_tokens=totals.completion_tokens, seconds=totals.seconds)
        self.runs.finish(result.run_id, scores=result.scores, metric=result.metric, properties=result.properties)
        return result

    def prepare(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The graph's input state for ``inputs`` (validated; default: as given)."""
        return inputs

    def run_graph(self, app: Any, state: dict[str, Any] | None, config: dict[str, Any]) -> dict[str, Any]:
        """Run the compiled graph to its end and return the final state (``state`` None: resume). Agents whose
        graph handles one item of many (a question) override this to run it per item."""
        return dict(app.invoke(state, config))

    def run_properties(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """Properties the ``(:Run)`` node gets when the run starts: the settings, and what the agent runs on."""
        return self.settings.model_dump(mode="json", exclude={"mode"})

    @abstractmethod
    def result(self, state: Mapping[str, Any]) -> RunResult:
        """The run's result from its final state: scores, counts and the job's output."""

    def new_result(self, state: Mapping[str, Any], *, scores: Mapping[str, float | None] | None = None,
                   properties: Mapping[str, Any] | None = None, output: Any = None) -> RunResult:
        """A :class:`RunResult` of this agent for the run in ``state`` (helper for :meth:`result`)."""
        return RunResult(run_id=state["run_id"], job=self.job, model=self.model_name, mode=self.settings.mode,
                         metric=self.metric, scores={k: float(v) for k, v in (scores or {}).items() if v is not None},
                         properties=dict(properties or {}), output=output)
