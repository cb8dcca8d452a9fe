"""DBP15K ZH-EN and SRPRS EN-FR loaded once into the real Neo4j; counts derived from the files with plain Python."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.jape import EAPairLoadResult, gold_links, load_jape_pair
from kgagents.loaders.kg_common import get_entity, kg_stats, triples_between

# Published DBP15K ZH-EN statistics (Sun et al. 2017, JAPE) — also in the data README.
PUBLISHED_DBP15K = {"entities": (19388, 19572), "triples": (70414, 95142), "gold": 15000}


def _tsv(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]


class Loaded:
    def __init__(self, graph: Graph, dbp: EAPairLoadResult, srprs: EAPairLoadResult) -> None:
        self.graph, self.dbp, self.srprs = graph, dbp, srprs


@pytest.fixture(scope="module")
def loaded(neo4j_settings: Neo4jSettings, shared_data: Path) -> Iterator[Loaded]:
    """One load of each pair for the whole module (the function-scoped `graph` fixture is not used here)."""
    with Graph(neo4j_settings) as graph:
        graph.run("admin/wipe")
        ensure_schema(graph)
        dbp = load_jape_pair(graph, shared_data / "ea" / "dbp15k_zh_en")
        srprs = load_jape_pair(graph, shared_data / "ea" / "srprs_en_fr")
        yield Loaded(graph, dbp, srprs)


@pytest.mark.parametrize("side,kg", [(1, "dbp15k_zh_en:zh"), (2, "dbp15k_zh_en:en")])
def test_dbp15k_counts_match_files_and_publication(loaded: Loaded, shared_data: Path, side: int, kg: str) -> None:
    d = shared_data / "ea" / "dbp15k_zh_en"
    triple_lines = (d / f"triples_{side}").read_text(encoding="utf-8").splitlines()
    distinct = set(triple_lines)
    stats = kg_stats(loaded.graph, kg)
    assert stats["entities"] == len(_tsv(d / f"ent_ids_{side}")) == PUBLISHED_DBP15K["entities"][side - 1]
    assert stats["relations"] == len(_tsv(d / f"rel_ids_{side}"))
    assert stats["triples"] == len(distinct)
    # The published number counts lines; the files contain no exact duplicate lines, so both agree.
    assert len(triple_lines) == len(distinct) == PUBLISHED_DBP15K["triples"][side - 1]


def test_dbp15k_gold_links_follow_split_files(loaded: Loaded, shared_data: Path) -> None:
    d = shared_data / "ea" / "dbp15k_zh_en"
    uri1 = dict(_tsv(d / "ent_ids_1"))
    uri2 = dict(_tsv(d / "ent_ids_2"))
    expected = {(uri1[a], uri2[b], "train") for a, b in _tsv(d / "sup_pairs")}
    expected |= {(uri1[a], uri2[b], "test") for a, b in _tsv(d / "ref_pairs")}
    assert len(expected) == PUBLISHED_DBP15K["gold"]
    assert {(a, b) for a, b, _ in expected} == {(uri1[a], uri2[b]) for a, b in _tsv(d / "ref_ent_ids")}
    stored = gold_links(loaded.graph, "dbp15k_zh_en")
    assert set(stored) == expected and len(stored) == len(expected)
    assert loaded.dbp.gold_links == {"train": 4500, "test": 10500}


def test_dbp15k_entity_properties(loaded: Loaded, shared_data: Path) -> None:
    d = shared_data / "ea" / "dbp15k_zh_en"
    eid, uri = _tsv(d / "ent_ids_1")[0]
    translated = dict(_tsv(d / "ent_ids_1_translated"))[eid]
    entity = get_entity(loaded.graph, "dbp15k_zh_en:zh", uri)
    assert entity is not None
    assert entity["eid"] == int(eid)
    assert entity["name"] == unquote(uri.split("/resource/", 1)[1]).replace("_", " ")
    assert entity["name_en"] == translated.split("/resource/", 1)[1].replace("_", " ").strip()
    labels = {row[0]: row for row in _tsv(d / "labels" / "s_labels")}
    assert entity["label"] == labels[uri][1] and entity["label_en"] == labels[uri][2]
    # attribute names: MuGNN's own entity numbering, joined by URI
    own_id = {u: i for u, i in _tsv(d / "attributes" / "entity2id_zh.txt")[1:]}[uri]
    attr_name = {i: u.rsplit("/", 1)[1] for u, i in _tsv(d / "attributes" / "attr2id_zh.txt")[1:]}
    attrs = {row[0]: row[1:] for row in _tsv(d / "attributes" / "entity2att_zh.txt")[1:]}[own_id]
    assert entity["attributes"] == list(dict.fromkeys(unquote(attr_name[a]) for a in attrs))


def test_dbp15k_triples_are_typed_by_property_local_name(loaded: Loaded, shared_data: Path) -> None:
    d = shared_data / "ea" / "dbp15k_zh_en"
    ents, rels = dict(_tsv(d / "ent_ids_1")), dict(_tsv(d / "rel_ids_1"))
    h, r, t = _tsv(d / "triples_1")[0]
    found = triples_between(loaded.graph, "dbp15k_zh_en:zh", ents[h], ents[t])
    assert {"type": rels[r].split("/property/", 1)[1], "rel": rels[r], "name": rels[r].split("/property/", 1)[1]} \
        in found


@pytest.mark.parametrize("side,kg", [(1, "srprs_en_fr:en"), (2, "srprs_en_fr:fr")])
def test_srprs_counts_match_files(loaded: Loaded, shared_data: Path, side: int, kg: str) -> None:
    d = shared_data / "ea" / "srprs_en_fr"
    stats = kg_stats(loaded.graph, kg)
    assert stats["entities"] == len(_tsv(d / f"ent_ids_{side}"))
    assert stats["relations"] == len(_tsv(d / f"rel_ids_{side}"))
    assert stats["triples"] == len(set((d / f"triples_{side}").read_text(encoding="utf-8").splitlines()))


def test_srprs_gold_split_is_sup_and_rest(loaded: Loaded, shared_data: Path) -> None:
    d = shared_data / "ea" / "srprs_en_fr"
    ref = {tuple(p) for p in _tsv(d / "ref_ent_ids")}
    sup = {tuple(p) for p in _tsv(d / "sup_ent_ids")}
    assert sup <= ref
    assert loaded.srprs.gold_links == {"train": len(sup), "test": len(ref - sup)}
    splits = [s for *_, s in gold_links(loaded.graph, "srprs_en_fr")]
    assert (splits.count("train"), splits.count("test")) == (len(sup), len(ref - sup))


def test_loading_again_changes_nothing(loaded: Loaded, shared_data: Path) -> None:
    """Runs last in this module: a second load of DBP15K must leave every count as it was."""
    kgs = ["dbp15k_zh_en:zh", "dbp15k_zh_en:en"]
    before = [kg_stats(loaded.graph, kg) for kg in kgs]
    links_before = gold_links(loaded.graph, "dbp15k_zh_en")
    again = load_jape_pair(loaded.graph, shared_data / "ea" / "dbp15k_zh_en")
    assert [kg_stats(loaded.graph, kg) for kg in kgs] == before
    assert gold_links(loaded.graph, "dbp15k_zh_en") == links_before
    assert again.kgs == [r.model_copy(update={"seconds": again.seconds}) for r in loaded.dbp.kgs]
