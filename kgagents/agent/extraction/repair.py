"""Turn a tool's structured feedback into one concrete repair step the model can copy.

The runtime says *what* is wrong (``error_type``, ``field``, ``message``, ``allowed_values``); a small model
repairs far better from a ready-made fact than from a rule. So each error becomes one suggested fact, written
out as the JSON the model replies with:

* ``datatype_violation``: the object rewritten in the datatype's form when the text's wording converts
  (``July 28, 1944`` → ``1944-07-28``, ``250 academic staff`` → ``250``), else the form to use;
* ``range_violation`` / ``domain_violation``: the same fact with the entity re-typed to the class the relation
  needs (``object_class``), or subject and object swapped when the relation fits them the other way round —
  plus the relations that fit the entities as typed, in case the relation was the mistake;
* ``unknown_tool`` (a relation the ontology lacks) and ``not_allowed_value`` / ``invalid_unit``: the closest
  allowed relation or value.

Errors a repair cannot fix (a cardinality already reached) get no repair turn at all.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kgagents.agent.extraction.facts import FactWriter
from kgagents.agent.extraction.prompts import value_form
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


def _fact_json(fact: Mapping[str, str]) -> str:
    return json.dumps({k: fact[k] for k in ("subject", "relation", "object", "subject_class", "object_class")
                       if k in fact}, ensure_ascii=False)


def _fitting(writer: FactWriter, subject_cls: str | None, object_cls: str | None, limit: int = 5) -> list[str]:
    """Relations whose signature fits the entities' classes as typed."""
    tbox = writer.tbox
    return [p.label for p in tbox.properties.values()
            if subject_cls is not None and tbox.fits(subject_cls, p.domain)
            and (p.kind is PropertyKind.ANY or (p.kind is PropertyKind.OBJECT and object_cls is not None
                                                and tbox.fits(object_cls, p.range)))][:limit]


def _swap_fits(writer: FactWriter, prop: PropertyDef, subject_cls: str | None, object_cls: str | None) -> bool:
    return (prop.kind is PropertyKind.OBJECT and subject_cls is not None and object_cls is not None
            and writer.tbox.fits(object_cls, prop.domain) and writer.tbox.fits(subject_cls, prop.range))


def repair_step(writer: FactWriter, fact: Mapping[str, str], result: Mapping[str, Any]) -> tuple[str, str | None]:
    """``(problem, step)``: the tool's error as the model sees it, and one concrete repair (None: no suggestion)."""
    error = result.get("error_type") or "rejected"
    problem = f"{error}: {result.get('message', '')}".strip()
    prop = property_named(writer.runtime, fact["relation"])
    allowed = [str(v) for v in result.get("allowed_values") or []]
    if error == "unknown_tool" or prop is None:
        close = difflib.get_close_matches(fact["relation"], [p.label for p in writer.tbox.properties.values()],
                                          n=1, cutoff=0)
        return problem, (f"send {_fact_json({**fact, 'relation': close[0]})}" if close else None)
    if error == "datatype_violation":
        forms = " or ".join(value_form(d) for d in prop.range) or "text"
        converted = next((v for d in prop.range if (v := convert_value(d, fact["object"])) is not None), None)
        if converted is not None:
            return problem, f"send {_fact_json({**fact, 'object': converted})}"
        return problem, f"write the object as {forms}, or drop the fact if the text gives no such value"
    if error in ("not_allowed_value", "invalid_unit") and allowed:
        close = difflib.get_close_matches(fact["object"], allowed, n=1, cutoff=0)
        return problem, f"send {_fact_json({**fact, 'object': close[0]})}" if close else None
    subject = writer.find(fact["subject"], prop.domain)
    obj = writer.find(fact["object"], prop.range)
    subject_cls, object_cls = (subject or {}).get("class"), (obj or {}).get("class")
    if error in ("range_violation", "domain_violation"):
        if _swap_fits(writer, prop, subject_cls, object_cls):
            return problem, f"send {_fact_json({**fact, 'subject': fact['object'], 'object': fact['subject']})}"
        side = "object_class" if error == "range_violation" else "subject_class"
        needed = prop.range if error == "range_violation" else prop.domain
        step = f"send {_fact_json({**fact, side: writer.tbox.label_of(needed[0])})}" if needed else None
        others = [r for r in _fitting(writer, subject_cls, object_cls) if r != prop.label]
        if others:
            step = f"{step + ', or ' if step else ''}use a relation that fits the entities as typed: {', '.join(others)}"
        return problem, step
    if error == "unknown_instance":
        side = "object_class" if result.get("field") in ("object_iri", "object") else "subject_class"
        needed = prop.range if side == "object_class" else prop.domain
        if needed:
            return problem, f"send {_fact_json({**fact, side: writer.tbox.label_of(needed[0])})}"
        return problem, "use an entity's E-number"
    return problem, None
