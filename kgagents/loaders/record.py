"""Provenance of every load: which file, its hash, what it produced, how long it took."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kgagents.cypher import cypher
from kgagents.graph.connection import Tx


def file_sha256(*paths: Path) -> str:
    """SHA-256 over the bytes of one or more files (a multi-file dataset hashes as one)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@dataclass
class LoadRecord:
    """One load of one source into one target (an ontology or a KG name)."""

    kind: str
    target: str
    path: str
    sha256: str
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def id(self) -> str:
        """Same file into the same target → same id, so re-loading updates the record, not duplicates it."""
        return f"{self.kind}:{self.target}:{self.sha256[:16]}"


def record_load(tx: Tx, record: LoadRecord) -> None:
    """MERGE the ``(:Load)`` node inside the load's own transaction."""
    tx.run(
        cypher("loads/record"),
        id=record.id,
        kind=record.kind,
        target=record.target,
        path=record.path,
        sha256=record.sha256,
        counts={f"count_{k}": v for k, v in record.counts.items()},
        seconds=record.seconds,
        loaded_at=datetime.now(timezone.utc).isoformat(),
    ).consume()
