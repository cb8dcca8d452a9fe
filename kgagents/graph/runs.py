"""Run ids: one readable, sortable form for every job's ``(:Run)`` node (``<job>-<UTC time>-<random>``)."""

from __future__ import annotations

import time
import uuid


def new_run_id(job: str) -> str:
    """A fresh run id for ``job`` (e.g. ``om``, ``kgqa``, ``extraction``): the time sorts runs, the suffix
    keeps two runs started in the same second apart."""
    return f"{job}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
