"""What every results file records about how it was made: the command, the code, the machine, memory.

Why: a number in ``benchmarks/results/`` is only worth citing if anyone can tell which command wrote it,
from which commit, on how loaded a machine, and how much memory *both* processes used — the Python
client and the Neo4j JVM that did most of the work.
"""

from __future__ import annotations

import json
import re
import resource
import shlex
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.machine import machine_info
from kgagents.llm.models import LOCAL_MODELS
from kgagents.paths import REPO_ROOT
from kgagents.servers.llama import LlamaServer


def command_line(argv: list[str] | None = None) -> str:
    """The running command as a user types it (``kgagents …`` for the CLI entry point)."""
    argv = list(sys.argv if argv is None else argv)
    head = "kgagents" if Path(argv[0]).name == "kgagents" else " ".join(
        shlex.quote(a) for a in (Path(sys.executable).name, argv[0]))
    return " ".join([head, *(shlex.quote(a) for a in argv[1:])])


def file_slug(text: str) -> str:
    """``text`` as a file-name part: lower case, a minus sign of a number as ``minus`` (``x=-1`` and ``x=1`` must
    not share a file), runs of other characters as one ``-``."""
    signed = re.sub(r"(?<![a-z0-9.])-(?=[0-9.])", "minus", text.lower())
    return re.sub(r"[^a-z0-9.]+", "-", signed).strip("-")


def git_commit() -> str | None:
    """HEAD of the checkout the code runs from, with ``+dirty`` if its code has uncommitted changes (results
    files written by earlier benchmarks do not count)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":!benchmarks/results"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def python_peak_rss_mb() -> float:
    """Peak resident memory of this Python process so far."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


class Neo4jMemory:
    """Peak resident memory of the local Neo4j JVM during a benchmark.

    Linux keeps a process's peak (VmHWM); writing 5 to ``/proc/<pid>/clear_refs`` resets it, so the peak
    read at the end is this benchmark's alone. Only a server this machine runs (``kgagents neo4j start``,
    the configured instance) can be measured; otherwise the figure is ``None`` and says why.
    """

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.since = "not measured: Neo4j is not a local process started by kgagents"
        if pid is not None:
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
                self.since = "benchmark start (peak reset through /proc/<pid>/clear_refs)"
            except OSError:
                self.since = "server start (the peak could not be reset)"

    @classmethod
    def of_configured_server(cls) -> Neo4jMemory:
        """The configured local instance's JVM, if the configured URI is its Bolt port."""
        from kgagents.config import Neo4jSettings
        from kgagents.servers.neo4j import LocalNeo4j

        server = LocalNeo4j()
        local = Neo4jSettings().uri.rstrip("/") == server.bolt_uri
        return cls(server.pid() if local else None)

    def peak_mb(self) -> float | None:
        if self.pid is None:
            return None
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
        except OSError:
            return None
        return None

    def record(self) -> dict[str, Any]:
        return {"peak_rss_mb_neo4j": self.peak_mb(), "peak_rss_neo4j_since": self.since}


def llm_server() -> dict[str, Any] | None:
    """The embedded model server as it ran when the file was written — model, the pinned sha256 of its GGUF, server
    threads and slots — or None when it is not running. LLM speed depends on the threads as much as on the load."""
    status = LlamaServer().status()
    if not status.running:
        return None
    spec = LOCAL_MODELS.get(status.model or "")
    return {"model": status.model, "gguf_sha256": spec.sha256 if spec else None, "threads": status.threads,
            "slots": status.parallel, "ctx_per_slot": status.ctx_per_slot, "base_url": status.base_url}


def provenance() -> dict[str, Any]:
    """The fields every results file starts with: the command exactly as typed, the commit, the time, the machine
    (with its load average now; timings on a busy machine are noisy) and this process's peak memory so far."""
    return {"command": command_line(), "git_commit": git_commit(),
            "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": machine_info(),
            "python_peak_rss_mb": python_peak_rss_mb(), "llm_server": llm_server()}


def write_results(out: Path, name: str, result: dict[str, Any],
                  markdown: Callable[[dict[str, Any]], str] | None = None) -> list[Path]:
    """Write ``<out>/<name>.json`` — ``name`` is ``<job>/<dataset>/<run>`` in the results store — with
    :func:`provenance` stamped over whatever the runner put under the same keys, so no results file records a command
    other than the one typed. ``markdown`` renders the file for ``kgagents report FILE`` (recorded by name; no
    markdown twin is written). Returns the paths written (also listed in ``result["files"]``)."""
    result.update(provenance())
    if markdown is not None:
        result["renderer"] = f"{markdown.__module__}:{markdown.__qualname__}"
    path = out / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    result["files"] = [_shown(path)]
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return [path]


def _shown(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it (a results file names itself the same on every
    machine), else as given."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)
