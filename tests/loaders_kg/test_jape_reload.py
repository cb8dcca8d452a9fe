"""Loading a JAPE pair again under the same name with other options replaces it: no side of the earlier load is
left, the gold links carry only the new split, and the (:Load) record holds the counts of one load."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgagents.graph.connection import Graph
from kgagents.loaders.jape import gold_links, load_jape_pair
from kgagents.loaders.kg_common import kg_stats


@pytest.fixture
def tiny(fixtures: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "pair"
    shutil.copytree(fixtures / "kg" / "jape_tiny_de_en", copy)
    return copy


def _kgs(graph: Graph) -> list[str]:
    return [r["name"] for r in graph.run_text("MATCH (k:KG) RETURN k.name AS name ORDER BY name")]


def _entity_kgs(graph: Graph) -> list[str]:
    return [r["kg"] for r in graph.run_text("MATCH (e:Entity) RETURN DISTINCT e.kg AS kg ORDER BY kg")]


def _load_records(graph: Graph) -> list[dict[str, object]]:
    rows = graph.run_text("MATCH (l:Load {kind: 'ea_pair'}) RETURN l.id AS id, keys(l) AS keys")
    return [{"id": r["id"], "counts": sorted(k for k in r["keys"] if k.startswith("count_"))} for r in rows]


def _snapshot(graph: Graph) -> tuple[object, ...]:
    stats = {kg: kg_stats(graph, kg) for kg in _kgs(graph)}
    return _kgs(graph), _entity_kgs(graph), stats, gold_links(graph, "pair"), _load_records(graph)


def test_other_languages_replace_the_earlier_sides(graph: Graph, tiny: Path) -> None:
    load_jape_pair(graph, tiny)  # languages 1 and 2 (the directory name says none)
    assert _kgs(graph) == ["pair:1", "pair:2"]
    load_jape_pair(graph, tiny, langs=("de", "en"))
    after = _snapshot(graph)
    assert after[0] == after[1] == ["pair:de", "pair:en"]  # no KG node and no entity of the first load is left
    (record,) = after[4]
    assert sorted(record["counts"]) == sorted(  # type: ignore[call-overload]
        ["count_entities_de", "count_relations_de", "count_triples_de", "count_entities_en", "count_relations_en",
         "count_triples_en", "count_gold_train", "count_gold_test"])
    graph.run("admin/wipe")
    load_jape_pair(graph, tiny, langs=("de", "en"))
    assert _snapshot(graph) == after  # the same graph as a first load with those options


def test_another_split_replaces_the_gold_links(graph: Graph, tiny: Path) -> None:
    load_jape_pair(graph, tiny, train_ratio=0.5, split_seed=1)
    load_jape_pair(graph, tiny)  # back to the split files: sup_ent_ids is train, the rest test
    replaced = _snapshot(graph)
    graph.run("admin/wipe")
    load_jape_pair(graph, tiny)
    assert _snapshot(graph) == replaced
    assert sorted(split for *_, split in gold_links(graph, "pair")) == ["test", "test", "test", "train"]


def test_a_rerun_with_the_same_options_changes_nothing(graph: Graph, tiny: Path) -> None:
    load_jape_pair(graph, tiny, langs=("de", "en"))
    before = _snapshot(graph)
    nodes = graph.run_text("MATCH (e:Entity) RETURN collect(elementId(e)) AS ids")[0]["ids"]
    load_jape_pair(graph, tiny, langs=("de", "en"))
    assert _snapshot(graph) == before
    assert graph.run_text("MATCH (e:Entity) RETURN collect(elementId(e)) AS ids")[0]["ids"] == nodes  # kept
