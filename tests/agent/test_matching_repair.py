"""The alignment repair: pairs that make a class unsatisfiable or collapse a hierarchy are dropped, trusted pairs and
the earlier of two conflicting pairs are kept, and nothing is dropped without a conflict."""

from __future__ import annotations

from kgagents.agent.matching.repair import Hierarchy, repair, unrelated_ends

# source: Animal > Dog > Puppy, Plant; target: Beast > Hound > Pup, Herb, with Beast disjoint from Herb
SOURCE = Hierarchy({"s:Dog": ["s:Animal"], "s:Puppy": ["s:Dog"], "s:Plant": []})
TARGET = Hierarchy({"t:Hound": ["t:Beast"], "t:Pup": ["t:Hound"], "t:Herb": []}, {"t:Beast": ["t:Herb"]})


def test_inherited_disjointness_is_seen_from_both_ends() -> None:
    assert TARGET.are_disjoint("t:Pup", "t:Herb") and TARGET.are_disjoint("t:Herb", "t:Hound")
    assert not TARGET.are_disjoint("t:Pup", "t:Beast") and not SOURCE.are_disjoint("s:Dog", "s:Plant")


def test_comparable_classes_mapped_to_disjoint_ones_are_dropped() -> None:
    kept, dropped = repair([("s:Animal", "t:Beast")], [("s:Puppy", "t:Herb"), ("s:Plant", "t:Herb")], SOURCE, TARGET)
    # Puppy ⊑ Animal ≡ Beast, and Puppy ≡ Herb, disjoint with Beast: Puppy would be unsatisfiable
    assert dropped == [("s:Puppy", "t:Herb")] and kept == [("s:Plant", "t:Herb")]


def test_a_pair_crossing_a_kept_one_is_dropped_and_the_first_of_two_wins() -> None:
    # Dog is above Puppy but Pup is below Hound: (Dog, Pup) crosses (Puppy, Hound), whichever comes first stays
    kept, dropped = repair([], [("s:Puppy", "t:Hound"), ("s:Dog", "t:Pup"), ("s:Animal", "t:Beast")], SOURCE, TARGET)
    assert kept == [("s:Puppy", "t:Hound"), ("s:Animal", "t:Beast")] and dropped == [("s:Dog", "t:Pup")]
    kept, dropped = repair([], [("s:Dog", "t:Pup"), ("s:Puppy", "t:Hound")], SOURCE, TARGET)
    assert kept == [("s:Dog", "t:Pup")] and dropped == [("s:Puppy", "t:Hound")]


def test_consistent_pairs_are_all_kept() -> None:
    pairs = [("s:Animal", "t:Beast"), ("s:Dog", "t:Hound"), ("s:Puppy", "t:Pup"), ("s:Plant", "t:Herb")]
    assert repair([], pairs, SOURCE, TARGET) == (pairs, [])


def test_properties_whose_sole_domains_map_to_disjoint_classes_are_dropped() -> None:
    source = Hierarchy({}, domains={"s:barks": ["s:Dog"], "s:grows": ["s:Plant"]})
    target = Hierarchy({}, {"t:Beast": ["t:Herb"]}, domains={"t:howls": ["t:Beast"], "t:sprouts": ["t:Herb"]})
    kept, dropped = repair([("s:Dog", "t:Beast"), ("s:Plant", "t:Herb")],
                           [("s:barks", "t:sprouts"), ("s:barks", "t:howls"), ("s:grows", "t:sprouts")], source, target)
    assert dropped == [("s:barks", "t:sprouts")] and kept == [("s:barks", "t:howls"), ("s:grows", "t:sprouts")]
    # a union domain (several classes) says nothing definite: no conflict
    union = Hierarchy({}, domains={"s:barks": ["s:Dog", "s:Plant"]})
    assert repair([("s:Dog", "t:Beast")], [("s:barks", "t:sprouts")], union, target)[1] == []


def test_children_are_known_from_the_parents() -> None:
    assert SOURCE.has_children("s:Dog") and not SOURCE.has_children("s:Puppy") and not SOURCE.has_children("s:x")


def test_property_pairs_whose_ends_the_class_pairs_map_apart_are_dropped_however_trusted() -> None:
    source = Hierarchy({"s:Dog": ["s:Animal"], "s:Contact": []},
                       domains={"s:phone": ["s:Dog"], "s:name": ["s:Animal"], "s:mail": ["s:Contact"]})
    target = Hierarchy({"t:Hound": ["t:Beast"], "t:Address": []},
                       domains={"t:phone": ["t:Address"], "t:name": ["t:Hound"], "t:mail": ["t:Beast"],
                                "t:tag": ["t:Address"]})
    classes = [("s:Dog", "t:Hound"), ("s:Animal", "t:Beast")]
    pairs = [*classes, ("s:phone", "t:phone"), ("s:name", "t:name"), ("s:mail", "t:mail"), ("s:tag", "t:tag")]
    # phone: Dog ≡ Hound, unrelated to Address; name: Animal ≡ Beast, above Hound (comparable: kept);
    # mail: Beast's counterpart Animal is unrelated to Contact (the other direction); tag: no source domain, kept
    assert unrelated_ends(pairs, source, target) == [("s:phone", "t:phone"), ("s:mail", "t:mail")]
    # ends the alignment does not map say nothing
    assert unrelated_ends([("s:phone", "t:phone")], source, target) == []
