"""Independent items on parallel server slots.

Why a helper: a llama-server started with ``--parallel N`` decodes N requests in one batch, so N independent
items (questions, source entities, candidate pairs) finish in less time than one after another; an endpoint
with one slot would only queue them. :func:`map_on_slots` therefore uses threads only when the chat model
says it has more than one slot, and keeps the items' order either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from kgagents.llm.client import ChatModel

In = TypeVar("In")
Out = TypeVar("Out")


def map_on_slots(chat: ChatModel | None, fn: Callable[[In], Out], items: Iterable[In],
                 workers: int | None = None) -> list[Out]:
    """``[fn(item) for item in items]``, on ``workers`` threads (default: ``chat.slots``; one without a chat
    model). ``fn`` must be thread-safe (a :class:`~kgagents.llm.Ledger` is); the first exception raised by
    an item is raised here after the running items finish."""
    n = workers or (chat.slots if chat is not None else 1)
    if n <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(max_workers=n, thread_name_prefix="llm-slot") as pool:
        return list(pool.map(fn, items))
