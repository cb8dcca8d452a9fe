"""The no-LLM path: feed given (subject, relation, object) triples through the compiled tools.

Nothing here decides what is true; it only shows which of the given statements the ontology's tools
accept, and why the others are rejected. Triples carry no types, so entities are typed from the
relations they take part in (the domain of a relation they are the subject of, the range of one
they are the object of) and created first — the extraction plan's order — with one instance per
(entity, class); then every assertion goes through its ``add_<relation>`` tool, whose checks
(unknown relation, domain, range, datatype, cardinality, units) decide. The object of a relation whose range
is open is an entity when the triples type it, else a literal. ``assertions`` may differ from
the triples the entities were typed from: that is how the benchmark feeds corrupted statements about
correctly created entities.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgagents.errors import InputFileError
from kgagents.paths import require_file
from kgagents.tools.compiler import ToolKind
from kgagents.tools.runtime import ToolResult, ToolRuntime
from kgagents.tools.tbox import PropertyDef, PropertyKind

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class FeedOutcome:
    """One assertion and the tool's answer."""

    triple: Triple
    tool: str
    result: ToolResult


@dataclass
class FeedReport:
    """Outcomes of one feed, in order."""

    outcomes: list[FeedOutcome] = field(default_factory=list)
    creations: list[FeedOutcome] = field(default_factory=list)

    @property
    def accepted(self) -> list[Triple]:
        return [o.triple for o in self.outcomes if o.result.ok]

    @property
    def rejected(self) -> list[FeedOutcome]:
        return [o for o in self.outcomes if not o.result.ok]

    def error_counts(self) -> Counter[str]:
        return Counter(o.result.error_type or "" for o in self.rejected)


def property_named(runtime: ToolRuntime, relation: str) -> PropertyDef | None:
    """The T-Box property a relation string names (by local name, then label; spaces as ``_``)."""
    wanted = relation.strip().replace(" ", "_")
    props = runtime.tbox.properties.values()
    return next((p for p in props if p.name == wanted), None) or next((p for p in props if p.label == wanted), None)


def create_entities(runtime: ToolRuntime, typing_triples: Sequence[Triple]) -> tuple[dict[tuple[str, str], str],
                                                                                      list[FeedOutcome]]:
    """Create every entity once per class it needs; returns (entity, class) → IRI and the create outcomes."""
    iris: dict[tuple[str, str], str] = {}
    outcomes: list[FeedOutcome] = []
    for sub, rel, obj in typing_triples:
        prop = property_named(runtime, rel)
        if prop is None:
            continue
        needs = [(sub, prop.domain[0])] if prop.domain else []
        if prop.kind is PropertyKind.OBJECT and prop.range and runtime.tbox.quantity_class(prop) is None:
            needs.append((obj, prop.range[0]))
        for entity, cls in needs:
            if (entity, cls) in iris:
                continue
            tool = runtime.catalogue.for_class(ToolKind.CREATE, cls).name
            result = runtime.call(tool, {"label": entity})
            outcomes.append(FeedOutcome((entity, "rdf:type", runtime.tbox.label_of(cls)), tool, result))
            if result.ok and result.iri:
                iris[(entity, cls)] = result.iri
    return iris, outcomes


def _iri_for(iris: dict[tuple[str, str], str], entity: str, wanted: tuple[str, ...]) -> str:
    """The entity's instance of a wanted class if it has one, else any instance of it, else the text itself."""
    for cls in wanted:
        if (entity, cls) in iris:
            return iris[(entity, cls)]
    return next((iri for (e, _), iri in sorted(iris.items()) if e == entity), entity)


_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


def parse_quantity(text: str) -> dict[str, object]:
    """``"120 °C"`` → value and unit arguments (the tool rejects what does not parse or is not an allowed unit)."""
    match = _QUANTITY.match(text)
    return {"value": float(match.group(1)), "unit": match.group(2)} if match else {"value": text, "unit": ""}


def assert_triples(runtime: ToolRuntime, iris: dict[tuple[str, str], str],
                   assertions: Sequence[Triple]) -> list[FeedOutcome]:
    """Each assertion through its ``add_`` tool (an unknown relation reaches the runtime as an unknown tool)."""
    outcomes = []
    for sub, rel, obj in assertions:
        prop = property_named(runtime, rel)
        if prop is None:
            tool = f"add_{rel}"
            result = runtime.call(tool, {"subject_iri": _iri_for(iris, sub, ()), "object_iri": obj})
        else:
            spec = runtime.catalogue.for_property(prop.iri)
            tool = spec.name
            args: dict[str, object] = {"subject_iri": _iri_for(iris, sub, prop.domain)}
            if spec.kind is ToolKind.ADD_QUANTITY:
                args.update(parse_quantity(obj))
            elif prop.kind is PropertyKind.OBJECT:
                args["object_iri"] = _iri_for(iris, obj, prop.range)
            elif prop.kind is PropertyKind.ANY:
                args["object"] = _iri_for(iris, obj, ())
            else:
                args["value"] = obj
            result = runtime.call(tool, args)
        outcomes.append(FeedOutcome((sub, rel, obj), tool, result))
    return outcomes


def feed_triples(runtime: ToolRuntime, triples: Sequence[Triple],
                 assertions: Sequence[Triple] | None = None) -> FeedReport:
    """Type and create the entities of ``triples``, then assert ``assertions`` (default: the triples)."""
    iris, creations = create_entities(runtime, triples)
    return FeedReport(assert_triples(runtime, iris, triples if assertions is None else assertions), creations)


def read_triples_file(path: Path) -> list[Triple]:
    """Triples from a TSV file (subject, relation, object) or JSON lines in either Text2KGBench shape (a record
    with a ``triples`` list, or one triple per record, ``sub_label``/``rel_label``/``obj_label`` preferred to
    ``sub``/``rel``/``obj``; see :func:`kgagents.metrics.text2kgbench.record_triples`)."""
    from kgagents.metrics.text2kgbench import RECORD_SHAPES, RecordError, record_triples

    require_file(path, "triples file")
    out: list[Triple] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                out.extend(record_triples(json.loads(line)))
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{path}:{n}: invalid JSON ({exc.msg})") from exc
            except RecordError as exc:
                raise InputFileError(f"{path}:{n}: cannot read this record ({exc}). A JSON line holds {{sub, rel, "
                                     f"obj}}, or {RECORD_SHAPES}.") from exc
        else:
            parts = line.split("\t")
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise InputFileError(f"{path}:{n}: expected subject<TAB>relation<TAB>object")
            out.append((parts[0].strip(), parts[1].strip(), parts[2].strip()))
    return out
