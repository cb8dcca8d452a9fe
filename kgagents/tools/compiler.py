"""Compile a T-Box into typed tools: the only way an agent may create or change A-Box instances.

Deterministic (no LLM): the same ontology always gives the same tools, names and schemas. Per class
``create_<Class>(label)`` and ``check_existing_<Class>(label)``; per property ``add_<property>`` taking an
instance IRI (object property), a literal value (datatype property), either (a property whose range is left
open) or a number and a unit (a property whose range is an OM-2 quantity); tools are named after the terms'
names (an OWL local name, a Text2KGBench label) while bound to their IRIs; one ``validate(instance_iri)``;
and read-only graph tools (``search_by_label``, ``neighbours``). Each tool has a pydantic argument model (so its
JSON schema is the model's) and a description built from the ontology: labels and ``rdfs:comment`` as guidance,
the axioms (domain, range, datatype, cardinality, allowed values, units) stated as rules the runtime enforces.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, create_model

from kgagents.loaders.rdf_terms import local_name
from kgagents.tools.datatypes import json_type
from kgagents.tools.om2_units import units_for
from kgagents.tools.tbox import PropertyDef, PropertyKind, TBox

MAX_NAME = 64  # MCP and OpenAI-style function names: [A-Za-z0-9_-]{1,64}


class ToolGroup(str, Enum):
    """How the MCP server and the agent group the tools."""

    CREATE = "create entities"
    RELATE = "add relations"
    ATTRIBUTE = "add attributes"
    QUANTITY = "add quantities"
    VALIDATE = "validate"
    LOOKUP = "look up"


class ToolKind(str, Enum):
    """What the runtime does for a call (several tools share one kind, bound to different IRIs)."""

    CREATE = "create"
    CHECK_EXISTING = "check_existing"
    ADD_RELATION = "add_relation"
    ADD_VALUE = "add_value"
    ADD_ANY = "add_any"
    ADD_QUANTITY = "add_quantity"
    VALIDATE = "validate"
    SEARCH = "search_by_label"
    NEIGHBOURS = "neighbours"


class _Args(BaseModel):
    """Base of every argument model: unknown arguments are errors, numbers given for a literal's text are accepted;
    a label must be text (a number there is a caller's mistake, refused rather than silently turned into a name)."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


@dataclass(frozen=True)
class ToolSpec:
    """One compiled tool: name, group, description, argument model, and the T-Box term it is bound to."""

    name: str
    kind: ToolKind
    group: ToolGroup
    description: str
    args: type[BaseModel]
    target: str | None = None

    @property
    def read_only(self) -> bool:
        return self.group in (ToolGroup.LOOKUP, ToolGroup.VALIDATE)

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.args.model_json_schema()

    def signature(self) -> str:
        """``add_country(subject_iri, object_iri)``: a one-line form for prompts and catalogues."""
        return f"{self.name}({', '.join(self.args.model_fields)})"


@dataclass
class ToolCatalogue:
    """The compiled tools of one T-Box, by name (insertion order: by group, then by name)."""

    tbox: TBox
    tools: dict[str, ToolSpec]

    def __getitem__(self, name: str) -> ToolSpec:
        return self.tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __len__(self) -> int:
        return len(self.tools)

    def by_group(self) -> dict[ToolGroup, list[ToolSpec]]:
        out: dict[ToolGroup, list[ToolSpec]] = {g: [] for g in ToolGroup}
        for tool in self.tools.values():
            out[tool.group].append(tool)
        return out

    def for_class(self, kind: ToolKind, cls: str) -> ToolSpec:
        """The ``create_`` or ``check_existing_`` tool of a class."""
        return next(t for t in self.tools.values() if t.kind is kind and t.target == cls)

    def for_property(self, prop: str) -> ToolSpec:
        """The ``add_`` tool of a property."""
        return next(t for t in self.tools.values() if t.target == prop and t.kind in _ADD_KINDS)

    def as_json(self) -> list[dict[str, Any]]:
        """Name, group, description and input schema of every tool (what MCP ``tools/list`` carries)."""
        return [{"name": t.name, "group": t.group.value, "description": t.description,
                 "input_schema": t.input_schema, "target": t.target} for t in self.tools.values()]


_ADD_KINDS = (ToolKind.ADD_RELATION, ToolKind.ADD_VALUE, ToolKind.ADD_ANY, ToolKind.ADD_QUANTITY)


def compile_tbox(tbox: TBox, describe: Callable[[ToolSpec], str] | None = None) -> ToolCatalogue:
    """All tools of ``tbox``. ``describe`` may rewrite descriptions (e.g. an LLM making them friendlier);
    it never changes names, schemas or what the runtime enforces."""
    class_names = _unique_names(tbox.classes)
    prop_names = _unique_names(tbox.properties)
    tools: list[ToolSpec] = []
    for iri in sorted(tbox.classes, key=lambda i: class_names[i]):
        tools += [_create_tool(tbox, iri, class_names[iri]), _check_tool(tbox, iri, class_names[iri])]
    for iri in sorted(tbox.properties, key=lambda i: prop_names[i]):
        tools.append(_add_tool(tbox, tbox.properties[iri], prop_names[iri], class_names))
    tools += _fixed_tools(tbox)
    if describe is not None:
        tools = [ToolSpec(t.name, t.kind, t.group, describe(t), t.args, t.target) for t in tools]
    order = list(ToolGroup)
    return ToolCatalogue(tbox, {t.name: t for t in sorted(tools, key=lambda t: order.index(t.group))})


def load_tbox(path: str | Path, name: str | None = None) -> TBox:
    """A T-Box from OWL (RDF/XML, Turtle, N-Triples) or a Text2KGBench ontology JSON, by extension."""
    from kgagents.tools.tbox_json import read_json_tbox
    from kgagents.tools.tbox_rdf import read_rdf_tbox

    path = Path(path)
    return read_json_tbox(path, name) if path.suffix.lower() == ".json" else read_rdf_tbox(path, name)


def compile_ontology(path: str | Path, name: str | None = None) -> ToolCatalogue:
    """:func:`load_tbox` then :func:`compile_tbox`."""
    return compile_tbox(load_tbox(path, name))


# -- names -------------------------------------------------------------------------------------------
def _sanitise(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "x"


def _unique_names(terms: dict[str, Any]) -> dict[str, str]:
    """IRI → tool-name stem: the term's name; when two terms share it, prefixed with their namespace's last
    segment, or (terms of one namespace, e.g. two relations with one label) suffixed with their IRI's id."""
    groups: dict[str, list[str]] = defaultdict(list)
    for iri, term in terms.items():
        groups[_sanitise(term.name)].append(iri)
    out: dict[str, str] = {}
    for stem, iris in groups.items():
        namespaces = {iri[: len(iri) - len(local_name(iri))].rstrip("#/") for iri in iris}
        for iri in iris:
            namespace = iri[: len(iri) - len(local_name(iri))].rstrip("#/")
            if len(iris) == 1:
                out[iri] = stem
            elif len(namespaces) == len(iris):
                out[iri] = f"{_sanitise(local_name(namespace))}_{stem}"
            else:
                out[iri] = f"{stem}_{_sanitise(local_name(iri))}"
    return out


def _tool_name(prefix: str, stem: str) -> str:
    name = f"{prefix}{stem}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


# -- descriptions ------------------------------------------------------------------------------------
def _names(tbox: TBox, iris: Iterable[str]) -> str:
    return " or ".join(tbox.label_of(i) for i in iris)


def _guidance(comment: str | None) -> str:
    return f" Guidance: {' '.join(comment.split())}" if comment else ""


def _property_rules(tbox: TBox, prop: PropertyDef) -> str:
    rules = [f"subject: {_names(tbox, prop.domain)}" if prop.domain else "subject: any instance"]
    if prop.kind is PropertyKind.OBJECT:
        rules.append(f"object: {_names(tbox, prop.range)}" if prop.range else "object: any instance")
    elif prop.kind is PropertyKind.ANY:
        rules.append("object: any instance or literal")
    else:
        rules.append(f"value: {' or '.join('xsd:' + local_name(r) for r in prop.range) or 'any literal'}")
    if prop.allowed_values:
        rules.append(f"allowed values: {', '.join(prop.allowed_values)}")
    bounds = sorted({c.max for c in tbox.cardinalities if c.property == prop.iri and c.max is not None})
    if prop.functional or bounds:
        rules.append(f"at most {min([1] if prop.functional else bounds)} per subject")
    return "; ".join(rules)


# -- tools -------------------------------------------------------------------------------------------
def _model(name: str, **fields: Any) -> type[BaseModel]:
    return create_model(name, __base__=_Args, **fields)


def _create_tool(tbox: TBox, cls: str, stem: str) -> ToolSpec:
    c = tbox.classes[cls]
    name = _tool_name("create_", stem)
    required = tbox.required(cls)
    rules = f" Required afterwards: {', '.join(tbox.label_of(p) for p in sorted(required))}." if required else ""
    enum = f" Only these individuals: {', '.join(local_name(i) for i in c.one_of)}." if c.one_of else ""
    return ToolSpec(
        name=name, kind=ToolKind.CREATE, group=ToolGroup.CREATE, target=cls,
        description=(f"Create an instance of {c.label} (or reuse the existing one with the same normalised label) "
                     f"and return its IRI.{enum}{rules}{_guidance(c.comment)}"),
        args=_model(name, label=(StrictStr, Field(min_length=1, max_length=500,
                                                  description=f"the {c.label}'s name as written in the text"))),
    )


def _check_tool(tbox: TBox, cls: str, stem: str) -> ToolSpec:
    c = tbox.classes[cls]
    name = _tool_name("check_existing_", stem)
    return ToolSpec(
        name=name, kind=ToolKind.CHECK_EXISTING, group=ToolGroup.LOOKUP, target=cls,
        description=f"Look up an existing {c.label} (or subclass) instance by label; returns its IRI or none.",
        args=_model(name, label=(StrictStr, Field(min_length=1, description=f"the {c.label}'s name"))),
    )


_SUBJECT = (str, Field(min_length=1, description="IRI of the subject instance (from a create_ tool)"))


def _add_tool(tbox: TBox, prop: PropertyDef, stem: str, class_names: dict[str, str]) -> ToolSpec:
    name = _tool_name("add_", stem)
    rules = _property_rules(tbox, prop)
    head = f"Assert {prop.label} on a subject ({rules})."
    quantity = tbox.quantity_class(prop)
    if quantity is not None:
        units = ", ".join(u.name for u in units_for(quantity))
        return ToolSpec(
            name=name, kind=ToolKind.ADD_QUANTITY, group=ToolGroup.QUANTITY, target=prop.iri,
            description=f"{head} Creates a quantity of class {tbox.label_of(quantity)} with a numerical value and a "
                        f"unit "
                        f"(allowed units: {units}).{_guidance(prop.comment)}",
            args=_model(name, subject_iri=_SUBJECT,
                        value=(float, Field(description="the numerical value")),
                        unit=(str, Field(min_length=1, description=f"one of: {units} (or their symbols)"))),
        )
    if prop.kind is PropertyKind.OBJECT:
        return ToolSpec(
            name=name, kind=ToolKind.ADD_RELATION, group=ToolGroup.RELATE, target=prop.iri,
            description=f"{head}{_guidance(prop.comment)}",
            args=_model(name, subject_iri=_SUBJECT,
                        object_iri=(str, Field(min_length=1, description="IRI of the object instance"))),
        )
    if prop.kind is PropertyKind.ANY:
        return ToolSpec(
            name=name, kind=ToolKind.ADD_ANY, group=ToolGroup.RELATE, target=prop.iri,
            description=f"{head}{_guidance(prop.comment)}",
            args=_model(name, subject_iri=_SUBJECT,
                        object=(str, Field(min_length=1, description="IRI of an existing instance, or a literal "
                                                                     "value"))),
        )
    value_type: Any = Literal[prop.allowed_values] if prop.allowed_values else _literal_type(prop)
    return ToolSpec(
        name=name, kind=ToolKind.ADD_VALUE, group=ToolGroup.ATTRIBUTE, target=prop.iri,
        description=f"{head}{_guidance(prop.comment)}",
        args=_model(name, subject_iri=_SUBJECT, value=(value_type, Field(description="the literal value"))),
    )


def _literal_type(prop: PropertyDef) -> Any:
    """A value's type: its datatype's JSON type or its text (``int | str`` for an ``xsd:integer``) when the range
    is one datatype (or several of one JSON type), else text."""
    kinds = {json_type(r) for r in prop.range}
    kind = kinds.pop() if len(kinds) == 1 else None
    return str if kind is None else kind | str


def _fixed_tools(tbox: TBox) -> list[ToolSpec]:
    """Tools every catalogue has: validate, and the read-only graph look-ups."""
    return [
        ToolSpec("validate", ToolKind.VALIDATE, ToolGroup.VALIDATE,
                 "Check an instance against the ontology: reports required (min-cardinality) properties still "
                 "missing.",
                 _model("validate", instance_iri=(str, Field(min_length=1)))),
        ToolSpec("search_by_label", ToolKind.SEARCH, ToolGroup.LOOKUP,
                 "Find instances whose label contains the text (normalised), optionally of one class (by name).",
                 _model("search_by_label", text=(str, Field(min_length=1)),
                        class_name=(str | None, Field(None, description="a class name, e.g. "
                                                      + (next(iter(tbox.classes.values())).name if tbox.classes
                                                         else "Person"))),
                        limit=(int, Field(10, ge=1, le=100)))),
        ToolSpec("neighbours", ToolKind.NEIGHBOURS, ToolGroup.LOOKUP,
                 "The relations and attribute values of one instance, in both directions.",
                 _model("neighbours", iri=(str, Field(min_length=1)))),
    ]
