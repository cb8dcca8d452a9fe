"""What `kgagents match` prints: its matches (the most confident first, all of them with --json)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph

runner = CliRunner()


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def test_match_lists_its_matches_and_json_has_them_all(graph: Graph, neo4j_settings: Neo4jSettings,
                                                       fixtures: Path) -> None:
    d = fixtures / "matching"
    args = ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm"]
    scripted = runner.invoke(app, [*args, "--json", "--reference", str(d / "ref_ab.rdf")], env=_env(neo4j_settings))
    assert scripted.exit_code == 0, scripted.output
    document = json.loads(scripted.stdout)  # nothing but the document on stdout
    stored = graph.run_text("MATCH (s)-[m:MATCHES {run_id: $run}]->(t) RETURN s.uri AS s, t.uri AS t",
                            run=document["run_id"])
    assert {(m["source"], m["target"]) for m in document["matches"]} == {(r["s"], r["t"]) for r in stored}
    assert len(stored) >= 2 and document["mode"] == "no_llm" and document["model"] is None
    assert set(document["scores"]) >= {"precision", "recall", "f1"}
    assert "matching conf_a → conf_b" in scripted.stderr  # the progress went to stderr

    shown = runner.invoke(app, [*args, "--show", "1"], env=_env(neo4j_settings))
    assert shown.exit_code == 0, shown.output
    best = max(document["matches"], key=lambda m: m["confidence"])
    assert best["source_label"] in shown.stdout and best["target_label"] in shown.stdout
    assert f"{best['confidence']:.2f}" in shown.stdout  # the number the graph and the exports carry
    assert f"and {len(stored) - 1} more" in shown.stdout


def test_labels_in_two_languages_are_embedded_by_the_multilingual_model(
        graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    head = "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    (tmp_path / "de.ttl").write_text(head + '<http://example.org/de#F> a owl:Class ; rdfs:label "Fahrzeug"@de .\n')
    (tmp_path / "en.ttl").write_text(head + '<http://example.org/en#V> a owl:Class ; rdfs:label "Vehicle"@en .\n')
    (tmp_path / "en2.ttl").write_text(head + '<http://example.org/en2#C> a owl:Class ; rdfs:label "Car"@en .\n')
    env = _env(neo4j_settings) | {"KGAGENTS_EMBED_PROVIDER": "local"}
    def run(a: str, b: str, *more: str) -> tuple[str, str]:
        done = runner.invoke(app, ["match", str(tmp_path / a), str(tmp_path / b), "--no-llm", "--json", *more],
                             env=env)
        assert done.exit_code == 0, done.output
        model = graph.run_text("MATCH (r:Run {id: $id}) RETURN r.embedding_model AS m",
                               id=json.loads(done.stdout)["run_id"])[0]["m"]
        return model, done.stderr
    model, said = run("de.ttl", "en.ttl")
    assert model.startswith("multilingual-e5") and "multilingual embedding model" in " ".join(said.split())
    model, said = run("en.ttl", "en2.ttl")
    assert not model.startswith("multilingual-e5") and "multilingual" not in said
    model, said = run("de.ttl", "en.ttl", "--set", "multilingual=off")
    assert not model.startswith("multilingual-e5") and "multilingual=auto" in " ".join(said.split())


def test_a_stored_run_is_exported_without_rerunning_it(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path,
                                                       tmp_path: Path) -> None:
    from kgagents.graph.runs import RunStore
    from kgagents.loaders.alignment import read_alignment
    from kgagents.loaders.sssom import read_sssom

    d, env = fixtures / "matching", _env(neo4j_settings)
    done = runner.invoke(app, ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm", "--json",
                               "--out", str(tmp_path / "at-match.tsv")], env=env)
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    pairs = {(m["source"], m["target"]): m["confidence"] for m in document["matches"]}
    assert {(m.subject_id, m.object_id) for m in read_sssom(tmp_path / "at-match.tsv").mappings} == set(pairs)

    sssom = runner.invoke(app, ["export", document["run_id"], "--out", str(tmp_path / "later.sssom.tsv")], env=env)
    assert sssom.exit_code == 0, sssom.output
    assert f"({len(pairs)} pairs, SSSOM TSV)" in " ".join(sssom.stdout.split())  # .tsv: SSSOM without --format
    assert {(m.subject_id, m.object_id): m.confidence
            for m in read_sssom(tmp_path / "later.sssom.tsv").mappings} == pairs
    rdf = runner.invoke(app, ["export", document["run_id"][:-2], "--out", str(tmp_path / "later.rdf")], env=env)
    assert rdf.exit_code == 0, rdf.output  # the start of an id is enough
    assert {(c.entity1, c.entity2): c.measure for c in read_alignment(tmp_path / "later.rdf").cells} == pairs

    other = RunStore(graph).start("kgqa")
    refused = runner.invoke(app, ["export", other, "--out", str(tmp_path / "kgqa.rdf")], env=env)
    assert refused.exit_code != 0 and "is a kgqa run, not a matching run" in " ".join(refused.output.split())
    assert "Traceback" not in refused.output and not (tmp_path / "kgqa.rdf").exists()


def test_an_sssom_file_we_wrote_names_entities_with_a_colon_again(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                  tmp_path: Path) -> None:
    """A local name with ':' is written as ``%3A`` in its CURIE; read back as the reference, as a loaded alignment
    and in the report, it names the loaded entity (it scored 0 and was 'in neither ontology' before)."""
    from kgagents.loaders.alignment import load_alignment

    head = "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    (tmp_path / "colon_a.ttl").write_text(head + '<http://example.org/ca#Thing:Car> a owl:Class ; rdfs:label "Car" .\n'
                                          '<http://example.org/ca#Wheel> a owl:Class ; rdfs:label "Wheel" .\n')
    (tmp_path / "colon_b.ttl").write_text(head + '<http://example.org/cb#Auto:Car> a owl:Class ; rdfs:label "car" .\n'
                                          '<http://example.org/cb#Part:Wheel> a owl:Class ; rdfs:label "wheel" .\n')
    env, out = _env(neo4j_settings), tmp_path / "colon.sssom.tsv"
    done = runner.invoke(app, ["match", str(tmp_path / "colon_a.ttl"), str(tmp_path / "colon_b.ttl"), "--no-llm",
                               "--out", str(out)], env=env)
    assert done.exit_code == 0, done.output
    written = out.read_text(encoding="utf-8")
    assert "colon_a:Thing%3ACar" in written  # as a CURIE has to write it: the prefix names the IRI-less ontology
    assert "#  colon_b: http://example.org/cb#" in written and "subject_source" not in written
    scored = runner.invoke(app, ["match", "colon_a", "colon_b", "--no-llm", "--json", "--reference", str(out)],
                           env=env)
    assert scored.exit_code == 0, scored.output
    document = json.loads(scored.stdout)
    assert (document["scores"]["tp"], document["scores"]["f1"]) == (2, 1.0)
    assert "neither ontology" not in scored.output
    loaded = load_alignment(graph, out, name="colon-ref")
    assert (loaded.linked, loaded.missing) == (2, [])
    report = runner.invoke(app, ["report", document["run_id"], "--reference", str(out),
                                 "--out", str(tmp_path / "r.png")], env=env)
    assert report.exit_code == 0, report.output
    assert "neither ontology" not in report.stdout and "1.0000 │ 1.0000" in report.stdout
