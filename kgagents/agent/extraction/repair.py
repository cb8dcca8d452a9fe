"""Turn a tool's structured feedback into one concrete repair step the model can copy.

The runtime says *what* is wrong (``error_type``, ``field``, ``message``, ``allowed_values``); a small model
judges a ready-made fact far better than it repairs from a rule. So each error becomes one repaired fact, which
the model is asked to confirm against the text:

* ``datatype_violation``: the object rewritten in the datatype's form when the text's wording converts
  (``July 28, 1944`` → ``1944-07-28``, ``250 academic staff`` → ``250``), else the form to use;
* ``range_violation`` / ``domain_violation``: subject and object swapped when the relation fits them the other
  way round; for a subject of the wrong class, the text's first entity of the class the relation applies to (a
  director's film); else (setting ``relation_repair``) the relation that fits the entities as typed and is named after
  the offending entity's class (``city`` for a City: the relation the model most likely meant); else the same fact
  with the entity re-typed to the class the relation needs (``object_class`` / ``subject_class``) — for an object
  only with setting ``retype_objects``, else the fact is dropped without a turn;
* ``unknown_tool`` (a relation the ontology lacks) and ``not_allowed_value`` / ``invalid_unit``: the closest
  allowed relation or value.

Errors a repair cannot fix (a cardinality already reached) get no repair turn at all.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kgagents.agent.extraction.facts import FactWriter
from kgagents.agent.extraction.prompts import value_form
from kgagents.agent.extraction.words import stems
from kgagents.tools.datatypes import check_literal
from kgagents.tools.feed import property_named
from kgagents.tools.tbox import PropertyDef, PropertyKind

#: errors no other fact about the same statement can repair
UNREPAIRABLE = frozenset({"already_attached"})
_DATE_FORMATS = ("%B %d, %Y", "%B %d %Y", "%d %B %Y", "%d %B, %Y", "%b %d, %Y", "%d %b %Y", "%Y-%m-%d", "%d/%m/%Y",
                 "%d.%m.%Y")
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def repairable(result: Mapping[str, Any]) -> bool:
    return not result.get("ok") and result.get("error_type") not in UNREPAIRABLE


def convert_value(datatype: str, text: str) -> str | None:
    """``text`` in ``datatype``'s lexical form when its wording converts unambiguously, else None."""
    raw = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text.strip().strip("\"'"))
    candidates = [raw]
    for fmt in _DATE_FORMATS:
        try:
            candidates.append(datetime.strptime(raw, fmt).date().isoformat())
        except ValueError:
            continue
    numbers = _NUMBER.findall(raw)
    if len(numbers) == 1:
        candidates.append(numbers[0].replace(",", ""))
    return next((v for c in candidates if (v := check_literal(datatype, c)) is not None), None)


def _fitting(writer: FactWriter, subject_cls: str | None, object_cls: str | None) -> list[PropertyDef]:
    """Relations whose signature fits the entities' classes as typed."""
    tbox = writer.tbox
    return [p for p in tbox.properties.values()
            if subject_cls is not None and tbox.fits(subject_cls, p.domain)
            and (p.kind is PropertyKind.ANY or (p.kind is PropertyKind.OBJECT and object_cls is not None
                                                and tbox.fits(object_cls, p.range)))]


def _named_after(writer: FactWriter, candidates: list[PropertyDef], cls: str | None,
                 refused: PropertyDef) -> str | None:
    """Of the relations that fit the entities as typed, the one named after the entity's class (``city`` for a
    City, before ``largestCity``): the relation the model most likely meant. None when no relation's name shares a
    word with the class."""
    if cls is None:
        return None
    words = stems(writer.tbox.label_of(cls), 3)
    scored = sorted((-len(stems(p.label, 3) & words), len(stems(p.label, 3) - words), p.label)
                    for p in candidates if p.iri != refused.iri)
    return scored[0][2] if scored and scored[0][0] < 0 else None


def _swap_fits(writer: FactWriter, prop: PropertyDef, subject_cls: str | None, object_cls: str | None) -> bool:
    return (prop.kind is PropertyKind.OBJECT and subject_cls is not None and object_cls is not None
            and writer.tbox.fits(object_cls, prop.domain) and writer.tbox.fits(subject_cls, prop.range))


@dataclass(frozen=True)
class Repair:
    """The tool's error as the model sees it (``problem``), and either one concrete repaired ``fact`` or, when
    none can be derived, a ``hint`` saying what form the fact needs; ``drop`` when the fact gets no turn."""

    problem: str
    fact: dict[str, str] | None = None
    hint: str | None = None
    drop: bool = False  # no repair is worth a turn: the fact is left out


def repair_step(writer: FactWriter, fact: Mapping[str, str], result: Mapping[str, Any], *,
                relation_repair: bool = True, retype_objects: bool = True) -> Repair:
    """One concrete repair of a refused ``fact`` from the tool's structured ``result`` (see the module docstring;
    ``relation_repair`` off skips the relation named after the entity's class, ``retype_objects`` off drops a fact
    whose only repair would re-type its object)."""
    error = result.get("error_type") or "rejected"
    problem = f"{error}: {result.get('message', '')}".strip()
    prop = property_named(writer.runtime, fact["relation"])
    allowed = [str(v) for v in result.get("allowed_values") or []]
    if error == "unknown_tool" or prop is None:
        close = difflib.get_close_matches(fact["relation"], [p.label for p in writer.tbox.properties.values()],
                                          n=1, cutoff=0)
        return Repair(problem, {**fact, "relation": close[0]} if close else None)
    if error == "datatype_violation":
        forms = " or ".join(value_form(d) for d in prop.range) or "text"
        converted = next((v for d in prop.range if (v := convert_value(d, fact["object"])) is not None), None)
        if converted is not None:
            return Repair(problem, {**fact, "object": converted})
        return Repair(problem, hint=f"write the object as {forms}, or drop the fact if the text gives no such value")
    if error in ("not_allowed_value", "invalid_unit") and allowed:
        close = difflib.get_close_matches(fact["object"], allowed, n=1, cutoff=0)
        return Repair(problem, {**fact, "object": close[0]} if close else None)
    subject = writer.find(fact["subject"], prop.domain)
    obj = writer.find(fact["object"], prop.range)
    subject_cls, object_cls = (subject or {}).get("class"), (obj or {}).get("class")
    if error in ("range_violation", "domain_violation"):
        if _swap_fits(writer, prop, subject_cls, object_cls):
            return Repair(problem, {**fact, "subject": fact["object"], "object": fact["subject"]})
        if error == "domain_violation":
            fitting = [e for e in writer.entities if writer.tbox.fits(e["class"], prop.domain)
                       and e is not obj and e is not subject]
            if fitting:  # the text's entity the relation is about (a film's director: the film)
                return Repair(problem, {**fact, "subject": fitting[0]["handle"]})
        typed = object_cls if error == "range_violation" else subject_cls
        other = _named_after(writer, _fitting(writer, subject_cls, object_cls), typed, prop) \
            if relation_repair else None
        if other is not None:
            return Repair(problem, {**fact, "relation": other})
        if error == "range_violation" and not retype_objects:
            return Repair(problem, drop=True)
        side = "object_class" if error == "range_violation" else "subject_class"
        needed = prop.range if error == "range_violation" else prop.domain
        return Repair(problem, {**fact, side: writer.tbox.label_of(needed[0])} if needed else None)
    if error == "unknown_instance":
        side = "object_class" if result.get("field") in ("object_iri", "object") else "subject_class"
        needed = prop.range if side == "object_class" else prop.domain
        if needed:
            return Repair(problem, {**fact, side: writer.tbox.label_of(needed[0])})
        return Repair(problem, hint="use an entity's E-number")
    return Repair(problem)
