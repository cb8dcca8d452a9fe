"""A synthetic Wikidata-like KG as truthy N-Triples, for load benchmarks (no real dump is available offline).

Shape (all drawn from one seeded numpy generator, so a seed and a size give the same file every time):

* ``entities`` items ``wd:Q1 … wd:Q<entities>``, each with one English ``rdfs:label`` ("entity <n>");
  ``relations`` properties ``wd:P1 …``, each with an English label ("property <n>").
* ``triples`` distinct ``wdt:`` statements. Heads and tails follow a power law over the entity ranks
  (P(rank r) ∝ r^-``skew``), so a few hubs have very high degree and most entities low degree, as in
  Wikidata; properties are Zipf-distributed the same way over their ranks. A share ``literal_share`` of
  the statements have a literal object (a dated ``xsd:dateTime`` or a plain string, every value distinct).
* Repeated (head, property, tail) draws are dropped and re-drawn, so the file has exactly ``triples``
  distinct statements, which is what a loader must create.

The file goes wherever the caller says (benchmarks use a temp dir); it never belongs in git.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
_CHUNK = 1_000_000


@dataclass
class GeneratedKG:
    """What was generated, for the benchmark record."""

    path: str
    triples: int
    entity_triples: int
    literal_triples: int
    entities: int
    relations: int
    label_lines: int
    skew: float
    literal_share: float
    seed: int
    max_out_degree: int
    max_in_degree: int
    median_degree: float
    bytes: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def power_law(rng: np.random.Generator, n: int, size: int, skew: float) -> np.ndarray:
    """``size`` ranks in [0, n) with P(r) ∝ (r+1)^-skew (inverse-CDF of the continuous law, then floored)."""
    u = rng.random(size)
    if abs(skew - 1.0) < 1e-9:
        ranks = np.exp(u * np.log(n + 1)) - 1
    else:
        a = 1.0 - skew
        ranks = (u * ((n + 1) ** a - 1) + 1) ** (1 / a) - 1
    return np.minimum(ranks.astype(np.int64), n - 1)


def _distinct_statements(rng: np.random.Generator, triples: int, entities: int, relations: int,
                         skew: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exactly ``triples`` distinct (head, property, tail) rank triples, heads never equal to tails."""
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < triples:
        want = int((triples - len(keys)) * 1.1) + 1000
        h = power_law(rng, entities, want, skew)
        t = power_law(rng, entities, want, skew)
        r = power_law(rng, relations, want, skew)
        ok = h != t
        new = (h[ok] * relations + r[ok]) * entities + t[ok]
        merged = np.concatenate([keys, new])
        _, first = np.unique(merged, return_index=True)
        keys = merged[np.sort(first)][:triples]
    t = keys % entities
    r = (keys // entities) % relations
    h = keys // (entities * relations)
    return h, r, t


def generate_wikidata_nt(path: Path, *, triples: int, entities: int | None = None, relations: int = 300,
                         skew: float = 1.0, literal_share: float = 0.2, seed: int = 7) -> GeneratedKG:
    """Write the synthetic dump to ``path`` (see the module docstring for its shape)."""
    entities = entities or max(10, triples // 5)
    rng = np.random.default_rng(seed)
    literal_triples = int(round(triples * literal_share))
    h, r, t = _distinct_statements(rng, triples, entities, relations, skew)
    is_literal = np.zeros(triples, dtype=bool)
    is_literal[rng.choice(triples, size=literal_triples, replace=False)] = True
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as out:
        for i in range(relations):
            out.write(f'<{WD}P{i + 1}> <{LABEL}> "property {i + 1}"@en .\n')
        for lo in range(0, entities, _CHUNK):
            out.writelines(f'<{WD}Q{i + 1}> <{LABEL}> "entity {i + 1}"@en .\n'
                           for i in range(lo, min(entities, lo + _CHUNK)))
        for lo in range(0, triples, _CHUNK):
            hi = min(triples, lo + _CHUNK)
            rows = zip(range(lo, hi), h[lo:hi].tolist(), r[lo:hi].tolist(), t[lo:hi].tolist(),
                       is_literal[lo:hi].tolist(), strict=True)
            out.writelines(_line(i, a, p, b, literal) for i, a, p, b, literal in rows)
    out_degree = np.bincount(h, minlength=entities)
    in_degree = np.bincount(t[~is_literal], minlength=entities)
    return GeneratedKG(path=str(path), triples=triples, entity_triples=triples - literal_triples,
                       literal_triples=literal_triples, entities=entities, relations=relations,
                       label_lines=entities + relations, skew=skew, literal_share=literal_share, seed=seed,
                       max_out_degree=int(out_degree.max()), max_in_degree=int(in_degree.max()),
                       median_degree=float(np.median(out_degree + in_degree)), bytes=path.stat().st_size)


def _line(i: int, head: int, prop: int, tail: int, literal: bool) -> str:
    """Statement ``i``: an item object, or (literal) a string or a dateTime that no other statement has."""
    subject = f"<{WD}Q{head + 1}> <{WDT}P{prop + 1}>"
    if not literal:
        return f"{subject} <{WD}Q{tail + 1}> .\n"
    if i % 2:
        return f'{subject} "value {i}" .\n'
    day, second = divmod(i, 86400)  # statement number -> a distinct day and time of day
    year, rest = divmod(day, 336)
    return (f'{subject} "+{1800 + year:04d}-{rest // 28 + 1:02d}-{rest % 28 + 1:02d}T{second // 3600:02d}:'
            f'{second // 60 % 60:02d}:{second % 60:02d}Z"^^<{XSD_DATETIME}> .\n')
