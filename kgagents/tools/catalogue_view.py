"""Show a tool catalogue: a rich table for the terminal, markdown for results files."""

from __future__ import annotations

from rich.table import Table

from kgagents.tools.compiler import ToolCatalogue


def _summary(catalogue: ToolCatalogue) -> str:
    tbox = catalogue.tbox
    declared = sum(c.declared for c in tbox.classes.values())
    groups = ", ".join(f"{len(tools)} {group.value}" for group, tools in catalogue.by_group().items() if tools)
    return (f"{tbox.name}: {len(tbox.classes)} classes ({declared} declared, {len(tbox.classes) - declared} only "
            f"referenced), {len(tbox.properties)} properties, {len(tbox.cardinalities)} cardinality and "
            f"{len(tbox.local_ranges)} allValuesFrom axioms → {len(catalogue)} tools: {groups}")


def catalogue_table(catalogue: ToolCatalogue) -> Table:
    """Group, signature and description of every tool."""
    table = Table(title=_summary(catalogue), show_lines=False)
    for column in ("group", "tool", "description"):
        table.add_column(column, overflow="fold")
    for group, tools in catalogue.by_group().items():
        for tool in tools:
            table.add_row(group.value, tool.signature(), tool.description)
    return table


def catalogue_markdown(catalogue: ToolCatalogue, *, command: str, source: str | None = None) -> str:
    """The catalogue as markdown, recording the command that wrote it (and the T-Box, as ``source`` if given)."""
    lines = [f"# Tool catalogue: {catalogue.tbox.name}", "", f"Command: `{command}`  ",
             f"Source: `{source or catalogue.tbox.source}`", "", _summary(catalogue), ""]
    for group, tools in catalogue.by_group().items():
        if not tools:
            continue
        lines += [f"## {group.value} ({len(tools)})", "", "| tool | description |", "|---|---|"]
        lines += [f"| `{t.signature()}` | {t.description.replace('|', '/')} |" for t in tools]
        lines.append("")
    return "\n".join(lines)


