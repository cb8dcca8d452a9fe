"""Turn the model's entities and facts into tool calls: the agent's only way to write.

An entity becomes ``create_<Class>(label)``. A fact ``(subject, relation, object)`` becomes the relation's
``add_`` tool after its subject and object are resolved to instances: an entity handle (``E2``) or a name the
text's entities already have is that instance; a name no entity has is created with the class the relation's
signature gives it (its domain for a subject, its range for an object — what ``rdfs:domain`` / ``rdfs:range``
entail); an explicit ``subject_class`` / ``object_class`` (a repair that re-types an entity) creates it with
that class. Values go to datatype properties as written and are checked by the tool. Whatever the tools
refuse comes back as their structured result; nothing invalid is written.

Entities are kept as plain dicts (``handle``, ``iri``, ``class``, ``class_label``, ``label``) so they live in the
graph state and survive a checkpoint.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgagents.tools.compiler import ToolKind
from kgagents.tools.datatypes import normalise_label
from kgagents.tools.feed import parse_quantity, property_named
from kgagents.tools.runtime import ToolRuntime

Entity = dict[str, str]
Call = dict[str, Any]

HANDLE = re.compile(r"^\s*[Ee](\d+)\b")


class FactWriter:
    """Writes one document's entities and facts into ``runtime``'s A-Box; ``entities`` and ``calls`` grow."""

    def __init__(self, runtime: ToolRuntime, entities: Sequence[Entity] = ()) -> None:
        self.runtime = runtime
        self.tbox = runtime.tbox
        self.entities: list[Entity] = [dict(e) for e in entities]
        self.calls: list[Call] = []

    # -- entities ----------------------------------------------------------------------------------------
    def class_iri(self, label: str) -> str | None:
        """The class a label (or name) names, case-insensitively."""
        wanted = label.strip().casefold()
        return next((c.iri for c in self.tbox.classes.values() if wanted in (c.label.casefold(), c.name.casefold())),
                    None)

    def create(self, label: str, cls: str, step: str) -> str | None:
        """``create_<cls>(label)``; the instance's IRI (a new handle when it is new to this document)."""
        tool = self.runtime.catalogue.for_class(ToolKind.CREATE, cls).name
        result = self._call(step, tool, {"label": label})
        if not result.get("ok"):
            return None
        iri = result["iri"]
        if not any(e["iri"] == iri for e in self.entities):
            self.entities.append({"handle": f"E{len(self.entities) + 1}", "iri": iri, "class": cls,
                                  "class_label": self.tbox.label_of(cls), "label": " ".join(label.split())})
        return iri

    def find(self, text: str, wanted: tuple[str, ...] = ()) -> Entity | None:
        """The entity ``text`` refers to: its handle, else its name (one whose class fits ``wanted`` first)."""
        handle = HANDLE.match(text)
        if handle is not None:
            found = next((e for e in self.entities if e["handle"] == f"E{handle.group(1)}"), None)
            if found is not None:
                return found
        key = normalise_label(text)
        named = [e for e in self.entities if normalise_label(e["label"]) == key]
        return next((e for e in named if self.tbox.fits(e["class"], wanted)), named[0] if named else None)

    def node(self, text: str, wanted: tuple[str, ...], explicit: str | None, step: str) -> str | None:
        """The instance IRI for a subject or object (see the module docstring), or None."""
        cls = self.class_iri(explicit) if explicit else None
        if cls is not None:
            known = self.find(text)
            return self.create(known["label"] if known is not None else text, cls, step)
        found = self.find(text, wanted)
        if found is not None:
            return found["iri"]
        return self.create(text, wanted[0], step) if wanted else None

    # -- facts -------------------------------------------------------------------------------------------
    def assert_fact(self, fact: dict[str, str], step: str) -> dict[str, Any]:
        """Write one fact through its ``add_`` tool; the tool's result."""
        prop = property_named(self.runtime, fact["relation"])
        if prop is None:  # an unconstrained model named a relation the ontology lacks: the runtime says so
            return self._call(step, f"add_{fact['relation'].replace(' ', '_')}",
                              {"subject_iri": fact["subject"], "object_iri": fact["object"]})
        spec = self.runtime.catalogue.for_property(prop.iri)
        subject = self.node(fact["subject"], prop.domain, fact.get("subject_class"), step) or fact["subject"]
        args: dict[str, Any] = {"subject_iri": subject}
        if spec.kind is ToolKind.ADD_RELATION:
            args["object_iri"] = self.node(fact["object"], prop.range, fact.get("object_class"), step) \
                or fact["object"]
        elif spec.kind is ToolKind.ADD_ANY:
            found = self.node(fact["object"], (), fact.get("object_class"), step)
            args["object"] = found or fact["object"]
        elif spec.kind is ToolKind.ADD_QUANTITY:
            args |= parse_quantity(fact["object"])
        else:
            entity = self.find(fact["object"]) if HANDLE.match(fact["object"]) else None
            args["value"] = entity["label"] if entity is not None else fact["object"]
        return self._call(step, spec.name, args)

    def _call(self, step: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = self.runtime.call(tool, args).as_dict()
        self.calls.append({"step": step, "tool": tool, "args": args, "result": result})
        return result
