"""What the benchmark reports beside the scores: how comparable two KGs' attribute names are, and the English
names the name-bias subset compares."""

from __future__ import annotations

from kgagents.graph.connection import Graph


def attribute_overlap(graph: Graph, kg1: str, kg2: str) -> dict[str, float]:
    """How comparable the two KGs' attribute names are: vocabulary sizes, shared names, and the share of
    entities of ``kg1`` with attributes that have at least one name used anywhere in ``kg2``."""
    a = {row["id"]: set(row["attributes"]) for row in graph.run("alignment_ea/entity_attributes", kg=kg1)}
    b = {row["id"]: set(row["attributes"]) for row in graph.run("alignment_ea/entity_attributes", kg=kg2)}
    vocab_a = set().union(*a.values()) if a else set()
    vocab_b = set().union(*b.values()) if b else set()
    shared = vocab_a & vocab_b
    return {"vocabulary_1": len(vocab_a), "vocabulary_2": len(vocab_b), "shared": len(shared),
            "entities_1_with_shared": (sum(1 for v in a.values() if v & shared) / len(a)) if a else 0.0}


def entity_names(graph: Graph, kg: str) -> dict[str, str | None]:
    """Id → English name (translated ``name_en``, else ``name``) of every entity of ``kg``: what the name-bias
    subset (:func:`kgagents.metrics.ea.non_trivial_links`) compares."""
    return {row["id"]: row["name"] for row in graph.run("alignment_ea/entity_names", kg=kg)}
