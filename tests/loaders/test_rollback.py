"""Every loader writes in one transaction: a failure *inside* it (after batches were already sent to
Neo4j) leaves the graph exactly as it was. The "writes nothing" tests elsewhere fail while parsing,
before any transaction opens; these fail half-way through the writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgagents.errors import ValueTooLargeError
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import load_alignment
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.ontology import load_ontology
from kgagents.loaders.triples import load_triples
from kgagents.loaders.wikidata import load_wikidata_nt
from tests.loaders_alignment.test_load_alignment import SMALL_RESOURCES, create_resources


class Interrupted(Exception):
    """Stands for anything that stops a load half-way (Ctrl-C, a bug, a dropped connection)."""


def interrupt(rows: int) -> None:
    """A progress callback: called after a batch was written inside the transaction, then stops the load."""
    raise Interrupted(f"stopped after a batch of {rows} rows")


Loader = Callable[[Graph, Path, Path, Callable[[int], None]], object]
LOADERS: dict[str, Loader] = {
    "ontology": lambda g, fx, tmp, p: load_ontology(g, fx / "ontology" / "features.ttl", progress=p),
    "alignment": lambda g, fx, tmp, p: load_alignment(g, fx / "alignment" / "small.rdf", progress=p),
    "triples": lambda g, fx, tmp, p: load_triples(g, fx / "kg" / "triples_small.txt", kg="small", progress=p),
    "jape": lambda g, fx, tmp, p: load_jape_pair(g, fx / "kg" / "jape_tiny_de_en", progress=p),
    "wikidata": lambda g, fx, tmp, p: load_wikidata_nt(g, valid_wikidata(fx, tmp), progress=p),
}


def valid_wikidata(fixtures: Path, tmp: Path) -> Path:
    """The Wikidata sample without its deliberately malformed line (the one without a final dot)."""
    lines = (fixtures / "kg" / "wikidata_truthy_sample.nt").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp / "sample.nt"
    path.write_text("".join(ln for ln in lines if ln.startswith("#") or ln.rstrip().endswith(".")), encoding="utf-8")
    return path


def graph_counts(graph: Graph) -> tuple[int, int, int]:
    row = graph.run_text("MATCH (n) WITH count(n) AS n, sum(size(keys(n))) AS p "
                         "RETURN n, p, COUNT { ()-[]->() } AS r")[0]
    return row["n"], row["r"], row["p"]


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_load_stopped_after_its_first_batch_leaves_the_graph_unchanged(
        graph: Graph, fixtures: Path, tmp_path: Path, loader: str) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)  # something to keep (and the alignment's entities)
    graph.run_text("CREATE (:Keep {name: 'before'})-[:KEEP]->(:Keep {name: 'also before'})")
    before = graph_counts(graph)
    with pytest.raises(Interrupted):
        LOADERS[loader](graph, fixtures, tmp_path, interrupt)
    assert graph_counts(graph) == before
    LOADERS[loader](graph, fixtures, tmp_path, lambda rows: None)  # the same load, uninterrupted, does write
    assert graph_counts(graph) != before


def test_a_value_neo4j_refuses_half_way_through_a_kg_load_writes_nothing(
        graph: Graph, neo4j_settings, fixtures: Path, tmp_path: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    before = graph_counts(graph)
    lines = [f"entity{i}|rel|entity{i + 1}" for i in range(20)] + ["x" * 9000 + "|rel|entity0"]
    path = tmp_path / "big.txt"
    path.write_text("\n".join(lines) + "\n")
    with Graph(neo4j_settings.model_copy(update={"batch_size": 4})) as small_batches:
        with pytest.raises(ValueTooLargeError, match=r"bytes in :Entity\("):
            load_triples(small_batches, path, kg="small")  # entity batches 1-5 are sent before the 6th fails
    assert graph_counts(graph) == before
