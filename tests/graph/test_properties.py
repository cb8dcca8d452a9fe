"""Settings and timings as typed Neo4j properties."""

from __future__ import annotations

import pytest

from kgagents.agent.matching.settings import MatchSettings
from kgagents.graph.properties import as_properties, seconds_properties


def test_settings_become_scalars_and_lists_and_nested_maps_are_spread() -> None:
    props = as_properties({**MatchSettings(mode="no_llm").model_dump(mode="json"), "extra": {"a": 1, "b": None}})
    assert props["threshold"] == 0.9 and props["mode"] == "no_llm" and props["channels"] == ["syntactic", "lexical"]
    assert props["extra_a"] == 1 and "extra_b" not in props  # None is left out, never written as null
    assert all(isinstance(v, (bool, int, float, str, list)) for v in props.values())


def test_values_neo4j_cannot_hold_are_refused_not_stringified() -> None:
    with pytest.raises(TypeError, match="'rows'"):
        as_properties({"rows": [{"a": 1}]})
    with pytest.raises(TypeError, match="'when'"):
        as_properties({"when": object()})


def test_timings_are_named_by_stage() -> None:
    assert seconds_properties({"prematch": 1, "retrieve": 0.25}) == {"prematch_seconds": 1.0, "retrieve_seconds": 0.25}
