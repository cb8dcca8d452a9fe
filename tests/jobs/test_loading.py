"""The load job (``kgagents load kg``): options that do not apply are refused before anything is read or written,
and each method's account comes back for the CLI to render."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.loading import LoadOptionsError, load_kg

MISSING = Path("/nonexistent/kg.txt")  # never opened: the options are refused first


@pytest.mark.parametrize(("format", "method", "options", "message"), [
    ("triples", "transactional", {"langs": ("zh", "en")}, "--langs only applies to --format jape"),
    ("wikidata", "batched", {"train_ratio": 0.3}, "--train-ratio only applies to --format jape"),
    ("jape", "transactional", {"sep": "|"}, "--sep only applies to --format triples"),
    ("triples", "bulk", {"property_labels": Path("p.tsv")}, "--property-labels only applies to --format wikidata"),
    ("triples", "batched", {"overwrite": True}, "--overwrite only applies to --bulk"),
    ("triples", "transactional", {"batch_size": 10}, "--batch-size only applies to --batched"),
    ("triples", "bulk", {"parallel": 2}, "--parallel only applies to --batched"),
    ("triples", "batched", {"batch_size": 0}, "--batch-size must be at least 1"),
])
def test_options_that_do_not_apply_are_refused_before_anything_is_read(format, method, options, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LoadOptionsError, match=message):
        load_kg(MISSING, format, method=method, graph="bolt://127.0.0.1:1", **options)


def test_batched_load_through_the_cli(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    args = ["load", "kg", str(fixtures / "kg" / "triples_small.txt"), "--format", "triples", "--name", "small",
            "--batched", "--batch-size", "2"]
    first = CliRunner().invoke(app, args, env=env)
    assert first.exit_code == 0, first.output
    assert "separator: '|' (detected)" in first.output
    stored = graph.run_text("MATCH (k:KG {name: 'small'}) MATCH (l:Load) WHERE l.id IN k.loads "
                            "RETURN l.status AS status, l.method AS method")
    assert stored == [{"status": "complete", "method": "batched"}]
    again = CliRunner().invoke(app, args, env=env)
    assert again.exit_code == 0 and "loaded already; nothing to do" in " ".join(again.output.split())
