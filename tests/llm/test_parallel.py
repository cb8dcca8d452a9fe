"""map_on_slots: threads only when the endpoint has more than one slot; results in the items' order."""

from __future__ import annotations

import threading
import time

import pytest

from kgagents.llm import Ledger, map_on_slots
from tests.scripted_chat import ScriptedChatModel


class Slotted(ScriptedChatModel):
    def __init__(self, slots: int) -> None:
        super().__init__([])
        self._slots = slots

    @property
    def slots(self) -> int:
        return self._slots


def _where(item: int) -> tuple[int, str]:
    time.sleep(0.05 * (3 - item % 3))  # later items finish first: the order must still be the items'
    return item, threading.current_thread().name


def test_one_slot_runs_in_the_calling_thread() -> None:
    out = map_on_slots(Slotted(1), _where, range(4))
    assert [i for i, _ in out] == [0, 1, 2, 3]
    assert {name for _, name in out} == {threading.current_thread().name}


def test_several_slots_run_items_at_once_in_order() -> None:
    ledger = Ledger(run_id="r")
    out = map_on_slots(ledger.wrap(Slotted(3)), _where, range(6))  # the ledger passes the slots through
    assert [i for i, _ in out] == list(range(6))
    assert len({name for _, name in out}) == 3 and all(name.startswith("llm-slot") for _, name in out)


def test_an_item_error_is_raised() -> None:
    def fail_on_two(item: int) -> int:
        if item == 2:
            raise ValueError("item 2")
        return item

    with pytest.raises(ValueError, match="item 2"):
        map_on_slots(Slotted(2), fail_on_two, range(4))
    assert map_on_slots(None, lambda i: i * 2, [1, 2]) == [2, 4]
