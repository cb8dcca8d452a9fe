"""The load benchmark's readers of the importer's output and of earlier results (unit tier: files written
here)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.load import _ceiling_ratio, _kept_bulk_rows, importer_stages, load_range

LOG = """Import starting 2026-11-25 20:57:35.861+0000
(1/4) Node import 2026-11-25 20:57:35.884+0000
.......... .......... 100% ∆0ms [997ms]
Node import COMPLETED in 1m 2s 5ms
(2/4) Relationship import 2026-11-25 20:57:36.884+0000
Relationship import COMPLETED in 753ms
(3/4) Relationship linking 2026-11-25 20:57:37.637+0000
Relationship linking COMPLETED in 905ms
(4/4) Post processing 2026-11-25 20:57:38.542+0000
Post processing COMPLETED in 1s 349ms
IMPORT DONE in 1m 5s 12ms.
Peak memory usage: 1.033GiB
"""


def test_importer_stages_are_read_from_its_output(tmp_path: Path) -> None:
    log = tmp_path / "import.log"
    log.write_text(LOG, encoding="utf-8")
    assert importer_stages(log) == {"node import": 62.005, "relationship import": 0.753,
                                    "relationship linking": 0.905, "post processing": 1.349, "import done": 65.012}
    assert importer_stages(tmp_path / "missing.log") == {}


def test_the_ceiling_ratio_compares_the_same_input() -> None:
    rows = [{"input": "g_5", "method": "bulk", "import_triples_per_s": 50, "triples_per_s": 20},
            {"input": "g_9", "method": "bulk", "import_triples_per_s": 10, "triples_per_s": 5},
            {"input": "g_5", "method": "bulk_ceiling", "import_triples_per_s": 80, "triples_per_s": 80}]
    ratio = _ceiling_ratio(rows)
    assert ratio is not None and ratio["input"] == "g_5"
    assert (ratio["import_ratio"], ratio["end_to_end_ratio"]) == (0.625, 0.25)
    assert _ceiling_ratio(rows[:2]) is None


def test_bulk_rows_carried_over_keep_where_they_were_measured(tmp_path: Path) -> None:
    first = {"command": "bench load A", "git_commit": "a" * 40, "started_at": "t1",
             "generator": [{"triples": 5}, {"triples": 7}],
             "rows": [{"input": "generated_5", "method": "bulk", "load_average_before": [9.0]},
                      {"input": "generated_5", "method": "bulk_ceiling", "load_average_before": [9.0]},
                      {"input": "generated_7", "method": "batched", "load_average_before": [1.0]}]}
    (tmp_path / "first.json").write_text(json.dumps(first), encoding="utf-8")
    kept = _kept_bulk_rows(tmp_path / "first.json")
    assert [r["method"] for r in kept["rows"]] == ["bulk", "bulk_ceiling"]
    assert kept["generator"] == [{"triples": 5}]
    assert {r["kept_from"]["command"] for r in kept["rows"]} == {"bench load A"}
    second = {**first, "command": "bench load B", "rows": kept["rows"]}  # a later run that carried them over
    (tmp_path / "second.json").write_text(json.dumps(second), encoding="utf-8")
    again = _kept_bulk_rows(tmp_path / "second.json")
    assert {r["kept_from"]["command"] for r in again["rows"]} == {"bench load A"}  # not the file that carried them
    report = {"rows": [*again["rows"], {"input": "generated_7", "method": "batched", "load_average_before": [2.0]}]}
    assert load_range(report) == (2.0, 2.0)  # this run's rows only


def test_the_write_ceiling_runs_the_loaders_own_query_with_and_without_its_properties() -> None:
    """The ceiling must measure the query the batched loader sends, so a change to it changes the ceiling too."""
    import numpy as np

    from benchmarks.write_ceiling import _batches, queries
    from kgagents.cypher import cypher

    texts = queries()
    assert texts["rel + name"] == cypher("batched/create_triples")
    assert "g.rel" not in texts["no properties"] and "CREATE (a)-[:$(g.type)]->(b)" in texts["no properties"]
    batches = _batches(list(range(100, 200)), 250, 100, 5, np.random.default_rng(1))
    assert [sum(len(g["heads"]) for g in b) for b in batches] == [100, 100, 50]
    assert all(len(g["heads"]) == len(g["tails"]) and set(g["heads"]) <= set(range(100, 200))
               for b in batches for g in b)
