"""The generated benchmark KG has the shape it claims: exactly the distinct statements asked for, seeded."""

from __future__ import annotations

from pathlib import Path

from benchmarks.generate_kg import generate_wikidata_nt
from kgagents.loaders.wikidata import parse_wikidata_nt


def test_generated_dump_parses_to_exactly_the_statements_claimed(tmp_path: Path) -> None:
    shape = generate_wikidata_nt(tmp_path / "g.nt", triples=3000, entities=400, relations=20, seed=3)
    data = parse_wikidata_nt(tmp_path / "g.nt", kg="g")
    counts = data.counts()
    assert data.duplicate_triples == 0
    assert (counts["triples"], counts["literals"]) == (shape.entity_triples, shape.literal_triples) == (2400, 600)
    assert counts["relations"] <= 20 and counts["entities"] == 400  # every item has a label line
    assert data.entity_props("Q1")["name"] == "entity 1"
    assert {r["name"] for r in data.relations.values()} <= {f"property {i}" for i in range(1, 21)}
    assert shape.max_out_degree > 10 * shape.median_degree  # power law: hubs far above the median


def test_same_seed_same_file_other_seed_other_file(tmp_path: Path) -> None:
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        generate_wikidata_nt(tmp_path / f"{name}.nt", triples=500, seed=seed)
    assert (tmp_path / "a.nt").read_bytes() == (tmp_path / "b.nt").read_bytes() != (tmp_path / "c.nt").read_bytes()
