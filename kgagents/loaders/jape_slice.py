"""A small, self-consistent slice of a JAPE entity-alignment pair, written as a JAPE directory of its own.

Why: a full DBP15K / SRPRS pair is 30k+ entities whose names take about a minute to embed on two cores; a
demo or a smoke test wants the same pipeline on a few hundred links. The slice keeps a seeded random sample of
the gold links (``ref_ent_ids``), the entities on both ends of them, every triple between kept entities, the
train split restricted to the sample (``sup_ent_ids`` / ``sup_pairs``), the relation catalogues, and the
attribute rows (``training_attrs_{1,2}``) of kept entities. Ids stay as in the source, so a slice can be
compared with the full pair. Layouts with extra files keyed otherwise (DBP15K ``labels/``, ``attributes/``,
translations) are refused rather than sliced half-way.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from kgagents.errors import InputFileError

#: files the slicer understands: how each is filtered
_ENTITY_ROWS = ("ent_ids_1", "ent_ids_2")  # id, URI
_TRIPLES = ("triples_1", "triples_2")  # head, relation, tail ids
_PAIRS = ("ref_ent_ids", "sup_ent_ids", "sup_pairs", "ref_pairs")  # id1, id2
_COPIED = ("rel_ids_1", "rel_ids_2")
_ATTRIBUTES = ("training_attrs_1", "training_attrs_2")  # URI, attribute URIs…


def _rows(path: Path) -> Iterator[list[str]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if line:
                yield line.split("\t")


def slice_jape(source: Path, target: Path, *, links: int, seed: int = 0) -> Path:
    """Write a slice of the JAPE pair in ``source`` with ``links`` gold links into ``target``; returns ``target``.

    ``target``'s name becomes the dataset name when it is loaded, so name it like the source
    (``…_en_fr``) for the languages to be read from it."""
    source, target = Path(source), Path(target)
    known = set(_ENTITY_ROWS + _TRIPLES + _PAIRS + _COPIED + _ATTRIBUTES)
    present = {p.name for p in source.iterdir()}
    unknown = sorted(present - known)
    if unknown:
        raise InputFileError(f"{source}: cannot slice a JAPE pair with {', '.join(unknown)} (only "
                             f"{', '.join(sorted(known))} are understood); load the whole pair instead.")
    if "ref_ent_ids" not in present:
        raise InputFileError(f"{source}: no ref_ent_ids, so there are no gold links to sample from.")
    gold = [tuple(r[:2]) for r in _rows(source / "ref_ent_ids")]
    if links >= len(gold):
        raise InputFileError(f"{source}: asked for {links} links but the pair has {len(gold)}; load it whole.")
    chosen = set(random.Random(seed).sample(sorted(gold), links))
    keep = {side for pair in chosen for side in pair}
    target.mkdir(parents=True, exist_ok=True)
    uris: set[str] = set()
    for name in sorted(present, key=lambda n: (n not in _ENTITY_ROWS, n)):  # URIs first: attributes use them
        rows = list(_rows(source / name))
        if name in _ENTITY_ROWS:
            rows = [r for r in rows if r[0] in keep]
            uris.update(r[1] for r in rows)
        elif name in _TRIPLES:
            rows = [r for r in rows if r[0] in keep and r[2] in keep]
        elif name in _PAIRS:
            rows = [r for r in rows if tuple(r[:2]) in chosen]
        elif name in _ATTRIBUTES:
            rows = [r for r in rows if r[0] in uris]
        (target / name).write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return target
