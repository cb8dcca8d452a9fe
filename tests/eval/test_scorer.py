"""The scorer reproduces the published OAEI 2022 anatomy F1, scores hand-made cases as computed by hand,
and handles the conference references."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.loaders.alignment import Alignment, Cell, read_alignment
from kgagents.metrics.oaei import (
    Scores,
    is_trivial,
    macro_average,
    micro_average,
    normalise_label,
    score,
    score_non_trivial,
    score_pairs,
)
from tests.eval import ontology_terms

A, B = "http://a.example.org/o#", "http://b.example.org/o#"
OBO = "http://www.geneontology.org/formats/oboInOwl#"


def alignment(*cells: tuple[str, str, str, float]) -> Alignment:
    return Alignment(onto1="http://a.example.org/o", onto2="http://b.example.org/o",
                     cells=[Cell(entity1=A + a, entity2=B + b, relation=r, measure=m) for a, b, r, m in cells])


@pytest.fixture(scope="module")
def anatomy(shared_data: Path) -> Path:
    return shared_data / "om" / "anatomy"


@pytest.fixture(scope="module")
def anatomy_labels(anatomy: Path) -> dict[str, list[str]]:
    return ontology_terms.rdfs_labels(ontology_terms.parse([anatomy / "mouse.owl", anatomy / "human.owl"]))


# Published OAEI 2022 anatomy F1 (data README; OAEI 2022 anatomy results page).
@pytest.mark.parametrize(("system", "published_f1"), [("LogMap", 0.8807), ("Matcha", 0.9406), ("ALIN", 0.8523)])
def test_reproduces_published_anatomy_f1(anatomy: Path, system: str, published_f1: float) -> None:
    path = anatomy / "baseline_system_alignments_2022" / f"{system}.rdf"
    scores = score(read_alignment(path), read_alignment(anatomy / "reference.rdf"))
    assert round(scores.f1, 4) == published_f1
    assert scores.reference_size == 1516
    # Only '=' cells count: LogMap's file has 1404 cells of which 2 are '>' (grep '&gt;').
    text = path.read_text()
    assert scores.system_size == text.count("<Cell") - text.count("<relation>&gt;</relation>")


def test_hand_made_scores() -> None:
    reference = alignment(("1", "1", "=", 1.0), ("2", "2", "=", 1.0), ("3", "3", "=", 1.0), ("4", "4", "<", 1.0))
    system = alignment(("1", "1", "=", 0.9), ("1", "1", "=", 0.2), ("2", "9", "=", 0.3), ("3", "3", "=", 0.4),
                       ("4", "4", "=", 0.8), ("5", "5", ">", 1.0))
    # '=' pairs: system {11, 29, 33, 44}, reference {11, 22, 33}; tp {11, 33}.
    full = score(system, reference)
    assert full == Scores(precision=0.5, recall=2 / 3, f1=full.f1, tp=2, fp=2, fn=1, system_size=4, reference_size=3)
    assert full.f1 == pytest.approx(4 / 7)
    # Threshold 0.35 keeps system pairs 11 (0.9), 33 (0.4), 44 (0.8).
    cut = score(system, reference, threshold=0.35)
    assert (cut.tp, cut.fp, cut.fn, cut.precision, cut.recall) == (2, 1, 1, 2 / 3, 2 / 3)
    assert cut.f1 == pytest.approx(2 / 3)
    # Nothing found → precision 1, recall 0 (Alignment API convention); nothing expected → recall 1.
    none = score(system, reference, threshold=0.95)
    assert (none.precision, none.recall, none.f1, none.system_size) == (1.0, 0.0, 0.0, 0)
    assert score(system, alignment()).recall == 1.0


def test_obo_in_owl_cells_are_ignored() -> None:
    obo = Alignment(onto1="x", onto2="y", cells=[Cell(entity1=OBO + "Synonym", entity2=OBO + "Synonym"),
                                                   Cell(entity1=A + "1", entity2=B + "1")])
    reference = alignment(("1", "1", "=", 1.0))
    assert score(obo, reference).system_size == 1
    assert score(obo, reference).precision == 1.0


def test_micro_and_macro_averages() -> None:
    first = score_pairs({("a", "1"), ("b", "2")}, {("a", "1"), ("c", "3"), ("d", "4"), ("e", "5")})
    second = score_pairs({("x", "1"), ("y", "2"), ("z", "3")}, {("x", "1"), ("y", "2"), ("z", "3")})
    assert (first.precision, first.recall, first.f1) == (0.5, 0.25, pytest.approx(1 / 3))
    micro = micro_average([first, second])  # tp 4, found 5, expected 7
    assert (micro.tp, micro.system_size, micro.reference_size, micro.fp, micro.fn) == (4, 5, 7, 1, 3)
    assert (micro.precision, micro.recall, micro.f1) == (0.8, 4 / 7, pytest.approx(2 / 3))
    macro = macro_average([first, second])
    assert (macro.precision, macro.recall, macro.f1) == (0.75, 0.625, pytest.approx(2 / 3))
    assert macro.tp == 4
    with pytest.raises(ValueError):
        macro_average([])


def test_label_normalisation() -> None:
    assert normalise_label("External_Upper_Lip") == normalise_label("external upper lip")
    assert normalise_label("ConferenceMember") == normalise_label("Conference_member")
    assert normalise_label("Peyer_s_Patch") == normalise_label("peyer's patch")
    assert normalise_label("Hind-Brain") == normalise_label("hindbrain")
    assert normalise_label("ﬁbula") == normalise_label("FIBULA")  # NFKC ligature
    assert normalise_label("lip") != normalise_label("lips")


def test_non_trivial_hand_made() -> None:
    labels = {A + "x": ["Upper lip"], B + "y": ["Upper_Lip"], A + "p": ["brain"], B + "q": ["encephalon"],
              B + "z": ["skull"]}
    # A#ConferenceMember / B#Conference_member have no labels: their local names make them trivial.
    assert is_trivial((A + "ConferenceMember", B + "Conference_member"), labels)
    assert not is_trivial((A + "p", B + "q"), labels)
    reference = alignment(("x", "y", "=", 1.0), ("p", "q", "=", 1.0), ("ConferenceMember", "Conference_member", "=", 1.0))
    system = alignment(("x", "y", "=", 1.0), ("p", "q", "=", 1.0), ("p", "z", "=", 1.0))
    scores = score_non_trivial(system, reference, labels)
    assert (scores.tp, scores.fp, scores.fn, scores.system_size, scores.reference_size) == (1, 1, 0, 2, 1)
    assert (scores.precision, scores.recall) == (0.5, 1.0)


def test_non_trivial_anatomy(anatomy: Path, anatomy_labels: dict[str, list[str]]) -> None:
    reference = read_alignment(anatomy / "reference.rdf")
    ref_pairs = {(c.entity1, c.entity2) for c in reference.cells}
    assert all(c.entity1 in anatomy_labels and c.entity2 in anatomy_labels for c in reference.cells)

    def simple(label: str) -> str:  # Agent-OM's normal_string; ours must treat at least these as trivial
        return label.lower().replace("_", " ")

    simple_trivial = {p for p in ref_pairs
                      if {simple(x) for x in anatomy_labels[p[0]]} & {simple(x) for x in anatomy_labels[p[1]]}}
    self_score = score_non_trivial(reference, reference, anatomy_labels)
    assert (self_score.precision, self_score.recall, self_score.f1) == (1.0, 1.0, 1.0)
    assert 0 < self_score.reference_size <= len(ref_pairs) - len(simple_trivial)
    for system in ("LogMap", "Matcha", "ALIN"):
        sys_alignment = read_alignment(anatomy / "baseline_system_alignments_2022" / f"{system}.rdf")
        full = score(sys_alignment, reference)
        hard = score_non_trivial(sys_alignment, reference, anatomy_labels)
        assert hard.reference_size == self_score.reference_size
        assert hard.tp < full.tp and hard.system_size < full.system_size and hard.recall < full.recall
        # Its recall is OAEI's recall+: the unfiltered system's share of the non-trivial reference.
        non_trivial = {p for p in ref_pairs if not is_trivial(p, anatomy_labels)}
        found = {(c.entity1, c.entity2) for c in sys_alignment.cells if c.relation == "="}
        assert hard.recall == len(found & non_trivial) / len(non_trivial)


def test_conference_references(shared_data: Path) -> None:
    conf = shared_data / "om" / "conference"
    paths = sorted((conf / "reference").glob("*.rdf"))
    assert len(paths) == 21
    references = [read_alignment(p) for p in paths]
    self_scores = [score(r, r) for r in references]
    assert all((s.precision, s.recall, s.f1, s.fp, s.fn) == (1.0, 1.0, 1.0, 0, 0) for s in self_scores)
    assert micro_average(self_scores).f1 == macro_average(self_scores).f1 == 1.0

    cells = [c for r in references for c in r.cells if c.relation == "="]
    assert len(cells) == micro_average(self_scores).tp == 305
    onto = ontology_terms.parse(sorted((conf / "ontologies").glob("*.owl")))
    classes, properties = ontology_terms.classes(onto), ontology_terms.properties(onto)
    n_class = sum(c.entity1 in classes and c.entity2 in classes for c in cells)
    n_property = sum(c.entity1 in properties and c.entity2 in properties for c in cells)
    assert (n_class, n_property) == (259, 46)
