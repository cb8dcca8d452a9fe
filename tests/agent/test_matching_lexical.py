"""The offline lexical pre-match: strict keys first, 1:1 only, ambiguous synonyms never match (keys joined in Neo4j)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kgagents.agent.matching.lexical import (
    Contrasts,
    LexicalEntity,
    LexicalMatch,
    acronym_matches,
    containment_matches,
    contrast_conflict,
    every_best,
    key_of,
    learn_phrases,
    learn_substitutions,
    lexical_keys,
    lexical_matches,
    narrowed,
    one_to_one,
    one_typo,
    phrase_matches,
    shorter_name,
    substitution_matches,
    typo_matches,
    variant_matches,
)
from kgagents.embeddings.index import Scope
from kgagents.graph.connection import Graph


def matched(graph: Graph, fixtures: Path, sources: Sequence[LexicalEntity],
            targets: Sequence[LexicalEntity]) -> list[LexicalMatch]:
    """The entities as resources of ontologies 'm' (sources) and 'h' (targets), then the pre-match between them."""
    rows = [{"uri": e.uri, "ontology": o} for o, side in (("m", sources), ("h", targets)) for e in side]
    graph.run_text((fixtures / "matching" / "resources.cypher").read_text(), rows=rows)
    return lexical_matches(graph, Scope.ontology("m"), Scope.ontology("h"), sources, targets)


def test_keys_normalise_as_documented() -> None:
    assert key_of("Apex_of_the_Heart", "exact") == "apex of the heart"
    assert key_of("Apex of the Heart", "bag") == key_of("heart apex", "bag")
    assert key_of("Intestinal Mucosa", "stem") == key_of("intestine mucosa", "stem")
    assert key_of("Intestinal Mucosa", "bag") != key_of("intestine mucosa", "bag")
    # no domain word list: a qualifying head word is a word like any other
    assert key_of("Smooth Muscle Tissue", "stem") != key_of("smooth muscle", "stem")
    # one root's derivations name different things: by default no stem key of one stem (the bag key stays)
    presentation, presenter = (LexicalEntity(f"x:{n}", "Class", [n]) for n in ("Presentation", "Presenter"))
    assert key_of("Presentation", "stem") == key_of("Presenter", "stem")
    assert [k for k in lexical_keys(presentation) if k[0].startswith("lex_stem")] == []
    assert {k[1] for k in lexical_keys(presentation, one_word_stems=True) if k[0].startswith("lex_stem")} \
        == {k[1] for k in lexical_keys(presenter, one_word_stems=True) if k[0].startswith("lex_stem")}
    assert [k[1] for k in lexical_keys(LexicalEntity("x:m", "Class", ["Intestinal Mucosa"]))
            if k[0].startswith("lex_stem")] == [key_of("intestine mucosa", "stem")]


@pytest.mark.integration
def test_label_match_beats_synonym_match_and_is_one_to_one(graph: Graph, fixtures: Path) -> None:
    sources = [LexicalEntity("m:heart", "Class", ["heart"]), LexicalEntity("m:apex", "Class", ["heart apex"])]
    targets = [
        LexicalEntity("h:Heart", "Class", ["Heart"], ["Cardiac organ"]),
        LexicalEntity("h:Apex", "Class", ["Apex_of_the_Heart"]),
        LexicalEntity("h:Other", "Class", ["Organ"], ["heart"]),
    ]
    found = {(m.source, m.target, m.key) for m in matched(graph, fixtures, sources, targets)}
    assert found == {("m:heart", "h:Heart", "exact"), ("m:apex", "h:Apex", "bag")}


@pytest.mark.integration
def test_synonym_shared_by_two_targets_is_not_matched(graph: Graph, fixtures: Path) -> None:
    sources = [LexicalEntity("m:a", "Class", ["mouth"])]
    targets = [
        LexicalEntity("h:1", "Class", ["Oral Cavity"], ["Mouth"]),
        LexicalEntity("h:2", "Class", ["Oral Region"], ["Mouth"]),
    ]
    assert matched(graph, fixtures, sources, targets) == []


@pytest.mark.integration
def test_kinds_must_agree(graph: Graph, fixtures: Path) -> None:
    sources = [LexicalEntity("a:p", "Relationship", ["author"])]
    targets = [LexicalEntity("b:c", "Class", ["Author"])]
    assert matched(graph, fixtures, sources, targets) == []


def test_one_to_many_keeps_every_strictest_pair_that_one_to_one_drops() -> None:
    # s1 shares its exact label with t1 and t2 (tier 0); s2 shares a synonym with t2 (tier 1), s3 a stem with t3
    best = {"s1": {"t1": 0, "t2": 0}, "s2": {"t2": 1}, "s3": {"t3": 6, "t4": 7}}
    assert {(m.source, m.target) for m in one_to_one(best)} == {("s3", "t3")}  # s1 is ambiguous, t2 claimed twice
    many = {(m.source, m.target, m.key) for m in every_best(best)}
    # every pair at its source's or its target's strictest tier: s2-t2 is s2's best, s3-t4 is t4's only pair
    assert many == {("s1", "t1", "exact"), ("s1", "t2", "exact"), ("s2", "t2", "exact"), ("s3", "t3", "stem"),
                    ("s3", "t4", "stem")}


def test_containment_pairs_differ_by_at_most_one_word_and_are_unique_on_both_sides() -> None:
    sources = [LexicalEntity("s:author", "Class", ["Regular_author"]),
               LexicalEntity("s:vomer", "Class", ["vomer"]),
               LexicalEntity("s:chair", "Class", ["Chair"]),
               LexicalEntity("s:email", "Property", ["email"]),
               LexicalEntity("s:far", "Class", ["Early paid applicant"])]
    targets = [LexicalEntity("t:author", "Class", ["Author"]),
               LexicalEntity("t:vomer", "Class", ["Vomer bone"]),
               LexicalEntity("t:pc", "Class", ["Chair PC"]), LexicalEntity("t:session", "Class", ["Session chair"]),
               LexicalEntity("t:email", "Class", ["has email"]),
               LexicalEntity("t:far", "Class", ["Applicant"])]
    found = {(m.source, m.target) for m in containment_matches(sources, targets)}
    # chair has two candidates (ambiguous), email's only candidate is another kind, "applicant" lacks two words
    assert found == {("s:author", "t:author"), ("s:vomer", "t:vomer")}


def test_the_structural_tie_break_keeps_the_supported_candidate_and_only_where_one_is() -> None:
    lip = [LexicalEntity("m:lip", "Class", ["upper lip"])]
    targets = [LexicalEntity("h:ext", "Class", ["External Upper Lip"]),
               LexicalEntity("h:muc", "Class", ["Mucosa of the Upper Lip"])]
    assert containment_matches(lip, targets) == []  # two candidates: refused
    one = containment_matches(lip, targets, lambda found: narrowed(found, lambda s, t: t == "h:ext"))
    assert [(m.source, m.target) for m in one] == [("m:lip", "h:ext")]
    # both supported, or neither: still refused
    assert containment_matches(lip, targets, lambda found: narrowed(found, lambda s, t: True)) == []
    assert containment_matches(lip, targets, lambda found: narrowed(found, lambda s, t: False)) == []
    # the target side: two sources claim one target, the supported one keeps it
    assert narrowed({"a": {"t"}, "b": {"t"}}, lambda s, t: s == "b") == {"a": set(), "b": {"t"}}


def test_substitutions_are_learned_from_matched_pairs_and_from_an_entitys_own_names() -> None:
    anchors = [(LexicalEntity("m:1", "Class", ["spleen capsule"]), LexicalEntity("h:1", "Class", ["Splenic Capsule"])),
               (LexicalEntity("m:2", "Class", ["spleen vein"]), LexicalEntity("h:2", "Class", ["Splenic Vein"])),
               (LexicalEntity("m:3", "Class", ["liver lobe"]), LexicalEntity("h:3", "Class", ["Hepatic Lobe"]))]
    names = [LexicalEntity("h:4", "Class", ["Renal Pelvis"], ["Kidney Pelvis"]),
             LexicalEntity("h:5", "Class", ["Renal Cortex"], ["Kidney Cortex"])]
    rules = learn_substitutions(anchors, names, min_support=2)
    # seen twice each: spleen → splenic from two matched pairs, kidney ↔ renal from two entities' own names
    assert rules == {"spleen": {"splenic"}, "kidney": {"renal"}, "renal": {"kidney"}}
    assert "liver" in learn_substitutions(anchors, names, min_support=1)


def test_a_parenthesised_qualifier_teaches_no_substitution() -> None:
    # "Cones (Eye)" beside "Cone Cell", twice: the qualifier "eye" is no word of the name, so no eye → cell
    names = [LexicalEntity("h:cone", "Class", ["Cone"], ["Cones (Eye)", "Cone Cell"]),
             LexicalEntity("h:rod", "Class", ["Rod"], ["Rods (Eye)", "Rod Cell"])]
    assert learn_substitutions([], names, min_support=2) == {}
    # the same words outside parentheses do teach it (the rule can fire)
    plain = [LexicalEntity("h:cone", "Class", ["Cone"], ["Cones Eye", "Cone Cell"]),
             LexicalEntity("h:rod", "Class", ["Rod"], ["Rods Eye", "Rod Cell"])]
    assert learn_substitutions([], plain, min_support=2) == {"eye": {"cell"}, "cell": {"eye"}}


def test_a_learned_substitution_matches_unmatched_entities_one_to_one() -> None:
    rules = {"spleen": {"splenic"}, "kidney": {"renal"}}
    sources = [LexicalEntity("m:hilum", "Class", ["spleen hilum"]), LexicalEntity("m:nerve", "Class", ["kidney nerve"]),
               LexicalEntity("m:duct", "Class", ["liver duct"])]
    targets = [LexicalEntity("h:hilum", "Class", ["Splenic_Hilum"]), LexicalEntity("h:n1", "Class", ["Renal Nerve"]),
               LexicalEntity("h:n2", "Class", ["Nerve"], ["Renal Nerve"]), LexicalEntity("h:duct", "Class", ["Duct"])]
    # the kidney nerve has two renal-nerve targets: ambiguous, so not matched
    assert [(m.source, m.target, m.key) for m in substitution_matches(sources, targets, rules)] == [
        ("m:hilum", "h:hilum", "substituted")]


def test_phrase_substitutions_are_what_matched_names_differ_by_once_the_word_swaps_are_taken_out() -> None:
    rules = {"intestine": {"intestinal"}, "stomach": {"gastric"}}
    anchors = [(LexicalEntity("m:1", "Class", ["large intestine serosa"]),
                LexicalEntity("h:1", "Class", ["Large_Intestinal_Serosal_Surface"])),
               (LexicalEntity("m:2", "Class", ["small intestine serosa"]),
                LexicalEntity("h:2", "Class", ["Small Intestinal Serosal Surface"])),
               (LexicalEntity("m:4", "Class", ["stomach serosa"]), LexicalEntity("h:4", "Class", ["Gastric Serosal Surface"])),
               (LexicalEntity("m:3", "Class", ["retina lamina"]), LexicalEntity("h:3", "Class", ["Membrane"]))]
    phrases = learn_phrases(anchors, rules, min_support=2)
    # seen twice (names that share no word teach nothing: the stomach pair); the lamina once
    assert phrases == {(frozenset({"serosa"}), frozenset({"serosal", "surface"}))}
    sources = [LexicalEntity("m:i", "Class", ["intestine serosa"]), LexicalEntity("m:s", "Class", ["serosa"]),
               LexicalEntity("m:u", "Class", ["uterus serosa"])]
    targets = [LexicalEntity("h:i", "Class", ["Intestinal_Serosal_Surface"]),
               LexicalEntity("h:s", "Class", ["Serosal Surface"]), LexicalEntity("h:x", "Class", ["Uterus Wall"])]
    # a phrase and a word swap after it; a name wholly replaced ("serosa" alone) is not matched, nor one that fits
    # no target
    assert [(m.source, m.target) for m in phrase_matches(sources, targets, phrases, rules)] == [("m:i", "h:i")]


def test_spelling_variants_match_compounds_and_initials_fused_with_numbers() -> None:
    sources = [LexicalEntity("m:t1", "Class", ["thoracic vertebra 1"]), LexicalEntity("m:fb", "Class", ["forebrain"]),
               LexicalEntity("m:s1", "Class", ["sacral vertebra 1"])]
    targets = [LexicalEntity("h:t1", "Class", ["T1_Vertebra"]), LexicalEntity("h:fb", "Class", ["Fore-Brain"]),
               LexicalEntity("h:t2", "Class", ["T2_Vertebra"])]
    assert {(m.source, m.target) for m in variant_matches(sources, targets)} == {("m:t1", "h:t1"), ("m:fb", "h:fb")}


def test_spaced_and_camel_case_compounds_match_the_compound_written_as_one_word() -> None:
    sources = [LexicalEntity("a:fl", "Class", ["forelimb"]), LexicalEntity("a:hw", "Class", ["HardWare store"]),
               LexicalEntity("a:ft", "Class", ["fore tooth"])]
    targets = [LexicalEntity("b:fl", "Class", ["Fore limb"]), LexicalEntity("b:hw", "Class", ["Hardware store"]),
               LexicalEntity("b:fo", "Class", ["Foretooth root"])]
    assert {(m.source, m.target) for m in variant_matches(sources, targets)} == {("a:fl", "b:fl"), ("a:hw", "b:hw")}


def test_the_shorter_name_is_the_one_the_other_extends_by_a_word() -> None:
    author, regular = LexicalEntity("a", "Class", ["Author"]), LexicalEntity("r", "Class", ["Regular_author"])
    assert shorter_name(author, regular) == "a" and shorter_name(regular, author) == "a"
    assert shorter_name(author, LexicalEntity("w", "Class", ["Writer"])) is None
    assert shorter_name(author, LexicalEntity("x", "Class", ["author"])) is None


@pytest.mark.parametrize(("a", "b", "one"), [
    ("mammillary", "mamillary", True),    # a letter dropped
    ("tibilais", "tibialis", True),       # two neighbours swapped
    ("calcaneus", "calcaneum", True),     # a letter changed
    ("integumental", "integumentary", False),  # two edits
    ("adrenal", "renal", False),
    ("artery", "artery", False),          # the same word is no typo
])
def test_one_typo_is_one_insertion_deletion_change_or_swap(a: str, b: str, one: bool) -> None:
    assert one_typo(a, b) is one and one_typo(b, a) is one


def test_typo_matches_pair_names_one_typo_apart_in_a_long_word_and_only_one_to_one() -> None:
    sources = [LexicalEntity("m:mb", "Class", ["mammillary body"]), LexicalEntity("m:lip", "Class", ["upper lip"]),
               LexicalEntity("m:oa", "Class", ["ophthalmic artery"]),
               LexicalEntity("m:x", "Class", ["maxillary vein"])]
    targets = [LexicalEntity("h:mb", "Class", ["Mamillary_Body"]), LexicalEntity("h:lid", "Class", ["Upper Lid"]),
               LexicalEntity("h:oa", "Class", ["Opthalmic Artery"]),
               LexicalEntity("h:a1", "Class", ["Axillary Vein"]), LexicalEntity("h:a2", "Class", ["Maxilary Vein"])]
    found = {(m.source, m.target) for m in typo_matches(sources, targets)}
    # "lip" / "lid" is too short to be a typo; "maxillary vein" has two candidates one typo apart: not 1:1
    assert found == {("m:mb", "h:mb"), ("m:oa", "h:oa")}


def _entities(*names: str) -> list[LexicalEntity]:
    return [LexicalEntity(f"x:{i}", "Class", [name]) for i, name in enumerate(names)]


def test_contrasting_words_are_learned_from_names_that_differ_only_by_them() -> None:
    mouse = Contrasts(_entities("left lung", "right lung", "left kidney", "right kidney", "dorsal root",
                                "ventral root", "kidney", "lung"), min_support=2)
    assert mouse.contrasting("Class", "left") and mouse.contrasting("Class", "ventral") is False
    human = Contrasts(_entities("Anterior Vein", "Posterior Vein", "Anterior Lobe", "Posterior Lobe"), 2)
    assert human.contrasting("Class", "posterior")
    contrasts = (mouse, human)
    ventral, posterior = LexicalEntity("m:1", "Class", ["left auricular vein"]), \
        LexicalEntity("h:1", "Class", ["Posterior Auricular Vein"])
    assert contrast_conflict(ventral, posterior, contrasts)  # both sides vary by a contrasting word
    plain = LexicalEntity("m:2", "Class", ["auricular vein"])
    assert not contrast_conflict(plain, posterior, contrasts)  # a word on one side only: containment's business
    stomach = LexicalEntity("m:3", "Class", ["stomach mucosa"])
    assert not contrast_conflict(stomach, LexicalEntity("h:3", "Class", ["Gastric Mucosa"]), contrasts)
    # one word seen with one shared bag is below the support
    assert not Contrasts(_entities("left lung", "right lung"), 2).contrasting("Class", "left")


def test_an_acronym_in_capitals_matches_the_words_it_abbreviates_one_to_one() -> None:
    sources = [LexicalEntity("c:chair", "Class", ["ProgramCommitteeChair"]),
               LexicalEntity("c:oc", "Class", ["Organizing_Committee_member"]),
               LexicalEntity("c:pm", "Class", ["Private Member"]),
               LexicalEntity("c:lc", "Class", ["Local Chair"])]
    targets = [LexicalEntity("o:chair", "Class", ["Chair_PC"]), LexicalEntity("o:oc", "Class", ["OC_Member"]),
               LexicalEntity("o:pm", "Class", ["pc member"]), LexicalEntity("o:lc", "Relationship", ["LC Chair"])]
    found = {(m.source, m.target) for m in acronym_matches(sources, targets)}
    # "pc member" is no acronym (not in capitals): two spelled-out names never match by their initials; kinds differ
    assert found == {("c:chair", "o:chair"), ("c:oc", "o:oc")}
    assert {(m.source, m.target) for m in acronym_matches(targets, sources)} == {("o:chair", "c:chair"),
                                                                                ("o:oc", "c:oc")}
    twice = targets + [LexicalEntity("o:pc", "Class", ["PC Chair"])]  # two candidates: not 1:1, no pair
    assert {(m.source, m.target) for m in acronym_matches(sources, twice)} == {("c:oc", "o:oc")}


def test_an_added_last_word_is_a_new_head_an_added_first_word_a_modifier() -> None:
    from kgagents.agent.matching.lexical import head_added

    def e(*names: str) -> LexicalEntity:
        return LexicalEntity("x:" + names[0], "Class", list(names))
    assert head_added(e("Computer"), e("Computer cart")) and head_added(e("Refrigerant valve"), e("Refrigerant"))
    assert not head_added(e("Author"), e("Regular author"))
    assert not head_added(e("Economizer role", "Role-Economizer"), e("Economizer"))  # one name keeps the head
    assert not head_added(e("Pump"), e("Valve"))  # no name extends the other
