"""Execute compiled tool calls against Neo4j: one transaction per call, nothing invalid written.

Every call is checked before anything is written — arguments against the tool's pydantic model, then
the subject's class against the property's domain (with subclass reasoning), the object's class or
the literal's datatype against the range (and class-local ``allValuesFrom`` ranges), maximum
cardinality, enumerations and OM-2 units — and then written in the same transaction, which is rolled
back if anything fails. The answer is always a :class:`ToolResult`: ``{ok: true, iri, validated: true}``
or ``{ok: false, error_type, field, message, allowed_values, retryable}``, the structured feedback an
agent repairs from.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from neo4j import Transaction
from neo4j.exceptions import ConstraintError
from pydantic import BaseModel, ValidationError

from kgagents.cypher import cypher
from kgagents.errors import UnsupportedObjectError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.loaders.rdf_terms import XSD, local_name
from kgagents.tools import om2_units as om
from kgagents.tools.compiler import ToolCatalogue, ToolKind, ToolSpec
from kgagents.tools.datatypes import check_literal, describe_datatype, lexical, normalise_label
from kgagents.tools.settings import ToolSettings
from kgagents.tools.tbox import PropertyDef, PropertyKind, TBox


class ToolResult(BaseModel):
    """What a tool call returns; ``as_dict`` drops the fields that do not apply."""

    ok: bool
    iri: str | None = None
    validated: bool | None = None
    created: bool | None = None
    error_type: str | None = None
    field: str | None = None
    message: str | None = None
    allowed_values: list[str] | None = None
    retryable: bool | None = None
    data: Any = None

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


def _fail(error_type: str, field: str | None, message: str, allowed: list[str] | None = None,
          retryable: bool = True) -> ToolResult:
    return ToolResult(ok=False, error_type=error_type, field=field, message=message,
                      allowed_values=allowed or None, retryable=retryable)


class _Rejected(Exception):
    """Raised inside the transaction so that it rolls back; carries the answer."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.message)
        self.result = result


def ensure_tool_schema(graph: Graph) -> None:
    """The A-Box constraints and indexes (idempotent), online before returning."""
    graph.run_script("tools/constraints")
    graph.run("schema/await_indexes", timeout_s=300)


class ToolRuntime:
    """Runs the tools of one catalogue on one A-Box (a named set of instances in the graph)."""

    def __init__(self, graph: GraphLike, catalogue: ToolCatalogue, *, abox: str | None = None,
                 settings: ToolSettings | None = None, ensure_schema: bool = True) -> None:
        """``graph`` is a :class:`Graph`, a ``neo4j.Driver`` or a URI. ``ensure_schema=False`` skips creating the
        constraints (a caller making many runtimes did it once)."""
        if not isinstance(catalogue, ToolCatalogue):
            raise UnsupportedObjectError(f"ToolRuntime needs a ToolCatalogue (kgagents.compile_ontology(path)), not a "
                                         f"{type(catalogue).__name__}.")
        self.graph = connect(graph)
        self.catalogue = catalogue
        self.tbox: TBox = catalogue.tbox
        self.abox = abox or self.tbox.name
        self.settings = settings or ToolSettings()
        self.base = f"{self.settings.base_iri.rstrip('/')}/{quote(self.abox, safe='')}/"
        if ensure_schema:
            ensure_tool_schema(self.graph)
        self._handlers: dict[ToolKind, Callable[[Transaction, ToolSpec, Any], ToolResult]] = {
            ToolKind.CREATE: self._create, ToolKind.CHECK_EXISTING: self._check_existing,
            ToolKind.ADD_RELATION: self._add_relation, ToolKind.ADD_VALUE: self._add_value,
            ToolKind.ADD_ANY: self._add_any,
            ToolKind.ADD_QUANTITY: self._add_quantity, ToolKind.VALIDATE: self._validate,
            ToolKind.SEARCH: self._search, ToolKind.NEIGHBOURS: self._neighbours,
        }

    # -- entry point -----------------------------------------------------------------------------------
    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Validate and execute one call in its own transaction."""
        spec = self.catalogue.tools.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, list(self.catalogue.tools), n=5, cutoff=0.5)
            return _fail("unknown_tool", "name", f"No tool named '{name}' in the {self.tbox.name} catalogue.",
                         close)
        try:
            args = spec.args.model_validate(arguments or {})
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(x) for x in first["loc"]) or None
            enum = spec.input_schema["properties"].get(str(first["loc"][0]), {}).get("enum") if first["loc"] else None
            allowed = [str(x) for x in enum] if enum else None
            return _fail("invalid_arguments", field,
                         f"{name}: " + "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}"
                                                 for e in exc.errors()), allowed)
        def work(tx: Transaction) -> ToolResult:
            result = self._handlers[spec.kind](tx, spec, args)
            if not result.ok:
                raise _Rejected(result)
            return result

        # a concurrent create of the same key loses the MERGE race once, then reuses; a deadlock victim runs again
        for attempt in range(2):
            try:
                return self.graph.in_transaction(work)
            except _Rejected as rejected:
                return rejected.result
            except ConstraintError:
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    # -- identity ----------------------------------------------------------------------------------------
    def mint_iri(self, cls: str, key: str) -> str:
        """Deterministic IRI of an instance: A-Box namespace / class local name / normalised label."""
        return f"{self.base}{quote(local_name(cls), safe='')}/{quote(key.replace(' ', '_'), safe='')}"

    def _instance(self, tx: Transaction, iri: str) -> dict[str, Any] | None:
        record = tx.run(cypher("tools/instance"), abox=self.abox, iri=iri).single()
        return None if record is None else dict(record)

    def _class_names(self, classes: tuple[str, ...] | list[str]) -> list[str]:
        return [self.tbox.label_of(c) for c in classes]

    # -- create / look up ----------------------------------------------------------------------------------
    def _create(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        cls = spec.target
        assert cls is not None
        key = normalise_label(args.label)
        if not key:
            return _fail("invalid_arguments", "label", "The label is empty once quotes and spaces are removed.")
        definition = self.tbox.classes[cls]
        iri = self.mint_iri(cls, key)
        if definition.one_of:
            members = {normalise_label(self.tbox.label_of(m)): m for m in definition.one_of}
            members.update({normalise_label(local_name(m)): m for m in definition.one_of})
            if key not in members:
                return _fail("not_allowed_value", "label", f"{definition.label} is an enumeration; "
                             f"'{args.label}' is not one of its individuals.",
                             sorted(local_name(m) for m in definition.one_of))
            iri = members[key]
        existing = tx.run(cypher("tools/find_existing"), abox=self.abox, key=key,
                          classes=self.tbox.descendants(cls)).data()
        if existing:
            return ToolResult(ok=True, iri=existing[0]["iri"], validated=True, created=False)
        row = tx.run(cypher("tools/create_instance"), {"class": cls}, abox=self.abox, key=key, iri=iri,
                     label=args.label.strip(), class_name=definition.name).single(strict=True)
        return ToolResult(ok=True, iri=row["iri"], validated=True, created=True)

    def _check_existing(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        assert spec.target is not None
        rows = tx.run(cypher("tools/find_existing"), abox=self.abox, key=normalise_label(args.label),
                      classes=self.tbox.descendants(spec.target)).data()
        return ToolResult(ok=True, iri=rows[0]["iri"] if rows else None, data=rows)

    def _search(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        classes = None
        if args.class_name:
            matches = [c for c in self.tbox.classes.values() if args.class_name in (c.name, c.label)]
            if not matches:
                return _fail("invalid_arguments", "class_name", f"No class named '{args.class_name}'.",
                             difflib.get_close_matches(args.class_name, [c.name for c in self.tbox.classes.values()]))
            classes = sorted({d for m in matches for d in self.tbox.descendants(m.iri)})
        rows = tx.run(cypher("tools/search_label"), abox=self.abox, key=normalise_label(args.text),
                      classes=classes, limit=args.limit).data()
        return ToolResult(ok=True, data=rows)

    def _neighbours(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        row = tx.run(cypher("tools/neighbours"), abox=self.abox, iri=args.iri).single()
        if row is None:
            return _fail("unknown_instance", "iri", f"No instance {args.iri} in A-Box '{self.abox}'.")
        return ToolResult(ok=True, iri=args.iri, data=row.data())

    # -- assertions -----------------------------------------------------------------------------------------
    def _subject(self, tx: Transaction, prop: PropertyDef, subject: str,
                 obj: str | None = None) -> tuple[str, list[str], str | None] | ToolResult:
        """The subject's class, its current values of ``prop`` and the class of ``obj`` (one query), or why
        the subject cannot take ``prop``."""
        row = tx.run(cypher("tools/relation_state"), abox=self.abox, iri=subject, property=prop.iri,
                     object=obj).single()
        if row is None:
            creators = ", ".join(self.catalogue.for_class(ToolKind.CREATE, c).name for c in prop.domain[:3])
            return _fail("unknown_instance", "subject_iri", f"No instance {subject} in A-Box '{self.abox}'; "
                         f"create the subject first{f' ({creators})' if creators else ''} and pass the IRI it returns.")
        cls = row["class"]
        if not self.tbox.fits(cls, prop.domain):
            return _fail("domain_violation", "subject_iri",
                         f"{prop.label} applies to {' or '.join(self._class_names(prop.domain))}, "
                         f"but the subject is of class {self.tbox.label_of(cls)}.", self._class_names(prop.domain))
        return cls, row["values"], row["object_class"]

    def _cardinality(self, cls: str, prop: PropertyDef, current: list[str], new: str) -> ToolResult | None:
        if new in current:
            return None
        bound = self.tbox.max_cardinality(cls, prop.iri)
        if bound is not None and len(current) >= bound:
            return _fail("already_attached", prop.name,
                         f"Each {self.tbox.label_of(cls)} has at most {bound} {prop.label}; it already has "
                         f"{', '.join(current)}.", retryable=False)
        return None

    def _add_relation(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        prop = self.tbox.properties[spec.target or ""]
        subject = self._subject(tx, prop, args.subject_iri, args.object_iri)
        if isinstance(subject, ToolResult):
            return subject
        return self._relate(tx, prop, args.subject_iri, args.object_iri, *subject)

    def _relate(self, tx: Transaction, prop: PropertyDef, subject_iri: str, object_iri: str, cls: str,
                current: list[str], obj_cls: str | None) -> ToolResult:
        ranges = self._class_names(prop.range)
        if obj_cls is None:
            hint = (f"create it with {self.catalogue.for_class(ToolKind.CREATE, prop.range[0]).name}(label)"
                    if prop.range else "create it with a create_ tool")
            return _fail("unknown_instance", "object_iri",
                         f"object_iri must be the IRI of an existing instance; {object_iri!r} is not one "
                         f"({hint} and pass the IRI it returns).", ranges)
        local = self.tbox.local_range(cls, prop.iri)
        for allowed in (prop.range, local):
            if not self.tbox.fits(obj_cls, allowed):
                return _fail("range_violation", "object_iri",
                             f"{prop.label} of a {self.tbox.label_of(cls)} must be of class "
                             f"{' or '.join(self._class_names(allowed))}, but the object is of class "
                             f"{self.tbox.label_of(obj_cls)}.", self._class_names(allowed))
        problem = self._cardinality(cls, prop, current, object_iri)
        if problem is not None:
            return problem
        tx.run(cypher("tools/add_relation"), abox=self.abox, subject=subject_iri, object=object_iri,
               property=prop.iri, name=prop.name).consume()
        return ToolResult(ok=True, iri=subject_iri, validated=True, created=object_iri not in current)

    def _add_value(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        prop = self.tbox.properties[spec.target or ""]
        subject = self._subject(tx, prop, args.subject_iri)
        if isinstance(subject, ToolResult):
            return subject
        return self._assert_value(tx, prop, args.subject_iri, lexical(args.value), subject[0], subject[1])

    def _add_any(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        """A property whose range is open: an instance of this A-Box when ``object`` is one's IRI, else a literal."""
        prop = self.tbox.properties[spec.target or ""]
        subject = self._subject(tx, prop, args.subject_iri, args.object)
        if isinstance(subject, ToolResult):
            return subject
        cls, current, obj_cls = subject
        if obj_cls is not None:
            return self._relate(tx, prop, args.subject_iri, args.object, cls, current, obj_cls)
        return self._assert_value(tx, prop, args.subject_iri, args.object, cls, current)

    def _assert_value(self, tx: Transaction, prop: PropertyDef, subject_iri: str, raw: str, cls: str,
                      current: list[str]) -> ToolResult:
        datatypes = prop.range if prop.kind is PropertyKind.DATATYPE and prop.range else (XSD + "string",)
        checked = [(dt, v) for dt in datatypes if (v := check_literal(dt, raw)) is not None]
        if not checked:
            return _fail("datatype_violation", "value",
                         f"{prop.label} takes {' or '.join(describe_datatype(d) for d in datatypes)}; "
                         f"{raw!r} is not one.")
        datatype, value = checked[0]
        if prop.allowed_values and value not in prop.allowed_values:
            return _fail("not_allowed_value", "value", f"{prop.label} must be one of the allowed values.",
                         list(prop.allowed_values))
        problem = self._cardinality(cls, prop, current, value)
        if problem is not None:
            return problem
        tx.run(cypher("tools/add_value"), abox=self.abox, subject=subject_iri, datatype=datatype, value=value,
               property=prop.iri, name=prop.name).consume()
        return ToolResult(ok=True, iri=subject_iri, validated=True, created=value not in current)

    def _add_quantity(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        prop = self.tbox.properties[spec.target or ""]
        quantity = self.tbox.quantity_class(prop)
        assert quantity is not None
        unit = om.resolve_unit(quantity, args.unit)
        if unit is None:
            return _fail("invalid_unit", "unit", f"{args.unit!r} is not a unit of {self.tbox.label_of(quantity)}.",
                         [u.name for u in om.units_for(quantity)])
        subject = self._subject(tx, prop, args.subject_iri)
        if isinstance(subject, ToolResult):
            return subject
        cls, current, _ = subject
        value = repr(float(args.value))
        digest = hashlib.sha1(f"{args.subject_iri}|{prop.iri}|{value}|{unit.iri}".encode()).hexdigest()[:12]
        key = f"{local_name(prop.iri).lower()} {value} {unit.name.lower()} {digest}"
        quantity_iri = self.mint_iri(quantity, key)
        problem = self._cardinality(cls, prop, current, quantity_iri)
        if problem is not None:
            return problem
        row = tx.run(cypher("tools/add_quantity"), abox=self.abox, subject=args.subject_iri, key=key,
                     quantity_class=quantity, quantity_iri=quantity_iri, quantity_name=local_name(quantity),
                     measure_class=om.MEASURE, measure_iri=self.mint_iri(om.MEASURE, key),
                     label=f"{value} {unit.name}", property=prop.iri, name=prop.name,
                     unit_class=om.UNIT, unit_key=unit.name.lower(), unit_iri=unit.iri, unit_name=unit.name,
                     has_value=om.HAS_VALUE, has_unit=om.HAS_UNIT, has_numerical_value=om.HAS_NUMERICAL_VALUE,
                     double=XSD + "double", value=value).single(strict=True)
        return ToolResult(ok=True, iri=row["iri"], validated=True, created=quantity_iri not in current)

    # -- validation -------------------------------------------------------------------------------------------
    def _validate(self, tx: Transaction, spec: ToolSpec, args: Any) -> ToolResult:
        inst = self._instance(tx, args.instance_iri)
        if inst is None:
            return _fail("unknown_instance", "instance_iri", f"No instance {args.instance_iri} in A-Box '{self.abox}'.")
        missing: list[str] = []
        for prop_iri, minimum in sorted(self.tbox.required(inst["class"]).items()):
            values = tx.run(cypher("tools/relation_state"), abox=self.abox, iri=args.instance_iri, object=None,
                            property=prop_iri).single(strict=True)["values"]
            if len(values) < minimum:
                missing.append(f"{self.tbox.label_of(prop_iri)} (needs {minimum}, has {len(values)})")
        if missing:
            return _fail("missing_required", missing[0].split(" ")[0],
                         f"{inst['label']} ({self.tbox.label_of(inst['class'])}) is missing required "
                         f"properties: {'; '.join(missing)}.", [m.split(" ")[0] for m in missing])
        return ToolResult(ok=True, iri=args.instance_iri, validated=True)

    # -- whole A-Box -----------------------------------------------------------------------------------------
    def delete_abox(self) -> None:
        """Remove every instance and value of this A-Box."""
        self.graph.run("tools/delete_abox", abox=self.abox)


def delete_aboxes(graph: Graph, prefix: str) -> None:
    """Remove every A-Box whose name starts with ``prefix`` (a benchmark's per-document A-Boxes) except those of
    runs still ``running`` (their ``abox_prefix``): two benchmarks on one database keep each other's."""
    graph.run("tools/delete_aboxes", prefix=prefix)
