"""Bulk load (neo4j-admin import into the test server): same graph as the transactional load, and no harm done
by refusals, bad input or a failing importer. Each successful bulk load restarts the test server, so only two
tests import for real; the rest fail before the swap by design."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.errors import BulkImportError, ParseError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.bulk import (
    BulkInput,
    bulk_load,
    check_target,
    jape_input,
    managed_server,
    triples_input,
    wikidata_input,
)
from kgagents.loaders.import_files import ImportFilesWriter
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.kg_common import KGData, kg_stats
from kgagents.loaders.triples import load_triples
from kgagents.loaders.wikidata import load_wikidata_nt
from kgagents.servers.neo4j import LocalNeo4j

pytestmark = pytest.mark.skipif(os.environ.get("KGAGENTS_TEST_USE_CONFIGURED") == "1",
                                reason="bulk import needs the test server kgagents runs itself")

VOLATILE = {("Load", "seconds"), ("Load", "loaded_at")}  # differ between any two loads, bulk or not


def _stable(labels: list[str], props: dict) -> str:
    kept = {k: v for k, v in props.items() if not any((label, k) in VOLATILE for label in labels)}
    return repr((sorted(labels), sorted(kept.items())))  # repr keeps 5 and 5.0 and '5' apart


def canonical_dump(graph: Graph, fixtures: Path) -> list[str]:
    """Every node and relationship (with both ends) as text, sorted, plus the schema's index names."""
    query = {name: (fixtures / "kg" / f"canonical_{name}.cypher").read_text() for name in ("nodes", "relationships")}
    nodes = sorted(_stable(r["labels"], r["props"]) for r in graph.run_text(query["nodes"]))
    rels = sorted(repr((r["type"], sorted(r["props"].items()), _stable(r["a_labels"], r["a_props"]),
                        _stable(r["b_labels"], r["b_props"]))) for r in graph.run_text(query["relationships"]))
    return nodes + rels


@pytest.fixture
def local(graph: Graph, neo4j_settings: Neo4jSettings, local_server_settings: LocalServerSettings) -> LocalNeo4j:
    """The test server as the bulk loader sees it (the `graph` fixture has emptied it)."""
    return managed_server(neo4j_settings, local_server_settings)


def _bulk(local: LocalNeo4j, data: BulkInput, neo4j_settings: Neo4jSettings, fixtures: Path) -> list[str]:
    result = bulk_load(data, local, replaced=check_target(local, overwrite=True))
    assert result.import_peak_rss_mib > 0 and result.nodes > 0
    with Graph(neo4j_settings) as fresh:
        return canonical_dump(fresh, fixtures)


@pytest.fixture
def wikidata_edge_cases(fixtures: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The sample dump without its malformed line, plus a multi-line literal, an empty English label and a
    quote-and-comma label, empty strings; and a property-label file that overrides one dump label and adds one."""
    lines = (fixtures / "kg" / "wikidata_truthy_sample.nt").read_text(encoding="utf-8").splitlines(keepends=True)
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    extra = [f'<{wd}Q42> <{wdt}P1559> "first line\\nsecond, \\"line\\""@en .\n',
             f'<{wd}Q145> <{wdt}P31> <{wd}Q6256> .\n',
             f'<{wd}Q6256> <http://www.w3.org/2000/01/rdf-schema#label> ""@en .\n',
             f'<{wd}Q6256> <http://schema.org/description> ""@en .\n',
             f'<{wd}Q5> <{wdt}P1813> "" .\n',
             f'<{wd}P1559> <http://www.w3.org/2000/01/rdf-schema#label> "name in native language, \\"quoted\\""@en .\n']
    dump = tmp_path / "sample.nt"
    dump.write_text("".join(lines[:26] + lines[27:] + extra), encoding="utf-8")
    labels = tmp_path / "labels.tsv"
    labels.write_text("# PID\tlabel\nP31\tis a\nP69\teducated at\n", encoding="utf-8")
    return dump, labels


def test_bulk_jape_pair_equals_transactional(graph: Graph, local: LocalNeo4j, neo4j_settings: Neo4jSettings,
                                             fixtures: Path) -> None:
    tiny = fixtures / "kg" / "jape_tiny_de_en"
    load_jape_pair(graph, tiny)
    transactional = canonical_dump(graph, fixtures)
    assert any("GOLD_LINK" in line for line in transactional) and any("'eid', 3" in x for x in transactional)
    assert _bulk(local, jape_input(tiny), neo4j_settings, fixtures) == transactional


def test_bulk_wikidata_equals_transactional(graph: Graph, local: LocalNeo4j, neo4j_settings: Neo4jSettings,
                                            fixtures: Path, wikidata_edge_cases: tuple[Path, Path]) -> None:
    dump, labels = wikidata_edge_cases
    load_wikidata_nt(graph, dump, kg="wd", property_labels=labels)
    transactional = canonical_dump(graph, fixtures)
    assert any("first line\\nsecond" in line for line in transactional)
    bulk = _bulk(local, wikidata_input(dump, kg="wd", property_labels=labels), neo4j_settings, fixtures)
    assert bulk == transactional
    with Graph(neo4j_settings) as fresh:
        stats = kg_stats(fresh, "wd")
        assert (stats["triples"], stats["literals"]) == (9, 10)  # the sample's 8 + 8, and 1 + 2 more here
        ensure_schema(fresh)  # the schema is in place already: nothing to create


def test_non_empty_database_is_refused_without_overwrite(graph: Graph, local: LocalNeo4j, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    pid = local.pid()
    with pytest.raises(BulkImportError) as err:
        check_target(local, overwrite=False)
    assert "small" in str(err.value) and "--overwrite" in str(err.value)
    assert check_target(local, overwrite=True)["kgs"] == ["small"]
    assert local.pid() == pid and kg_stats(graph, "small")["triples"] == 4


def test_bad_input_fails_before_the_database_is_touched(graph: Graph, local: LocalNeo4j, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    pid = local.pid()
    with pytest.raises(ParseError) as err:
        triples_input(fixtures / "kg" / "triples_bad.txt", kg="bad")
    assert err.value.line == 3
    with pytest.raises(ParseError):
        wikidata_input(fixtures / "kg" / "wikidata_truthy_sample.nt")
    assert local.pid() == pid and kg_stats(graph, "small")["triples"] == 4


def test_failed_import_leaves_the_previous_database_serving(graph: Graph, local: LocalNeo4j, fixtures: Path,
                                                            tmp_path: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    pid = local.pid()
    writer = ImportFilesWriter(tmp_path)
    data = KGData("broken", {})
    data.entity("a")
    writer.add_kg(data)
    header, rows = tmp_path / "dangling.header.csv", tmp_path / "dangling.csv"
    header.write_text(":START_ID,:END_ID\n")
    rows.write_text("0,999\n")  # node 999 does not exist: the importer must reject the whole import
    files = writer.finish()
    files.relationships.append(("DANGLING", header, rows))
    with pytest.raises(BulkImportError) as err:
        local.import_database(files.importer_args(), heap="512m", max_off_heap="512m")
    assert "not changed" in str(err.value)
    assert local.pid() == pid and kg_stats(graph, "small")["triples"] == 4
    assert not (local.instance_dir / "import-staging").exists()


def test_only_the_server_kgagents_runs_is_accepted(graph: Graph, neo4j_settings: Neo4jSettings,
                                                   local_server_settings: LocalServerSettings) -> None:
    remote = neo4j_settings.model_copy(update={"uri": "neo4j+s://abc.databases.neo4j.io"})
    with pytest.raises(BulkImportError, match="remote, Docker or Aura"):
        managed_server(remote, local_server_settings)
    stranger = local_server_settings.model_copy(update={"instance": "not-started-by-kgagents"})
    with pytest.raises(BulkImportError, match="not the one kgagents started"):
        managed_server(neo4j_settings, stranger)  # something answers on the port, but not this instance
    other_db = neo4j_settings.model_copy(update={"database": "wikidata"})
    with pytest.raises(BulkImportError, match="one user database"):
        managed_server(other_db, local_server_settings)


@pytest.mark.parametrize("props,message", [
    ({"aliases": []}, "empty"), ({"aliases": ["a\x1fb"]}, "U\\+001F"), ({"aliases": ["x", 1]}, "mixed")])
def test_values_the_importer_cannot_keep_are_refused(tmp_path: Path, props: dict, message: str) -> None:
    data = KGData("k", {})
    data.entity("a", **props)
    with pytest.raises(BulkImportError, match=message):
        ImportFilesWriter(tmp_path).add_kg(data)


def test_one_property_with_two_types_is_refused(tmp_path: Path) -> None:
    data = KGData("k", {})
    data.entity("a", year=1999)
    data.entity("b", year="1999")
    with pytest.raises(BulkImportError, match="'year' has values of type long and string"):
        ImportFilesWriter(tmp_path).add_kg(data)
