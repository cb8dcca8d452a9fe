"""Every chat-model call, counted: tokens, seconds, cost, success — in memory and then in the graph.

Why a wrapper (decorator) rather than logging calls in the agents: an agent that holds
``ledger.wrap(chat)`` cannot make an unrecorded call, and every agent reports its cost the same way.
In the graph a run's calls are ``(:Run {id})-[:MADE_CALL]->(:LLMCall)``; the run's totals are
recomputed from its calls on every flush, so flushing twice (or from a resumed run) never double counts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from threading import Lock
from typing import Any

from kgagents.config import LLMSettings
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel, ChatResult, Message


@dataclass(frozen=True)
class CallRecord:
    """One call. ``run_id`` is the ledger's run at call time (``None``: assigned at flush)."""

    id: str
    seq: int
    run_id: str | None
    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cost: float
    ok: bool
    error: str | None
    started_at: str


@dataclass(frozen=True)
class LedgerTotals:
    calls: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cost: float = 0.0


class Ledger:
    """Records the calls of every chat model it wraps (thread-safe: agents may call in parallel)."""

    def __init__(self, settings: LLMSettings | None = None, run_id: str | None = None) -> None:
        self.settings = settings or LLMSettings()
        self.run_id = run_id
        self._records: list[CallRecord] = []
        self._lock = Lock()
        self._schema_ready = False

    def wrap(self, chat: ChatModel) -> LedgeredChatModel:
        """``chat`` with every call recorded here."""
        return LedgeredChatModel(chat, self)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Price of one call from the per-1k-token prices in the settings."""
        s = self.settings
        return prompt_tokens / 1000 * s.prompt_cost_per_1k + completion_tokens / 1000 * s.completion_cost_per_1k

    def record(self, *, purpose: str, model: str, started_at: datetime, seconds: float,
               result: ChatResult | None = None, error: BaseException | None = None) -> CallRecord:
        """Add one call (``result`` if it succeeded, ``error`` if it raised)."""
        prompt = result.prompt_tokens if result else 0
        completion = result.completion_tokens if result else 0
        with self._lock:
            record = CallRecord(
                id=uuid.uuid4().hex, seq=len(self._records), run_id=self.run_id, purpose=purpose,
                model=result.model if result else model, prompt_tokens=prompt, completion_tokens=completion,
                seconds=result.seconds if result else seconds, cost=self.cost(prompt, completion),
                ok=error is None, error=None if error is None else f"{type(error).__name__}: {error}"[:500],
                started_at=started_at.isoformat(),
            )
            self._records.append(record)
        return record

    @property
    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    def totals(self, run_id: str | None = None) -> LedgerTotals:
        """Totals over all calls, or over those of ``run_id`` (plus calls not yet tied to a run)."""
        rows = [r for r in self.records if run_id is None or r.run_id in (run_id, None)]
        return LedgerTotals(
            calls=len(rows),
            failed=sum(not r.ok for r in rows),
            prompt_tokens=sum(r.prompt_tokens for r in rows),
            completion_tokens=sum(r.completion_tokens for r in rows),
            seconds=sum(r.seconds for r in rows),
            cost=sum(r.cost for r in rows),
        )

    def flush(self, graph: Graph, run_id: str | None = None) -> LedgerTotals:
        """Write the run's calls (and calls not yet tied to a run) under ``(:Run {id: run_id})``, update
        the run's totals from everything recorded for it in the graph, and return those totals."""
        run_id = run_id or self.run_id
        if run_id is None:
            raise ValueError("Ledger.flush needs a run_id (none given and the ledger has none)")
        if not self._schema_ready:
            graph.run_script("llm/constraints")
            self._schema_ready = True
        rows: list[dict[str, Any]] = [asdict(r) for r in self.records if r.run_id in (run_id, None)]
        with graph.transaction() as tx:
            graph.write_rows(tx, "llm/merge_calls", rows, run_id=run_id)
            total = tx.run(cypher("llm/run_totals"), run_id=run_id).single()
        assert total is not None  # merge_calls created the run
        return LedgerTotals(calls=total["calls"], failed=total["failed"], prompt_tokens=total["prompt_tokens"],
                            completion_tokens=total["completion_tokens"], seconds=total["seconds"],
                            cost=total["cost"])


class LedgeredChatModel(ChatModel):
    """A chat model whose every call, successful or not, lands in a :class:`Ledger`."""

    def __init__(self, inner: ChatModel, ledger: Ledger) -> None:
        self.inner = inner
        self.ledger = ledger

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        started = datetime.now(timezone.utc)
        clock = time.perf_counter()
        try:
            result = self.inner.complete(messages, purpose=purpose, json_schema=json_schema,
                                         max_tokens=max_tokens)
        except Exception as exc:
            self.ledger.record(purpose=purpose, model=self._name_or_unknown(), started_at=started,
                               seconds=time.perf_counter() - clock, error=exc)
            raise
        self.ledger.record(purpose=purpose, model=result.model, started_at=started, seconds=result.seconds,
                           result=result)
        return result

    def _name_or_unknown(self) -> str:
        """The model's name for a failed call (asking an unreachable server for it would fail too)."""
        try:
            return self.inner.model_name
        except Exception:  # noqa: BLE001 - the call's own error is what gets recorded
            return "unknown"
