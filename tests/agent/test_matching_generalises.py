"""The matcher on held-out ontologies from other domains (../shared/data/extraction): camelCase, a context taken
from the ontologies themselves, and what a reference holds. Expectations are recomputed from the files."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from kgagents.agent.matching.context import derive_context, describe_ontology, main_concepts
from kgagents.agent.matching.entities import Entity
from kgagents.agent.matching.lexical import key_of, words
from kgagents.agent.matching.settings import MatchSettings
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology import load_ontology
from kgagents.loaders.ontology_model import EdgeType, ParsedOntology, parse_ontology
from kgagents.loaders.reference import check_reference, check_reference_in_graph
from tests.agent.test_matching_lexical import matched
from tests.scripted_chat import ScriptedChatModel


@pytest.fixture(scope="module")
def twa(shared_data: Path) -> Path:
    return shared_data / "extraction" / "twa_mops" / "ontologies"


def _spaced(name: str) -> str:
    """'ChemicalSynthesis' → 'Chemical synthesis', written independently of the code under test."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    return " ".join([parts[0], *(p.lower() for p in parts[1:])])


def test_camel_case_words_split_before_lowercasing() -> None:
    assert words("AmountOfSubstance") == words("Amount of substance") == ["amount", "of", "substance"]
    assert key_of("HeatChillDevice", "exact") == key_of("heat_chill device", "exact") == "heat chill device"
    assert words("PCMember") == ["pc", "member"] and words("Café_Einstein") == ["café", "einstein"]


@pytest.mark.integration
def test_held_out_camel_case_labels_match_spaced_labels(twa: Path, graph: Graph, fixtures: Path) -> None:
    """Every class of the real OntoSyn T-Box, once with its camelCase name as label and once with a spaced label
    (both behind code-like ids, as in OBO-style ontologies): the lexical pre-match pairs each class with itself."""
    parsed = parse_ontology(twa / "ontosyn-ogm.ttl")
    classes = [r for r in parsed.classes if len(re.findall(r"[A-Z][a-z]", r.name)) >= 2]  # camelCase names
    assert len(classes) >= 10
    camel = [Entity(f"a:{i}", f"ONTOSYN_{i:05d}", "Class", r.name, (r.name,)).lexical() for i, r in enumerate(classes)]
    spaced = [Entity(f"b:{i}", f"SYN_{i:05d}", "Class", _spaced(r.name), (_spaced(r.name),)).lexical()
              for i, r in enumerate(classes)]
    found = {(m.source, m.target) for m in matched(graph, fixtures, camel, spaced)}
    assert found == {(f"a:{i}", f"b:{i}") for i in range(len(classes))}


def _main_concepts(parsed: ParsedOntology, limit: int = 5) -> list[str]:
    """Top classes by number of classes below them, recomputed from the parsed file."""
    names = {c.uri: c.label or c.name for c in parsed.classes
             if not c.deprecated and c.uri != "http://www.w3.org/2002/07/owl#Thing"}
    children: dict[str, set[str]] = defaultdict(set)
    has_parent = set()
    for e in parsed.edges:
        if e.type is EdgeType.SCO and e.source in names and e.target in names:
            children[e.target].add(e.source)
            has_parent.add(e.source)

    def below(uri: str) -> set[str]:
        seen: set[str] = set()
        todo = list(children[uri])
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(children[x])
        return seen

    tops = sorted(((len(below(u)), names[u]) for u in names if u not in has_parent and u != "" and below(u)),
                  key=lambda t: (-t[0], t[1]))
    return [" ".join(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", n)) for _, n in tops[:limit]]


def test_context_comes_from_each_ontologys_own_metadata(graph: Graph, shared_data: Path, twa: Path) -> None:
    university = shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies" / "owl" / \
        "ont_1_university.ttl"
    cmt = shared_data / "om" / "conference" / "ontologies" / "cmt.owl"
    for path in (twa / "ontosyn-ogm.ttl", university, cmt):
        load_ontology(graph, path, name=path.stem)
    syn = describe_ontology(graph, "ontosyn-ogm")
    assert syn.startswith("OntoSyn (An ontology developed for representing chemical synthesis procedures")
    assert describe_ontology(graph, "ont_1_university").startswith(
        "University Ontology (An ontology used in the Text2KGBench)")
    concepts = _main_concepts(parse_ontology(cmt))
    assert len(concepts) >= 3
    assert describe_ontology(graph, "cmt") == "cmt with main concepts " + ", ".join(concepts)
    assert derive_context(graph, "ontosyn-ogm", "cmt") == f"matching ontology {syn} with ontology " + \
        describe_ontology(graph, "cmt")


def test_owl_thing_is_no_main_concept() -> None:
    thing = "http://www.w3.org/2002/07/owl#Thing"
    classes = [{"uri": thing, "name": "Thing", "parents": []},
               {"uri": "a", "name": "Organ", "parents": [thing]}, {"uri": "b", "name": "Heart", "parents": ["a"]},
               {"uri": "c", "name": "Bone", "parents": [thing]}, {"uri": "d", "name": "Femur", "parents": ["c"]},
               {"uri": "e", "name": "Tibia", "parents": ["c"]}, {"uri": "f", "name": "Alone", "parents": []}]
    assert main_concepts(classes) == ["Bone", "Organ"]


def test_scripted_llm_prompts_carry_the_derived_context_not_a_fixed_domain(graph: Graph, twa: Path) -> None:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    for path in (twa / "ontosyn-ogm.ttl", twa / "ontomops-ogm.ttl"):
        load_ontology(graph, path, name=path.stem)
    prompts: list[str] = []

    def reply(messages: list[dict]) -> str:
        prompts.append(messages[-1]["content"])
        return "no, different" if "Do A and B" in messages[-1]["content"] else "A chemistry term."

    settings = MatchSettings(channels=("syntactic", "lexical"), structural=False)
    run = match_pair(graph, "ontosyn-ogm", "ontomops-ogm", settings, chat=ScriptedChatModel([reply] * 2000))
    expected = derive_context(graph, "ontosyn-ogm", "ontomops-ogm")
    assert "Metal-Organic Polyhedra" in expected
    assert prompts and all(f"Domain: {expected}." in p for p in prompts)
    stored = graph.run_text("MATCH (r:Run {id: $id}) RETURN r.context AS c", id=run.run_id)[0]["c"]
    assert stored == expected


def test_reference_check_counts_cells_and_names_entities_absent_from_both(graph: Graph, shared_data: Path) -> None:
    conference = shared_data / "om" / "conference"
    for name in ("cmt", "confof"):
        load_ontology(graph, conference / "ontologies" / f"{name}.owl", name=name)
    reference = read_alignment(conference / "reference" / "cmt-confof.rdf")
    check = check_reference_in_graph(graph, reference, ["cmt", "confof"])
    pairs = [(c.entity1, c.entity2) for c in reference.cells if c.relation == "="]
    assert check.cells == len(reference.cells) and check.equivalence_cells == len(set(pairs))
    assert check.not_equivalence == sum(c.relation != "=" for c in reference.cells)
    left, right = Counter(a for a, _ in set(pairs)), Counter(b for _, b in set(pairs))
    assert check.one_to_many == sum(1 for a, b in set(pairs) if left[a] > 1 or right[b] > 1)
    assert check.unknown_entities == []
    # the same reference checked against the wrong ontology pair: every confOf entity is unknown
    wrong = check_reference_in_graph(graph, reference, ["cmt"])
    assert set(wrong.unknown_entities) == {c.entity2 for c in reference.cells}
    assert "in neither ontology" in wrong.warnings()[0]


def test_reference_check_counts_one_to_many_and_non_equivalence() -> None:
    from kgagents.loaders.alignment import Alignment, Cell

    cells = [Cell(entity1="a:1", entity2="b:1"), Cell(entity1="a:1", entity2="b:2"), Cell(entity1="a:2", entity2="b:3"),
             Cell(entity1="a:3", entity2="b:3", relation="<")]
    check = check_reference(Alignment(onto1="a", onto2="b", cells=cells), ["a:1", "a:2", "a:3", "b:1", "b:2", "b:3"])
    assert (check.cells, check.equivalence_cells, check.not_equivalence, check.one_to_many) == (4, 3, 1, 2)
    assert check.unknown_entities == []


@pytest.mark.integration
def test_a_skos_thesaurus_pair_is_matched_like_an_ontology_pair(graph: Graph, fixtures: Path) -> None:
    """Two SKOS thesauri (concepts, broader links, alternative and hidden labels; no OWL) load and match; the
    reference is an SSSOM file, and the broader links are the hierarchy in the graph."""
    d = fixtures / "matching" / "thesauri"
    a, b = (load_ontology(graph, d / f).name for f in ("colours_a.ttl", "colours_b.ttl"))
    sco = graph.run_text("MATCH (x:Class)-[:SCO]->(y:Class) WHERE $o IN x.ontologies RETURN count(*) AS n", o=b)
    assert sco[0]["n"] == 6
    run = match_pair(graph, a, b, MatchSettings(mode="no_llm"), reference=d / "reference.sssom.tsv")
    assert run.scores is not None and (run.scores.precision, run.scores.recall) == (1.0, 1.0)
