"""Every request to a chat model, counted: tokens, seconds, cost, success — in memory and in the graph.

Why a wrapper (decorator) rather than logging calls in the agents: an agent that holds
``ledger.wrap(chat)`` cannot make an unrecorded call, and every agent reports its cost the same way.
One entry per HTTP request: a call's retried or refused requests (``ChatResult.failed_requests``) are
entries of their own, as are repair calls, so the ledger counts what the endpoint saw.

In the graph a run's requests are ``(:Run {id})-[:MADE_CALL]->(:LLMCall)``; the run's totals are
recomputed from them on every flush, so flushing twice (or from a resumed run) never double counts.
:meth:`Ledger.attach` writes each entry as it is recorded, so a run killed half-way keeps the ledger
of every request it made and its resumption adds to it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from threading import Lock
from typing import Any

from kgagents.config import LLMSettings
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel, ChatResult, FailedRequest, Message


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
    schema_asked: bool = False  # the caller wanted one JSON object of a schema
    output_format: str = "text"  # what shaped the reply: json_schema (constrained), json_object or text
    parsed: bool | None = None  # whether the caller could use the reply (None: it did not say)


@dataclass(frozen=True)
class PurposeOutcomes:
    """How one purpose's replies fared (``:repair`` calls counted under their purpose): ``fallbacks`` are
    replies that were asked for a schema but not decoded under it; ``parse_failures`` replies the caller
    could not use (each triggers a repair call or an error)."""

    purpose: str
    calls: int
    schema_asked: int
    constrained: int
    fallbacks: int
    parsed: int
    parse_failures: int
    repairs: int

    @property
    def parse_failure_rate(self) -> float | None:
        judged = self.parsed + self.parse_failures
        return self.parse_failures / judged if judged else None

    @property
    def fallback_rate(self) -> float | None:
        return self.fallbacks / self.schema_asked if self.schema_asked else None


def purpose_outcomes(records: Sequence[CallRecord]) -> list[PurposeOutcomes]:
    """Per purpose, over answered calls: constrained decoding, fallbacks, parse failures and repairs."""
    groups: dict[str, list[CallRecord]] = {}
    for r in records:
        if r.ok:
            groups.setdefault(r.purpose.removesuffix(":repair"), []).append(r)
    return [
        PurposeOutcomes(
            purpose=purpose, calls=len(rows), schema_asked=sum(r.schema_asked for r in rows),
            constrained=sum(r.output_format == "json_schema" for r in rows),
            fallbacks=sum(r.schema_asked and r.output_format != "json_schema" for r in rows),
            parsed=sum(r.parsed is True for r in rows), parse_failures=sum(r.parsed is False for r in rows),
            repairs=sum(r.purpose.endswith(":repair") for r in rows),
        )
        for purpose, rows in sorted(groups.items())
    ]


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
        self._written: set[str] = set()
        self._graph: Graph | None = None

    def attach(self, graph: Graph, run_id: str) -> None:
        """From now on tie calls to ``run_id`` and write each to ``graph`` as soon as it is recorded
        (with those recorded so far). Attaching again to the same run changes nothing."""
        if self._graph is graph and self.run_id == run_id:
            return
        self.run_id = run_id
        self._graph = graph
        self.flush(graph, run_id)

    def wrap(self, chat: ChatModel) -> LedgeredChatModel:
        """``chat`` with every call recorded here."""
        return LedgeredChatModel(chat, self)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Price of one call from the per-1k-token prices in the settings."""
        s = self.settings
        return prompt_tokens / 1000 * s.prompt_cost_per_1k + completion_tokens / 1000 * s.completion_cost_per_1k

    def record(self, *, purpose: str, model: str, started_at: datetime, seconds: float,
               result: ChatResult | None = None, error: BaseException | None = None,
               schema_asked: bool = False) -> CallRecord:
        """Add one request (``result`` if it answered, ``error`` if the call raised) — and first one failed
        entry per request the call made before (``failed_requests`` of the result or the error)."""
        failed: tuple[FailedRequest, ...] = (result.failed_requests if result is not None
                                             else getattr(error, "failed_requests", ()))
        with self._lock:
            added = [self._entry(purpose, model, f.started_at, f.seconds, None, f.error, schema_asked)
                     for f in failed]
            if result is not None:  # its seconds: the call's, less the failed requests' already counted
                answered = max(0.0, result.seconds - sum(f.seconds for f in failed))
                added.append(self._entry(purpose, result.model, started_at.isoformat(), answered, result, None,
                                         schema_asked))
            elif not failed:  # the call failed without saying which requests it made: count it as one
                added.append(self._entry(purpose, model, started_at.isoformat(), seconds, None,
                                         f"{type(error).__name__}: {error}"[:500], schema_asked))
        if self._graph is not None:
            self.flush(self._graph)
        return added[-1]

    def _entry(self, purpose: str, model: str, started_at: str, seconds: float, result: ChatResult | None,
               error: str | None, schema_asked: bool) -> CallRecord:
        """Append one entry (the caller holds the lock)."""
        prompt = result.prompt_tokens if result else 0
        completion = result.completion_tokens if result else 0
        record = CallRecord(
            id=uuid.uuid4().hex, seq=len(self._records), run_id=self.run_id, purpose=purpose, model=model,
            prompt_tokens=prompt, completion_tokens=completion, seconds=seconds, cost=self.cost(prompt, completion),
            ok=error is None, error=error, started_at=started_at, schema_asked=schema_asked,
            output_format=result.output_format if result else "text",
        )
        self._records.append(record)
        return record

    def mark_parsed(self, call_id: str, parsed: bool) -> None:
        """Record whether the caller could use the reply of call ``call_id`` (rewritten on the next flush)."""
        with self._lock:
            for i, r in enumerate(self._records):
                if r.id == call_id:
                    self._records[i] = replace(r, parsed=parsed)
                    self._written.discard(call_id)
                    break
            else:
                return
        if self._graph is not None:
            self.flush(self._graph)

    def outcomes(self) -> list[PurposeOutcomes]:
        """Per purpose: constrained decoding, fallbacks, parse failures and repairs of the calls recorded here."""
        return purpose_outcomes(self.records)

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
        with self._lock:
            new = [r for r in self._records if r.run_id in (run_id, None) and r.id not in self._written]
            self._written.update(r.id for r in new)
        try:
            with graph.transaction() as tx:
                tx.run(cypher("llm/merge_run"), run_id=run_id).consume()
                graph.write_rows(tx, "llm/merge_calls", [asdict(r) for r in new], run_id=run_id)
                total = tx.run(cypher("llm/run_totals"), run_id=run_id).single()
        except BaseException:
            with self._lock:  # not written after all: the next flush tries again
                self._written.difference_update(r.id for r in new)
            raise
        assert total is not None  # merge_run created the run
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

    @property
    def slots(self) -> int:
        return self.inner.slots

    def record_outcome(self, result: ChatResult, parsed: bool) -> None:
        if result.call_id is not None:
            self.ledger.mark_parsed(result.call_id, parsed)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        top_logprobs: int | None = None,
    ) -> ChatResult:
        started = datetime.now(timezone.utc)
        clock = time.perf_counter()
        try:
            result = self.inner.complete(messages, purpose=purpose, json_schema=json_schema,
                                         max_tokens=max_tokens, top_logprobs=top_logprobs)
        except Exception as exc:
            self.ledger.record(purpose=purpose, model=self._name_or_unknown(), started_at=started,
                               seconds=time.perf_counter() - clock, error=exc, schema_asked=json_schema is not None)
            raise
        record = self.ledger.record(purpose=purpose, model=result.model, started_at=started, seconds=result.seconds,
                                    result=result, schema_asked=json_schema is not None)
        return replace(result, call_id=record.id)

    def _name_or_unknown(self) -> str:
        """The model's name for a failed call (asking an unreachable server for it would fail too)."""
        try:
            return self.inner.model_name
        except Exception:  # noqa: BLE001 - the call's own error is what gets recorded
            return "unknown"
