"""The layers of the package, checked on the import statements of every module (no import is executed).

* The library never imports the benchmarks (``benchmarks`` plugs its commands into the CLI instead).
* Pure scorers (:mod:`kgagents.metrics`) never touch the graph: no ``kgagents.graph``, ``kgagents.cypher`` or driver.
* The connection layer and the run store (:mod:`kgagents.graph`) depend on nothing above them.
* Nothing below the CLI imports the CLI, and nothing below the jobs imports the jobs.
* No two modules import each other, directly or through others (a cycle is a layering mistake).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kgagents"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


MODULES = {_module(p): p for p in PACKAGE.rglob("*.py")}
IMPORTS = {name: {i for i in _imports(path)} for name, path in MODULES.items()}


def _offenders(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(f"{m} imports {i}" for m, imports in IMPORTS.items() if m == layer or m.startswith(layer + ".")
                  for i in imports if any(i == f or i.startswith(f + ".") for f in forbidden))


def test_the_library_never_imports_the_benchmarks() -> None:
    assert _offenders("kgagents", ("benchmarks",)) == []


@pytest.mark.parametrize("layer, forbidden", [
    ("kgagents.metrics", ("kgagents.graph", "kgagents.cypher", "neo4j", "kgagents.jobs", "kgagents.agent",
                          "kgagents.cli")),
    ("kgagents.graph", ("kgagents.agent", "kgagents.jobs", "kgagents.cli", "kgagents.loaders", "kgagents.tools",
                        "kgagents.report", "kgagents.metrics", "kgagents.servers")),
    ("kgagents.cypher", ("kgagents.graph", "kgagents.agent", "kgagents.jobs", "kgagents.cli")),
    ("kgagents.agent", ("kgagents.jobs", "kgagents.cli", "kgagents.report")),
    ("kgagents.loaders", ("kgagents.agent", "kgagents.jobs", "kgagents.cli", "kgagents.report")),
    ("kgagents.jobs", ("kgagents.cli",)),
    ("kgagents.report", ("kgagents.cli", "kgagents.jobs")),
])
def test_a_layer_does_not_import_the_layers_above_it(layer: str, forbidden: tuple[str, ...]) -> None:
    assert _offenders(layer, forbidden) == []


def test_no_import_cycles_between_modules() -> None:
    graph = {m: {i for i in imports if i in MODULES and i != m} for m, imports in IMPORTS.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    # a package's __init__ re-exporting its own modules is not a cycle of layers
    real = [c for c in cycles if not all(m.startswith(c[0].rsplit(".", 1)[0]) for m in c)]
    assert real == [], "\n".join(" → ".join(c) for c in real)
