"""The CSV + header files ``neo4j-admin database import full`` reads, for the KG graph model of kg_common.

The files hold exactly what :func:`kgagents.loaders.kg_common.write_kg` would write transactionally — the same
labels, properties (and property types) and relationships — so a bulk-loaded graph equals a transactionally loaded
one. Node ids in the files are dense integers (``--id-type=integer``): the importer needs no string-id dictionary,
and relationships point at ``offset + entity index`` straight from :class:`KGData`'s arrays.

CSV details that matter for equality: every string is quoted (``""`` doubles a quote), so an empty string stays
an empty string; an absent value is an unquoted empty field, which the importer leaves unset (as ``SET n += {k:
null}`` does). List properties are joined with U+001F, which no element may contain, and an empty list cannot be
told apart from an absent one, so both are refused here rather than silently changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgagents.errors import BulkImportError
from kgagents.loaders.kg_common import KGData

ARRAY_DELIMITER = "\x1f"
_SCALAR_TYPES = ((bool, "boolean"), (int, "long"), (float, "double"), (str, "string"))


@dataclass
class ImportFiles:
    """One import's files and the arguments that hand them to the importer."""

    directory: Path
    nodes: list[tuple[str, Path, Path]] = field(default_factory=list)  # label, header, data
    relationships: list[tuple[str | None, Path, Path]] = field(default_factory=list)  # type (None: :TYPE column)
    multiline: bool = False  # some string holds a line break (the importer must then parse multi-line fields)
    node_count: int = 0
    relationship_count: int = 0

    def importer_args(self) -> list[str]:
        """The ``--nodes`` / ``--relationships`` / parsing options for ``neo4j-admin database import full``."""
        args = ["--id-type=integer", f"--array-delimiter=U+{ord(ARRAY_DELIMITER):04X}",
                f"--multiline-fields={'true' if self.multiline else 'false'}"]
        args += [f"--nodes={label}={header},{data}" for label, header, data in self.nodes]
        args += [f"--relationships={type_ + '=' if type_ else ''}{header},{data}"
                 for type_, header, data in self.relationships]
        return args


def _type_of(value: Any) -> str:
    """The importer's column type for one value (``string``, ``long``, ``string[]``, …)."""
    if isinstance(value, (list, tuple)):
        kinds = {_type_of(v) for v in value}
        if len(kinds) != 1 or next(iter(kinds)).endswith("[]"):
            raise BulkImportError(f"list value {value!r} is empty, nested or mixed; the bulk importer cannot store "
                                  "it as it would be stored transactionally (load without --bulk)")
        return kinds.pop() + "[]"
    for python_type, name in _SCALAR_TYPES:
        if isinstance(value, python_type):
            return name
    raise BulkImportError(f"value {value!r} of type {type(value).__name__} cannot be a Neo4j property")


def _columns(label: str, rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Property name → importer type over all rows; a property with two types is refused."""
    columns: dict[str, str] = {}
    for row in rows:
        for key, value in row.items():
            if value is None:
                continue
            kind = _type_of(value)
            if columns.setdefault(key, kind) != kind:
                raise BulkImportError(f":{label} property '{key}' has values of type {columns[key]} and {kind}; "
                                      "the importer needs one type per column (load without --bulk)")
    return dict(sorted(columns.items()))


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class ImportFilesWriter:
    """Writes KGs (and gold links between them) as import files into one directory, node ids numbered densely."""

    def __init__(self, directory: Path) -> None:
        self.files = ImportFiles(directory)
        self._next_id = 0
        self._entity_base: dict[str, int] = {}  # KG name -> id of its entity index 0

    # -- cells and files -------------------------------------------------------------------------------
    def _cell(self, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            if "\n" in value or "\r" in value:
                self.files.multiline = True
            return _quote(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return repr(value)
        if all(isinstance(v, str) for v in value):
            if any(ARRAY_DELIMITER in v for v in value):
                raise BulkImportError(f"list value {value!r} contains U+001F, the importer's list delimiter")
            return self._cell(ARRAY_DELIMITER.join(value))
        return ARRAY_DELIMITER.join(self._cell(v) for v in value)

    def _paths(self, stem: str) -> tuple[Path, Path]:
        n = len(self.files.nodes) + len(self.files.relationships)
        return self.files.directory / f"{n:03d}_{stem}.header.csv", self.files.directory / f"{n:03d}_{stem}.csv"

    def _node_file(self, label: str, columns: dict[str, str], rows: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """``:ID`` plus one typed column per property; rows are (node id, properties)."""
        header, data = self._paths(label.lower())
        header.write_text(",".join([":ID"] + [f"{k}:{t}" for k, t in columns.items()]) + "\n", encoding="utf-8")
        count = 0
        with open(data, "w", encoding="utf-8", newline="") as out:
            for node_id, props in rows:
                out.write(",".join([str(node_id)] + [self._cell(props.get(k)) for k in columns]) + "\n")
                count += 1
        self.files.nodes.append((label, header, data))
        self.files.node_count += count

    def _relationship_file(self, stem: str, type_: str | None, columns: list[str], lines: Iterator[str]) -> None:
        """Pre-formatted rows ``start,end[,type],props…`` under a header of string columns."""
        header, data = self._paths(stem)
        start = [":START_ID", ":END_ID"] + ([] if type_ else [":TYPE"])
        header.write_text(",".join(start + columns) + "\n", encoding="utf-8")
        count = 0
        with open(data, "w", encoding="utf-8", newline="", buffering=1 << 20) as out:
            for line in lines:
                out.write(line)
                count += 1
        self.files.relationships.append((type_, header, data))
        self.files.relationship_count += count

    def _take_ids(self, n: int) -> int:
        first = self._next_id
        self._next_id += n
        return first

    # -- the graph model -------------------------------------------------------------------------------
    def add_kg(self, data: KGData) -> None:
        """The KG node, its entities, relation catalogue, triples and literal statements."""
        kg = data.name
        if kg in self._entity_base:
            raise BulkImportError(f"KG '{kg}' appears twice in one bulk import")
        kg_props = {**data.props, "name": kg}
        self._node_file("KG", _columns("KG", [kg_props]), [(self._take_ids(1), kg_props)])

        base = self._entity_base[kg] = self._take_ids(len(data.entity_index))
        entity_ids = list(data.entity_index)
        entity_columns = {"kg": "string", "id": "string", "name": "string"}
        entity_columns.update(_columns("Entity", data.entities.values()))
        self._node_file("Entity", entity_columns,
                        ((base + i, {"kg": kg, "id": key, **data.entity_props(key)})
                         for i, key in enumerate(entity_ids)))

        relation_rows = [{"kg": kg, "id": key, **props} for key, props in data.relations.items()]
        rel_base = self._take_ids(len(relation_rows))
        self._node_file("Relation", _columns("Relation", relation_rows), enumerate(relation_rows, rel_base))

        # per relation index: the ",type,rel,name" tail of each of its relationship rows
        tails = [f",{self._cell(p['type'])},{self._cell(key)},{self._cell(p['name'])}\n"
                 for key, p in data.relations.items()]
        heads, rels, ends = (a.tolist() for a in data.triple_arrays())
        self._relationship_file("triples", None, ["rel", "name"],
                                (f"{base + h},{base + t}{tails[r]}" for h, r, t in zip(heads, rels, ends)))
        if data.counts()["literals"]:
            self._add_literals(data, base, tails)

    def _add_literals(self, data: KGData, base: int, tails: list[str]) -> None:
        """Literal nodes and the statements pointing at them, streamed from the KG's literal spool."""
        literal_base = self._take_ids(data.counts()["literals"])
        header, nodes = self._paths("literal")
        header.write_text(":ID,kg:string,id:string,value:string,datatype:string,lang:string\n", encoding="utf-8")
        kg = self._cell(data.name)
        rel_header, rel_data = self._paths("literal_statements")
        rel_header.write_text(":START_ID,:END_ID,:TYPE,rel,name\n", encoding="utf-8")
        count = 0
        with open(nodes, "w", encoding="utf-8", newline="", buffering=1 << 20) as out, \
                open(rel_data, "w", encoding="utf-8", newline="", buffering=1 << 20) as rel_out:
            for i, (h, r, lid, value, datatype, lang) in enumerate(data.literal_rows(), literal_base):
                out.write(f"{i},{kg},{_quote(lid)},{self._cell(value)},{self._cell(datatype)},{self._cell(lang)}\n")
                rel_out.write(f"{base + h},{i}{tails[r]}")
                count += 1
        self.files.nodes.append(("Literal", header, nodes))
        self.files.relationships.append((None, rel_header, rel_data))
        self.files.node_count += count
        self.files.relationship_count += count

    def add_gold_links(self, kg1: KGData, kg2: KGData, links: Iterable[tuple[str, str, str]], dataset: str) -> None:
        """``GOLD_LINK {dataset, split}`` from side-1 entity id to side-2 entity id (both KGs added already)."""
        index1, index2 = kg1.entity_index, kg2.entity_index
        base1, base2 = self._entity_base[kg1.name], self._entity_base[kg2.name]
        name = self._cell(dataset)
        rows = {(a, b): split for a, b, split in links}  # one link per pair, the last split wins (as MERGE … SET)
        self._relationship_file("gold_links", "GOLD_LINK", ["dataset", "split"],
                                (f"{base1 + index1[a]},{base2 + index2[b]},{name},{self._cell(split)}\n"
                                 for (a, b), split in rows.items()))

    def finish(self) -> ImportFiles:
        return self.files
