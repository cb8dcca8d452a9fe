"""What the extraction agent asks the model, in three small structured steps, and how it reads the replies.

1. **type entities**: the entities the text names, each with a class of the ontology;
2. **state facts**: ``(subject, relation, object)`` facts with relations of the ontology, shown compactly as
   signatures (``city: University -> City``, ``established: University -> date YYYY-MM-DD``);
   Optionally (``check_min_log_odds`` / ``propose_min_log_odds``) each stated fact, and each fact whose
   signature fits two typed entities, is checked with one one-token call ("does the text state this fact?");
3. **repair**: one rejected fact at a time: with feedback on, the tool's structured error and the one concrete
   repaired fact derived from it, which the model confirms against the text (or, when no fact can be derived,
   the form the fact needs, for the model to repair); with feedback off (the seed's ablation) only the news that
   it was rejected, for the model to repair on its own.

Every prompt starts with the same block — the task, the ontology's classes and relations, solved examples if the
document has some, then the text — so a
server's prompt cache reuses it across the steps of a document and (up to the text) across documents of one
ontology; only the last paragraph differs. Each reply is one JSON object whose JSON schema is sent with the
request (constrained decoding where the server supports it: class and relation names are enums, so a model
cannot name a term the ontology lacks); replies are parsed and checked here all the same. Entities are shown as
short handles (``E1``) that the model may use instead of repeating names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.llm.client import Message
from kgagents.llm.structured import extract_json
from kgagents.loaders.rdf_terms import XSD, local_name
from kgagents.tools.tbox import PropertyDef, PropertyKind, TBox

TYPE_MAX_TOKENS = 320
FACTS_MAX_TOKENS = 480
REPAIR_MAX_TOKENS = 120
CONFIRM_MAX_TOKENS = 12

#: how a datatype is written in a signature and which form values must take
_VALUE_FORMS = {"date": "date YYYY-MM-DD", "gYear": "year YYYY", "gYearMonth": "YYYY-MM", "decimal": "number",
                "double": "number", "float": "number", "integer": "integer", "int": "integer",
                "nonNegativeInteger": "integer", "positiveInteger": "integer", "boolean": "true/false",
                "string": "text", "dateTime": "YYYY-MM-DDThh:mm:ss"}


def value_form(datatype: str) -> str:
    """``date YYYY-MM-DD`` for xsd:date: how a value of ``datatype`` is written (other datatypes: their name)."""
    name = datatype[len(XSD):] if datatype.startswith(XSD) else local_name(datatype)
    return _VALUE_FORMS.get(name, name)


def signature(tbox: TBox, prop: PropertyDef) -> str:
    """``city: University -> City``; an open domain or range is ``any``, a datatype range its value form."""
    domain = " | ".join(tbox.label_of(c) for c in prop.domain) or "any"
    if prop.kind is PropertyKind.DATATYPE:
        target = " | ".join(value_form(d) for d in prop.range) or "text"
    elif prop.kind is PropertyKind.ANY:
        target = "any entity or value"
    else:
        target = " | ".join(tbox.label_of(c) for c in prop.range) or "any entity"
    return f"{prop.label}: {domain} -> {target}"


def class_names(tbox: TBox) -> list[str]:
    """The classes an entity may be typed with (declared or referenced), by label, in file order."""
    return list(dict.fromkeys(c.label for c in tbox.classes.values()))


def _name(text: str) -> str:
    """How an example writes a name or value: ``_`` as space, without surrounding quotes."""
    return " ".join(text.replace("_", " ").split()).strip('"').strip()


def example_block(tbox: TBox, example: Mapping[str, Any]) -> str:
    """A solved example (a text with its triples) in the form the model replies in: its entities, typed by the
    relations they take part in (``rdfs:domain`` / ``rdfs:range``), and its facts."""
    by_name = {p.name: p for p in tbox.properties.values()} | {p.label: p for p in tbox.properties.values()}
    entities: dict[str, str] = {}
    facts = []
    for sub, rel, obj in example["triples"]:
        prop = by_name.get(rel) or by_name.get(rel.replace(" ", "_"))
        if prop is None:
            continue
        if prop.domain:
            entities.setdefault(_name(sub), tbox.label_of(prop.domain[0]))
        if prop.kind is PropertyKind.OBJECT and prop.range:
            entities.setdefault(_name(obj), tbox.label_of(prop.range[0]))
        facts.append({"subject": _name(sub), "relation": prop.label, "object": _name(obj)})
    typed = [{"name": n, "class": c} for n, c in entities.items()]
    return "\n".join([f"Example text: \"{' '.join(example['text'].split())}\"",
                      f"Its entities: {json.dumps({'entities': typed}, ensure_ascii=False)}",
                      f"Its facts: {json.dumps({'facts': facts}, ensure_ascii=False)}"])


def preamble(tbox: TBox, relations: Sequence[PropertyDef], text: str,
             examples: Sequence[Mapping[str, Any]] = ()) -> str:
    """The block every prompt of a document starts with (see the module docstring): task, classes, relation
    signatures, solved examples (if the document comes with some), the text."""
    return "\n".join([
        "You build a knowledge graph from a text, using only the classes and relations of an ontology.",
        "Classes: " + ", ".join(class_names(tbox)),
        "Relations (subject class -> object):",
        *(f"- {signature(tbox, p)}" for p in relations),
        "",
        *(f"{example_block(tbox, e)}\n" for e in examples),
        f"Text: \"{text}\"",
    ])


def _user(block: str, task: str) -> list[Message]:
    return [{"role": "user", "content": f"{block}\n\n{task}"}]


# -- step 1: entities ------------------------------------------------------------------------------------
def typing_messages(block: str) -> list[Message]:
    return _user(block, (
        "Step 1: list every entity the Text names (only the Text, not an example): people, places, organisations, "
        "works, things, each with the class from the list that fits it best. Copy each name exactly as the Text "
        "writes it. Numbers, dates, measurements and other values are not entities.\n"
        'Reply with JSON: {"entities": [{"name": "...", "class": "..."}]}'))


def typing_schema(classes: Sequence[str], limit: int) -> dict[str, Any]:
    item = {"type": "object", "properties": {"name": {"type": "string", "minLength": 1},
                                             "class": {"type": "string", "enum": list(classes)}},
            "required": ["name", "class"]}
    return {"type": "object", "properties": {"entities": {"type": "array", "items": item, "maxItems": limit}},
            "required": ["entities"]}


def parse_entities(text: str, classes: Sequence[str]) -> list[tuple[str, str]] | str:
    """``[(name, class)]`` from a step-1 reply (unknown classes dropped), or what is wrong with the reply."""
    items = _items(text, "entities")
    if isinstance(items, str):
        return items
    known = {c.casefold(): c for c in classes}
    out = []
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("name"), str) and item["name"].strip():
            cls = known.get(str(item.get("class", "")).strip().casefold())
            if cls is not None:
                out.append((" ".join(item["name"].split()), cls))
    return list(dict.fromkeys(out))


# -- step 2: facts ---------------------------------------------------------------------------------------
def entity_lines(entities: Sequence[Mapping[str, str]]) -> str:
    return "\n".join(f"{e['handle']} = {e['label']} ({e['class_label']})" for e in entities) or "(none)"


def facts_messages(block: str, entities: Sequence[Mapping[str, str]]) -> list[Message]:
    return _user(block, (
        f"Entities:\n{entity_lines(entities)}\n\n"
        "Step 2: write every fact the Text states (only the Text, not an example) as subject, relation, object, "
        "with a relation from the list whose classes fit. Subject and object: an entity (its E-number or name), "
        "or a value written in the relation's form (a date as YYYY-MM-DD, a number as digits).\n"
        'Reply with JSON: {"facts": [{"subject": "E1", "relation": "...", "object": "..."}]}'))


def _fact_schema(relations: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {"subject": {"type": "string", "minLength": 1},
                                             "relation": {"type": "string", "enum": list(relations)},
                                             "object": {"type": "string", "minLength": 1}},
            "required": ["subject", "relation", "object"]}


def facts_schema(relations: Sequence[str], limit: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"facts": {"type": "array", "items": _fact_schema(relations),
                                                       "maxItems": limit}},
            "required": ["facts"]}


def _fact(item: Any) -> dict[str, str] | None:
    if not isinstance(item, Mapping):
        return None
    fact = {k: " ".join(str(item.get(k, "")).split()) for k in ("subject", "relation", "object")}
    if not all(fact.values()):
        return None
    for key in ("subject_class", "object_class"):
        if isinstance(item.get(key), str) and item[key].strip():
            fact[key] = item[key].strip()
    return fact


def parse_facts(text: str) -> list[dict[str, str]] | str:
    """The facts of a step-2 reply (incomplete ones dropped), or what is wrong with the reply."""
    items = _items(text, "facts")
    if isinstance(items, str):
        return items
    facts = [f for f in (_fact(i) for i in items) if f is not None]
    return [dict(t) for t in dict.fromkeys(tuple(sorted(f.items())) for f in facts)]


# -- step 3: repair --------------------------------------------------------------------------------------
def show_fact(fact: Mapping[str, str]) -> str:
    return f"{{subject: {fact['subject']}, relation: {fact['relation']}, object: {fact['object']}}}"


def repair_messages(block: str, entities: Sequence[Mapping[str, str]], fact: Mapping[str, str],
                    problem: str | None, hint: str | None) -> list[Message]:
    """One rejected fact for the model to repair itself: with feedback, the tool's error (``problem``) and what
    form the fact needs (``hint``); without (the ablation), only that it was rejected."""
    lines = [f"Entities:\n{entity_lines(entities)}", "",
             f"Step 3: the tools rejected your fact {show_fact(fact)}" + (f": {problem}" if problem else ".")]
    if hint:
        lines.append(f"Repair: {hint}")
    lines.append('Reply with JSON: the repaired fact {"subject": "...", "relation": "...", "object": "..."}, or '
                 '{"drop": true} if the text does not state it.')
    return _user(block, "\n".join(lines))


def confirm_messages(block: str, entities: Sequence[Mapping[str, str]], fact: Mapping[str, str], problem: str,
                     repaired: str) -> list[Message]:
    """One rejected fact with the concrete repair the tool's feedback gives: does the text state it?"""
    return _user(block, "\n".join([
        f"Entities:\n{entity_lines(entities)}", "",
        f"Step 3: the tools rejected your fact {show_fact(fact)}: {problem}",
        f"Repaired fact: {repaired}",
        'Does the text state the repaired fact? Reply with JSON: {"answer": "yes"} or {"answer": "no"}']))


def check_messages(block: str, entities: Sequence[Mapping[str, str]], fact: str) -> list[Message]:
    """One fact (in words) for a one-token check: does the text state it? (Graded by the log-odds of yes.)"""
    return _user(block, f"Entities:\n{entity_lines(entities)}\n\nCheck: does the Text state this fact? {fact}\n"
                        "Answer yes or no.")


CONFIRM_SCHEMA: dict[str, Any] = {"type": "object",
                                  "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
                                  "required": ["answer"]}


def parse_confirm(text: str) -> bool | str:
    """True / False from a confirmation reply, or what is wrong with it."""
    obj = _json(text)
    if isinstance(obj, str):
        return obj
    answer = str(obj.get("answer", "")).strip().lower()
    return answer == "yes" if answer in ("yes", "no") else "the reply's answer is neither yes nor no"


def repair_schema(relations: Sequence[str], classes: Sequence[str]) -> dict[str, Any]:
    fact = _fact_schema(relations)
    fact["properties"] |= {"subject_class": {"type": "string", "enum": list(classes)},
                           "object_class": {"type": "string", "enum": list(classes)}}
    drop = {"type": "object", "properties": {"drop": {"type": "boolean"}}, "required": ["drop"]}
    return {"anyOf": [fact, drop]}


def parse_repair(text: str) -> dict[str, str] | None | str:
    """The repaired fact, None (dropped), or what is wrong with the reply."""
    obj = _json(text)
    if isinstance(obj, str):
        return obj
    if obj.get("drop") is True:
        return None
    fact = _fact(obj)
    return fact if fact is not None else 'the reply is neither a fact (subject, relation, object) nor {"drop": true}'


def _items(text: str, key: str) -> list[Any] | str:
    """The list under ``key`` of a reply's JSON object, or what is wrong with the reply."""
    obj = _json(text)
    if isinstance(obj, str):
        return obj
    items = obj.get(key)
    return items if isinstance(items, list) else f'the reply has no "{key}" list'


def _json(text: str) -> dict[str, Any] | str:
    try:
        return extract_json(text)
    except ValueError:
        return "the reply contains no JSON object"
