"""Show a tool catalogue: a rich table for the terminal, markdown for results files."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from kgagents.tools.compiler import ToolCatalogue


def _summary(catalogue: ToolCatalogue) -> str:
    tbox = catalogue.tbox
    declared = sum(c.declared for c in tbox.classes.values())
    groups = ", ".join(f"{len(tools)} {group.value}" for group, tools in catalogue.by_group().items() if tools)
    return (f"{tbox.name}: {len(tbox.classes)} classes ({declared} declared, {len(tbox.classes) - declared} only "
            f"referenced), {len(tbox.properties)} properties, {len(tbox.cardinalities)} cardinality and "
            f"{len(tbox.local_ranges)} allValuesFrom axioms → {len(catalogue)} tools: {groups}")


def catalogue_table(catalogue: ToolCatalogue, width: int = 80) -> Table:
    """Every tool on one line of a ``width``-column terminal, under a row naming its group: the signature in full
    (it is what an agent calls; folded only when it takes more than half the width), the description's first
    sentence cut to the rest (``--markdown`` / ``--json`` have it whole)."""
    longest = max((len(t.signature()) for t in catalogue.tools.values()), default=10)
    tool_width = max(10, min(longest, width // 2))
    table = Table(title=_summary(catalogue), show_lines=False,
                  caption="descriptions cut to fit: --markdown FILE or --json FILE has them whole",
                  caption_justify="left")
    table.add_column("tool", overflow="fold", width=tool_width)
    table.add_column("description", no_wrap=True, overflow="ellipsis", width=max(10, width - tool_width - 7))
    for group, tools in catalogue.by_group().items():
        if not tools:
            continue
        table.add_section()
        table.add_row(f"[bold]{group.value}[/bold] ({len(tools)})", "")
        for tool in tools:
            table.add_row(escape(tool.signature()), escape(tool.description.split(". ")[0]))
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


