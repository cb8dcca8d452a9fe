"""The prompts Agent-OM's LLM steps use: describe (lexical channel), verbalise (semantic channel), validate, and
other names (a synonym source for the entities nothing else matched). Kept short: small local models follow short
prompts better."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kgagents.agent.matching.entities import Entity

_KIND_WORD = {"Class": "concept", "Relationship": "relation", "Property": "attribute"}


def _facts(entity: Entity) -> str:
    lines = [f"name: {entity.name}"]
    if entity.label:
        lines.append(f"label: {entity.label}")
    if entity.synonyms:
        lines.append("synonyms: " + ", ".join(list(entity.synonyms)[:5]))
    if entity.comment:
        lines.append(f"comment: {entity.comment[:400]}")
    if entity.definitions:
        lines.append(f"definition: {entity.definitions[0][:400]}")
    return "\n".join(lines)


def describe(entity: Entity, context: str) -> list[dict[str, str]]:
    """Lexical channel: a one-sentence description from the name, context and annotations."""
    return [
        {"role": "system", "content": "You write one-sentence definitions of ontology terms."},
        {"role": "user", "content": (
            f"Domain: {context}.\nDescribe the {_KIND_WORD[entity.kind]} below in one sentence.\n"
            f"{_facts(entity)}\nDescription:"
        )},
    ]


def verbalise(entity: Entity, neighbourhood: Mapping[str, Sequence[object]]) -> list[dict[str, str]]:
    """Semantic channel: the entity's simple triples, rewritten as one sentence."""
    triples = []
    for relation, values in neighbourhood.items():
        for value in values:
            triples.append(f"({entity.display}, {relation}, {value})")
    return [
        {"role": "system", "content": "You turn knowledge-graph triples into one plain English sentence."},
        {"role": "user", "content": "Triples:\n" + "\n".join(triples[:20]) + "\nSentence:"},
    ]


def validate(source: Entity, candidate: Entity, context: str) -> str:
    """Validator question: is the candidate the same thing as the source?"""
    kind = _KIND_WORD[source.kind]
    return (
        f"Domain: {context}.\n"
        f"{kind.capitalize()} A:\n{_facts(source)}\n\n"
        f"{kind.capitalize()} B:\n{_facts(candidate)}\n\n"
        f"Do A and B denote the same {kind}? Answer yes or no, then give a short reason."
    )


def other_names(entity: Entity, context: str) -> list[dict[str, str]]:
    """Synonym source: other names people use for the entity, one per line."""
    return [
        {"role": "system", "content": "You list the other names people use for ontology terms."},
        {"role": "user", "content": (
            f"Domain: {context}.\nList up to 5 other names for the {_KIND_WORD[entity.kind]} below (synonyms, "
            "British or American words, common alternatives), one per line, nothing else.\n"
            f"{_facts(entity)}\nOther names:"
        )},
    ]
