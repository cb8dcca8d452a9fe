"""What a benchmark ran on: cores, CPU, memory, load average (the machine is shared), software versions."""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any


def _proc_field(path: str, key: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def peak_rss_mib(pid: int | None) -> float | None:
    """A live process's peak resident memory (VmHWM), in MiB; None when it cannot be read."""
    if pid is None:
        return None
    hwm = _proc_field(f"/proc/{pid}/status", "VmHWM")
    return round(int(hwm.split()[0]) / 1024, 1) if hwm else None


def _package(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    """Cores, CPU model, total memory, load average now, platform and package versions."""
    mem = _proc_field("/proc/meminfo", "MemTotal")
    return {
        "cores": os.cpu_count(), "cpu": _proc_field("/proc/cpuinfo", "model name") or platform.processor() or None,
        "mem_total_gib": round(int(mem.split()[0]) / 2**20, 1) if mem else None,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "platform": platform.platform(), "python": sys.version.split()[0],
        "neo4j_driver": _package("neo4j"), "numpy": _package("numpy"), "kgagents": _package("kgagents"),
    }
