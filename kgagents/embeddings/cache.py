"""A vector per text, kept on disk across runs: a text embedded once is not embedded again by the same model.

Why: a node stores one vector per property, made from its current text (:func:`kgagents.embeddings.index.embed_nodes`
skips a node whose text is unchanged). When runs alternate between two texts for the same nodes — matching with
and without background names, which change a class's label text — every switch re-embedded every such node (6,000
anatomy classes, 13 s on 2 cores). Here each text's vector is kept under the hash of (model, text) in one SQLite
file, so switching back costs a lookup.

The file lives under ``KGAGENTS_EMBED_CACHE_DIR`` (default ``~/.cache/kgagents/vectors``);
``KGAGENTS_EMBED_CACHE=false`` turns it off. It is bounded by ``KGAGENTS_EMBED_CACHE_MB``: past it, the least
recently written quarter is dropped.
A vector read back is the float32 vector that was written, bit for bit.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from kgagents.config import EmbeddingSettings
from kgagents.embeddings.base import Embedder

#: SQLite's limit on the parameters of one statement is 32,766 (3.32+); stay well below it
_CHUNK = 900


class VectorCache:
    """Vectors by text hash in one SQLite file, shared by processes (WAL; a writer waits for another)."""

    def __init__(self, path: Path, max_mb: int = 512) -> None:
        self.path = path
        self.max_bytes = max_mb * 1024 * 1024
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS vectors (sha TEXT PRIMARY KEY, vector BLOB NOT NULL, "
                       "written INTEGER NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS vectors_written ON vectors (written)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60)

    def get(self, shas: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``shas`` (float32, as written)."""
        found: dict[str, np.ndarray] = {}
        with self._lock, self._connect() as db:
            for start in range(0, len(shas), _CHUNK):
                chunk = list(shas[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                for sha, blob in db.execute(f"SELECT sha, vector FROM vectors WHERE sha IN ({marks})", chunk):
                    found[sha] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """Keep ``(sha, vector)`` pairs; then, past the size bound, drop the least recently written quarter."""
        rows = [(sha, np.asarray(vector, dtype=np.float32).tobytes()) for sha, vector in items]
        if not rows:
            return
        with self._lock, self._connect() as db:
            (last,) = db.execute("SELECT coalesce(max(written), 0) FROM vectors").fetchone()
            db.executemany("INSERT OR REPLACE INTO vectors (sha, vector, written) VALUES (?, ?, ?)",
                           [(sha, blob, last + 1 + i) for i, (sha, blob) in enumerate(rows)])
            if self._used_bytes(db) > self.max_bytes:
                (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
                db.execute("DELETE FROM vectors WHERE written IN "
                           "(SELECT written FROM vectors ORDER BY written LIMIT ?)", (max(1, count // 4),))

    @staticmethod
    def _used_bytes(db: sqlite3.Connection) -> int:
        """The pages in use times the page size: read from the file's header, not by scanning every vector (which
        each batch's write would otherwise do, and the cache can hold hundreds of MB)."""
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        (free,) = db.execute("PRAGMA freelist_count").fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
        return int((pages - free) * size)

    def __len__(self) -> int:
        with self._lock, self._connect() as db:
            (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
        return int(count)


def embed_cached(embedder: Embedder, texts: Sequence[str], shas: Sequence[str],
                 cache: VectorCache | None) -> tuple[np.ndarray, int]:
    """Vectors for ``texts`` (``shas[i]`` the hash of ``texts[i]`` under the embedder's model): the cached ones read,
    the others embedded and kept. Returns the vectors and how many were embedded."""
    if cache is None or not texts:
        return embedder.embed(texts), len(texts)
    try:
        known = cache.get(shas)
    except sqlite3.Error:  # a locked, full or damaged cache file costs speed, never the run
        known = {}
    missing = [i for i, sha in enumerate(shas) if sha not in known]
    out = np.zeros((len(texts), embedder.dimensions), dtype=np.float32)
    if missing:
        fresh = embedder.embed([texts[i] for i in missing])
        out[missing] = fresh
        try:
            cache.put((shas[i], fresh[k]) for k, i in enumerate(missing))
        except sqlite3.Error:
            pass
    for i, sha in enumerate(shas):
        if sha in known:
            out[i] = known[sha]
    return out, len(missing)


@lru_cache(maxsize=1)
def default_cache() -> VectorCache | None:
    """The cache the environment asks for (``KGAGENTS_EMBED_CACHE*``), opened once per process; None when off or
    when its folder cannot be written (the run then embeds as before)."""
    settings = EmbeddingSettings()
    if not settings.cache:
        return None
    try:
        return VectorCache(settings.cache_dir / "vectors.sqlite", settings.cache_mb)
    except (OSError, sqlite3.Error):
        return None
