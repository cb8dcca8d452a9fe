"""The KGQA scorer on hand-made answers: light normalisation, first item only, any-of gold, ids."""

from __future__ import annotations

import pytest

from kgagents.loaders.qa import EntityRef
from kgagents.metrics.qa import contains_gold, first_item, hits_at_1, normalise

GOLD = [EntityRef(id="Once Were Warriors", name="Once Were Warriors"), EntityRef(name="River Queen"),
        EntityRef(id="Q2", name="Earth", aliases=["Blue Planet"])]


@pytest.mark.parametrize("text, expected", [
    ("  United_Kingdom ", "united kingdom"), ('"Once  Were\tWarriors".', "once were warriors"), ("1967", "1967"),
    ("St. Louis", "st. louis"), ("", ""),
])
def test_normalise_is_light(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize("answer, top, hit", [
    ("once were warriors", None, True),            # case
    ("River_Queen\nTracker", None, True),          # underscores; first line is the prediction
    ("Tracker\nRiver Queen", None, False),         # the second item never counts
    ("River Queen, Tracker", None, True),          # a one-line list: its first comma item
    ("Tracker, River Queen", None, False),
    ("blue planet", None, True),                   # alias
    ("the third rock", "Q2", True),                # the resolved entity id is a gold id
    ("Earth", "Q3", True),                         # the name still matches
    ("", None, False),
    ("Answer unknown", None, False),
])
def test_hits_at_1_first_item_any_gold(answer: str, top: str | None, hit: bool) -> None:
    assert hits_at_1(answer, top, GOLD) is hit


def test_first_item_skips_blank_lines() -> None:
    assert first_item("\n\n  Kismet \nOther") == "Kismet"


def test_contains_gold_by_id_or_normalised_name() -> None:
    assert contains_gold([("x", "Tracker"), ("y", "river_queen")], GOLD)
    assert contains_gold([("Q2", "Terra")], GOLD)
    assert not contains_gold([("x", "Tracker"), ("Q3", "Mars")], GOLD)
    assert not contains_gold([], GOLD)

