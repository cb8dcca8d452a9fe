"""Entity-alignment pairs in the JAPE directory format (DBP15K, SRPRS) → two KGs plus gold links.

A JAPE directory holds two KGs side by side, numbered with integer ids shared by both sides:
``ent_ids_{1,2}`` (id, URI), ``rel_ids_{1,2}`` (id, URI), ``triples_{1,2}`` (head, relation, tail ids) and the
gold alignment ``ref_ent_ids`` (id₁, id₂). Optional extras, used when present:

* ``sup_pairs`` / ``ref_pairs`` (DBP15K: train / test split) or ``sup_ent_ids`` (SRPRS: train; the rest of
  ``ref_ent_ids`` is test). Without any split file every gold link is ``test``.
* ``ent_ids_{n}_translated`` (or ``_trans_goo``), ``rel_ids_{n}_translated``: machine-translated English names
  (``name_en``).
* ``ent_ids_{n}_<lang>`` (e.g. ``ent_ids_1_zh``): the layout in which ``ent_ids_{n}`` carries the translated
  names and this file the native URIs. The native URI becomes the entity id, the translation ``name_en``.
* ``ill_ent_ids``: every gold link (GCN-Align / RDGCN layout) when ``ref_ent_ids`` is absent or holds only the
  test links.
* ``labels/s_labels``, ``labels/t_labels``: URI, native label (``label``), label in the other language
  (``label_<other lang>``; for the Chinese side of DBP15K this is a second English translation).
* attribute NAMES per entity — ``attributes/entity2att_<lang>.txt`` + ``attr2id_<lang>.txt`` +
  ``entity2id_<lang>.txt`` (own numbering, joined by URI; DBP15K) or ``training_attrs_{n}`` (URI then attribute
  URIs; SRPRS). Only the names exist in these datasets, no values, so ``Entity.attributes`` is a list of
  attribute local names (e.g. ``birthDate``).

Each side becomes a KG named ``<name>:<lang>``. Languages: the ``langs`` option, else a directory name ending
``_<l1>_<l2>``, else the suffixes of ``ent_ids_{n}_<lang>`` files, else ``1``/``2``. Gold links are
``(:Entity)-[:GOLD_LINK {dataset, split}]->(:Entity)`` from side 1 to side 2. ``train_ratio`` replaces the split
files with a seeded random split of all gold links (``split_seed``), for downloads that ship no split.

Every problem with the files (bad columns, unknown ids, non-UTF-8 bytes, a gold file with no links) is a
:class:`ParseError` naming file and line, raised before anything is written. A relation or attribute URI whose short
name can be no relationship type (empty, all whitespace) is no problem: it is stored under a derived name
(:func:`~kgagents.loaders.kg_common.safe_type`) and counted in the load report.

The whole pair is written in ONE transaction (≈40k nodes and 165k relationships for DBP15K fit easily in a
2 GB heap), so a failed load leaves nothing behind and a re-run just completes it. Loading a pair again under the
same name REPLACES it: sides an earlier load wrote under other languages (``langs``) or from other files are
deleted, the gold links are written afresh (so another ``train_ratio`` or seed gives only the new split), and the
``(:Load)`` record holds this load's counts alone.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from kgagents.cypher import cypher
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph, Tx
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.kg_common import KGData, KGLoadResult, Progress, local_name, readable_name, write_kg
from kgagents.loaders.record import LoadRecord, file_sha256, record_load

_LANGS = re.compile(r"_([a-z]{2,3})_([a-z]{2,3})$")
_NATIVE_IDS = re.compile(r"^ent_ids_([12])_([a-z]{2,3})$")
#: files giving every gold link, in order of preference; ``ref_pairs`` (test) and the ``sup_*`` (train) refine them
_ALL_LINKS = ("ill_ent_ids", "ref_ent_ids")


class EAPairLoadResult(BaseModel):
    """What loading one entity-alignment pair produced."""

    name: str
    kgs: list[KGLoadResult]
    gold_links: dict[str, int]
    files: list[str]
    parse_seconds: float
    seconds: float = Field(description="parse + write + commit")


def load_jape_pair(graph: Graph, directory: Path | str, *, name: str | None = None,
                   langs: tuple[str, str] | None = None, train_ratio: float | None = None, split_seed: int = 0,
                   progress: Progress | None = None) -> EAPairLoadResult:
    """Parse a JAPE directory completely, then write both KGs and the gold links in one transaction.

    ``langs``: the two sides' language codes (overrides the directory name); ``train_ratio``: split all gold
    links at random (seeded by ``split_seed``) into this share of train links and test links, instead of the
    directory's split files.
    """
    start = time.perf_counter()
    parsed = parse_jape_pair(directory, name=name, langs=langs, train_ratio=train_ratio, split_seed=split_seed)
    pair, sides, gold = parsed.pair, parsed.sides, parsed.gold
    parse_seconds = time.perf_counter() - start
    ensure_schema(graph)
    with graph.transaction() as tx:
        _replace_previous_load(tx, pair.name, sides)
        results = [write_kg(graph, tx, side, progress) for side in sides]
        graph.write_rows(tx, "kg/merge_gold_links",
                         ({"a": pair.uri(1, a), "b": pair.uri(2, b), "split": split} for a, b, split in gold),
                         on_batch=progress, kg1=sides[0].name, kg2=sides[1].name, dataset=pair.name)
        splits = parsed.splits()
        record_load(tx, LoadRecord(kind="ea_pair", target=pair.name, path=str(pair.dir),
                                   sha256=parsed.sha256, counts=parsed.counts(),
                                   seconds=time.perf_counter() - start))
    seconds = time.perf_counter() - start
    for r in results:
        r.seconds = seconds
    return EAPairLoadResult(name=pair.name, kgs=results, gold_links=splits,
                            files=[str(p.relative_to(pair.dir)) for p in pair.used], parse_seconds=parse_seconds,
                            seconds=seconds)


@dataclass
class ParsedPair:
    """A JAPE directory read completely: both sides, the gold links (JAPE ids, split) and the files' hash."""

    pair: _JapeDirectory
    sides: list[KGData]
    gold: list[tuple[int, int, str]]
    sha256: str

    def gold_uris(self) -> list[tuple[str, str, str]]:
        return [(self.pair.uri(1, a), self.pair.uri(2, b), split) for a, b, split in self.gold]

    def counts(self) -> dict[str, int]:
        """The ``(:Load)`` record's counts: entities, relations, triples (and derived types, when any) per side, gold
        links per split."""
        counts = {f"{k}_{side.name.rsplit(':', 1)[1]}": v for side in self.sides
                  for k, v in side.counts().items() if k != "literals" and (v or k != "derived_types")}
        counts.update({f"gold_{s}": n for s, n in self.splits().items()})
        return counts

    def splits(self) -> dict[str, int]:
        return {s: sum(1 for *_, split in self.gold if split == s) for s in ("train", "test")}


def parse_jape_pair(directory: Path | str, *, name: str | None = None, langs: tuple[str, str] | None = None,
                    train_ratio: float | None = None, split_seed: int = 0) -> ParsedPair:
    """Read and check a whole JAPE directory (every problem is a ParseError naming file and line); each side's
    KG properties record the hash of the files read, so a re-load can tell the same files from others."""
    if train_ratio is not None and not 0.0 <= train_ratio < 1.0:
        raise ParseError(str(directory), None, f"train ratio {train_ratio} is outside [0, 1)")
    pair = _JapeDirectory(Path(directory), name, langs)
    sides = [pair.parse_side(1), pair.parse_side(2)]
    gold = pair.parse_gold(train_ratio, split_seed)
    sha256 = file_sha256(*pair.used)
    for side in sides:
        side.props["sha256"] = sha256
    return ParsedPair(pair, sides, gold, sha256)


def _replace_previous_load(tx: Tx, name: str, sides: list[KGData]) -> None:
    """Make room for this load of pair ``name``: its gold links go (they are written again with this load's
    split), and so does every side an earlier load wrote under another name (other ``langs``) or from other
    files. A side read from the same files is kept, so a re-run only completes it."""
    wanted = {side.name: side.props["sha256"] for side in sides}
    for row in tx.run(cypher("kg/pair_sides"), pair=name).data():
        if wanted.get(row["name"]) != row["sha256"]:
            tx.run(cypher("kg/delete_kg_in_tx"), kg=row["name"]).consume()
    tx.run(cypher("kg/delete_gold_links"), dataset=name).consume()


def replace_previous_sides(graph: Graph, name: str, sides: list[KGData]) -> None:
    """:func:`_replace_previous_load` for a batched load, which cannot hold it in one transaction: earlier sides
    of other names or files are deleted (in batches) and the gold links go, before the first batch."""
    from kgagents.loaders.kg_common import delete_kg

    wanted = {side.name: side.props["sha256"] for side in sides}
    for row in graph.run("kg/pair_sides", pair=name):
        if wanted.get(row["name"]) != row["sha256"]:
            delete_kg(graph, row["name"])
    graph.run("kg/delete_gold_links", dataset=name)


def gold_links(graph: Graph, dataset: str) -> list[tuple[str, str, str]]:
    """(side-1 entity id, side-2 entity id, split) of every gold link of a loaded pair, sorted."""
    return [(r["source"], r["target"], r["split"]) for r in graph.run("kg/gold_links", dataset=dataset)]


def _rows(path: Path, min_cols: int, max_cols: int | None = None, *, header_count: bool = False
          ) -> Iterator[tuple[int, list[str]]]:
    """(line number, tab-separated fields) of a JAPE file; blank lines skipped, bad column counts rejected.

    ``header_count``: the first line is the number of records that follow (MuGNN attribute files).
    """
    with open(path, "rb") as fh:
        declared: int | None = None
        seen = 0
        for lineno, raw in enumerate(fh, 1):
            line = _decode(path, lineno, raw).rstrip("\r\n")
            if not line.strip():
                continue
            if header_count and declared is None:
                if not line.strip().isdigit():
                    raise ParseError(str(path), lineno, f"expected a record count on the first line, got {line!r}")
                declared = int(line)
                continue
            fields = line.split("\t")
            if len(fields) < min_cols or (max_cols is not None and len(fields) > max_cols):
                want = f"{min_cols}" if max_cols == min_cols else f"at least {min_cols}"
                raise ParseError(str(path), lineno, f"expected {want} tab-separated fields, got {len(fields)}")
            seen += 1
            yield lineno, fields
        if declared is not None and declared != seen:
            raise ParseError(str(path), None, f"first line declares {declared} records but {seen} follow")


def _decode(path: Path, lineno: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), lineno, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                         "re-encode the file as UTF-8, e.g. `iconv -f latin1 -t utf-8`") from None


def _int(path: Path, lineno: int, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParseError(str(path), lineno, f"expected an integer id, got {text!r}") from None


class _JapeDirectory:
    """Reads one JAPE directory; remembers which files it used (they are hashed for the load record)."""

    def __init__(self, directory: Path, name: str | None, langs: tuple[str, str] | None = None) -> None:
        if not (directory / "ent_ids_1").is_file():
            raise ParseError(str(directory), None, "not a JAPE directory (no ent_ids_1 file)")
        self.dir = directory
        self.name = name or directory.name
        natives = {side: sorted(m.group(2) for p in directory.iterdir() if (m := _NATIVE_IDS.match(p.name))
                                and m.group(1) == str(side)) for side in (1, 2)}
        match = _LANGS.search(directory.name)
        if langs is not None:
            if len(langs) != 2 or langs[0] == langs[1] or not all(langs):
                raise ParseError(str(directory), None, f"languages {langs} must be two different codes, e.g. zh,en")
            self.langs = (langs[0], langs[1])
        elif match:
            self.langs = (match.group(1), match.group(2))
        elif all(len(natives[side]) == 1 for side in (1, 2)):
            self.langs = (natives[1][0], natives[2][0])
        else:
            self.langs = ("1", "2")
        #: side -> the file with native URIs when ent_ids_<side> holds translated names
        self.native = {side: f"ent_ids_{side}_{self.langs[side - 1]}" for side in (1, 2)
                       if self.langs[side - 1] in natives[side]}
        self.used: list[Path] = []
        self.ents: dict[int, dict[int, str]] = {}  # side -> JAPE id -> URI

    def kg_name(self, side: int) -> str:
        return f"{self.name}:{self.langs[side - 1]}"

    def uri(self, side: int, eid: int) -> str:
        return self.ents[side][eid]

    def _file(self, relative: str, *, required: bool = False) -> Path | None:
        path = self.dir / relative
        if not path.is_file():
            if required:
                raise ParseError(str(path), None, "required JAPE file is missing")
            return None
        self.used.append(path)
        return path

    def _ids(self, relative: str) -> dict[int, str]:
        """Id → URI of one id file."""
        path = self._file(relative, required=True)
        assert path is not None
        ids: dict[int, str] = {}
        for lineno, (num, uri) in _rows(path, 2, 2):
            key = _int(path, lineno, num)
            if key in ids:
                raise ParseError(str(path), lineno, f"id {key} appears twice")
            ids[key] = uri
        return ids

    def _known(self, path: Path, lineno: int, table: dict[int, str], text: str, what: str) -> str:
        key = _int(path, lineno, text)
        if key not in table:
            raise ParseError(str(path), lineno, f"{what} id {key} is not in the {what} id file")
        return table[key]

    def parse_side(self, side: int) -> KGData:
        lang, other = self.langs[side - 1], self.langs[2 - side]
        kg = KGData(self.kg_name(side), {"source": str(self.dir), "format": "jape", "pair": self.name,
                                         "lang": lang, "side": side})
        translated = self._ids(f"ent_ids_{side}")
        native = self.native.get(side)
        ents = self.ents[side] = self._ids(native) if native else translated
        rels = self._ids(f"rel_ids_{side}")
        for eid, uri in ents.items():
            kg.entity(uri, eid=eid, name=readable_name(uri))
        if native:
            for eid, uri in translated.items():
                if eid not in ents:
                    raise ParseError(str(self.dir / f"ent_ids_{side}"), None,
                                     f"entity id {eid} has a translated name but no native URI in {native}")
                kg.entities[ents[eid]]["name_en"] = readable_name(uri)
        for rid, uri in rels.items():
            kg.relation(uri, name=readable_name(uri), type=local_name(uri), eid=rid)  # odd names: safe_type
        triples = self._file(f"triples_{side}", required=True)
        assert triples is not None
        for lineno, (h, r, t) in _rows(triples, 3, 3):
            kg.triple(self._known(triples, lineno, ents, h, "entity"),
                      self._known(triples, lineno, rels, r, "relation"),
                      self._known(triples, lineno, ents, t, "entity"))
        self._translations(kg, side, ents, rels)
        self._labels(kg, side, other)
        self._attributes(kg, side, lang)
        return kg

    def _translations(self, kg: KGData, side: int, ents: dict[int, str], rels: dict[int, str]) -> None:
        for kind, table, target in (("ent", ents, kg.entities), ("rel", rels, kg.relations)):
            path = self._file(f"{kind}_ids_{side}_translated") or self._file(f"{kind}_ids_{side}_trans_goo")
            if path is None:
                continue
            for lineno, (num, translated) in _rows(path, 2, 2):
                uri = self._known(path, lineno, table, num, "entity" if kind == "ent" else "relation")
                target[uri]["name_en"] = readable_name(translated)

    def _labels(self, kg: KGData, side: int, other: str) -> None:
        path = self._file(f"labels/{'st'[side - 1]}_labels")
        if path is None:
            return
        for lineno, (uri, label, translated) in _rows(path, 3, 3):
            self._check_entity(kg, path, lineno, uri)
            kg.entity(uri, label=label.strip() or None, **{f"label_{other}": translated.strip() or None})
            if "name_en" not in kg.entities[uri] and "label_en" in kg.entities[uri]:
                kg.entities[uri]["name_en"] = kg.entities[uri]["label_en"]

    def _attributes(self, kg: KGData, side: int, lang: str) -> None:
        """Attribute names per entity, from the MuGNN files (DBP15K) or training_attrs_<side> (SRPRS)."""
        names: dict[str, list[str]] = {}
        att = self._file(f"attributes/entity2att_{lang}.txt")
        if att is not None:
            own_ids = self._file(f"attributes/entity2id_{lang}.txt", required=True)
            attr_ids = self._file(f"attributes/attr2id_{lang}.txt", required=True)
            assert own_ids is not None and attr_ids is not None
            uri_of = {_int(own_ids, n, num): uri for n, (uri, num) in _rows(own_ids, 2, 2, header_count=True)}
            attr_of = {_int(attr_ids, n, num): kg.attribute_name(uri, local_name(uri))
                       for n, (uri, num) in _rows(attr_ids, 2, 2, header_count=True)}
            for lineno, (num, *attrs) in _rows(att, 1, header_count=True):
                uri = self._known(att, lineno, uri_of, num, "entity2id entity")
                names[uri] = [self._known(att, lineno, attr_of, a, "attribute") for a in attrs]
                self._check_entity(kg, att, lineno, uri)
        training = self._file(f"training_attrs_{side}")
        if training is not None:
            for lineno, (uri, *attrs) in _rows(training, 1):
                names[uri] = [kg.attribute_name(a, local_name(a)) for a in attrs]
                self._check_entity(kg, training, lineno, uri)
        for uri, attrs in names.items():
            if attrs:
                kg.entities[uri]["attributes"] = list(dict.fromkeys(attrs))

    @staticmethod
    def _check_entity(kg: KGData, path: Path, lineno: int, uri: str) -> None:
        if uri not in kg.entities:
            raise ParseError(str(path), lineno, f"{uri} is not an entity of {kg.name}")

    def parse_gold(self, train_ratio: float | None = None, seed: int = 0) -> list[tuple[int, int, str]]:
        """(id₁, id₂, split) of every gold link, each once. All links: ``ill_ent_ids``, else ``ref_ent_ids``
        (plus the split files' links). Split: ``train_ratio`` given → seeded random split of all links; else train
        from ``sup_pairs`` / ``sup_ent_ids`` and test = ``ref_pairs``, or every other link."""
        train = self._pairs("sup_pairs") or self._pairs("sup_ent_ids") or {}
        test = self._pairs("ref_pairs")
        every = None
        if test is None or train_ratio is not None:
            every = next((p for p in map(self._pairs, _ALL_LINKS) if p is not None), None)
        if every is None and test is None:
            raise ParseError(str(self.dir / "ref_ent_ids"), None,
                             "gold links missing (no ref_ent_ids, ill_ent_ids or ref_pairs): an entity-alignment "
                             "pair needs its gold links")
        links = list(dict.fromkeys([*(every or {}), *train, *(test or {})]))
        if train_ratio is not None:
            shuffled = sorted(links)
            random.Random(seed).shuffle(shuffled)
            cut = round(train_ratio * len(shuffled))
            chosen, rest = shuffled[:cut], shuffled[cut:]
        else:
            chosen = list(train)
            rest = list(test) if test is not None else [pair for pair in links if pair not in train]
        taken = set(chosen)
        return [(a, b, "train") for a, b in chosen] + [(a, b, "test") for a, b in rest if (a, b) not in taken]

    def _pairs(self, relative: str) -> dict[tuple[int, int], int] | None:
        """Gold pairs of one file (pair → line), checked against both sides' entity ids."""
        path = self._file(relative)
        if path is None:
            return None
        pairs: dict[tuple[int, int], int] = {}
        for lineno, (a, b) in _rows(path, 2, 2):
            self._known(path, lineno, self.ents[1], a, "side-1 entity")
            self._known(path, lineno, self.ents[2], b, "side-2 entity")
            pairs.setdefault((int(a), int(b)), lineno)
        if not pairs:
            raise ParseError(str(path), None, "has no gold links (the file is empty): fix or remove it, or load a "
                             "complete copy of the dataset")
        return pairs

