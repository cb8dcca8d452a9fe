"""A run report in the terminal: score histogram as bars, precision/recall at a few thresholds, stage table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kgagents.llm.ledger import PurposeOutcomes
from kgagents.report.model import CurvePoint, RunReport, StageRow

BINS = 10
BAR_WIDTH = 40
BAR_WIDTH_WITH_ORIGINS = 20  # room for a count column per origin within 80 columns
CURVE_ROWS = 8


def histogram(scores: Sequence[float], bins: int = BINS) -> list[tuple[float, float, int]]:
    """(low, high, count) of equal-width bins over the scores' range; one bin when all scores are equal."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [(low, high, len(scores))]
    width = (high - low) / bins
    counts = [0] * bins
    for s in scores:
        counts[min(int((s - low) / width), bins - 1)] += 1
    return [(low + i * width, low + (i + 1) * width, n) for i, n in enumerate(counts)]


def _histogram_table(report: RunReport) -> RenderableType:
    """Score bins as bars; with several origins, a count column per origin named o1, o2, … (named below the table,
    so the table stays within 80 columns)."""
    origins = report.origins()
    table = Table(title=f"{report.score_label}: {len(report.predictions)} {report.unit}", title_justify="left")
    table.add_column("score")
    table.add_column(report.unit, justify="right")
    table.add_column("")
    per_origin = len(origins) > 1
    if per_origin:
        for number in range(1, len(origins) + 1):
            table.add_column(f"o{number}", justify="right")
    width = BAR_WIDTH_WITH_ORIGINS if per_origin else BAR_WIDTH
    bins = histogram([p.score for p in report.predictions])
    peak = max((n for *_, n in bins), default=1) or 1
    for i, (lo, hi, n) in enumerate(bins):
        last = i == len(bins) - 1
        inside = [p for p in report.predictions if lo <= p.score < hi or (last and p.score == hi)]
        row = [f"{lo:.3f}–{hi:.3f}", str(n), "█" * round(width * n / peak)]
        if per_origin:
            row += [str(sum(1 for p in inside if p.origin == o)) for o in origins]
        table.add_row(*row)
    if not per_origin:
        return table
    legend = "; ".join(f"o{number} = {origin}" for number, origin in enumerate(origins, start=1))
    return Group(table, Text(legend))


def _curve_rows(points: list[CurvePoint], rows: int = CURVE_ROWS) -> list[CurvePoint]:
    """A few thresholds spread over the curve, always with its ends and the best-F1 point."""
    if len(points) <= rows:
        return points
    step = (len(points) - 1) / (rows - 1)
    picked = {round(i * step) for i in range(rows)}
    best = max(range(len(points)), key=lambda i: points[i].f1)
    return [points[i] for i in sorted(picked | {best})]


def _curve_table(report: RunReport) -> RenderableType:
    assert report.reference is not None
    points = report.curve()
    best = report.best()
    table = Table(title="precision / recall against threshold", title_justify="left",
                  caption=f"reference: {escape(report.reference.name)} ({len(report.reference.pairs)} pairs)",
                  caption_justify="left")
    for column in ("score ≥", "accepted", "correct", "P", "R", "F1"):
        table.add_column(column, justify="right")
    for c in _curve_rows(points):
        style = "bold green" if c == best else None
        table.add_row(f"{c.threshold:.4f}", str(c.accepted), str(c.true_positives), f"{c.precision:.4f}",
                      f"{c.recall:.4f}", f"{c.f1:.4f}", style=style)
    return table


def _stage_table(stages: list[StageRow]) -> Table:
    table = Table(title="time and cost per stage", title_justify="left")
    for column in ("stage", "seconds", "LLM calls", "failed", "tokens", "LLM seconds", "cost"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for s in stages:
        table.add_row(escape(s.stage), "–" if s.seconds is None else f"{s.seconds:.2f}", str(s.calls),
                      str(s.failed), str(s.tokens), f"{s.llm_seconds:.1f}", f"{s.cost:.4f}")
    if stages:
        table.add_row("total", f"{sum(s.seconds or 0.0 for s in stages):.2f}", str(sum(s.calls for s in stages)),
                      str(sum(s.failed for s in stages)), str(sum(s.tokens for s in stages)),
                      f"{sum(s.llm_seconds for s in stages):.1f}", f"{sum(s.cost for s in stages):.4f}", style="bold")
    return table


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f} %"


def _outputs_table(outputs: list[PurposeOutcomes]) -> Table:
    table = Table(title="LLM output per purpose (answered calls, repairs included)", title_justify="left",
                  caption="schema: calls asked for a JSON schema / decoded under it; fallback: asked, not decoded "
                          "under it; unparsed: replies the caller could not use", caption_justify="left")
    for column in ("purpose", "calls", "schema", "fallback", "unparsed", "repairs"):
        table.add_column(column, justify="left" if column == "purpose" else "right")
    for o in outputs:
        table.add_row(escape(o.purpose), str(o.calls), f"{o.schema_asked} / {o.constrained}",
                      f"{o.fallbacks} ({_rate(o.fallback_rate)})",
                      f"{o.parse_failures} ({_rate(o.parse_failure_rate)})", str(o.repairs))
    return table


def render(report: RunReport) -> Group:
    """Everything the report shows, as rich renderables in reading order."""
    parts: list[RenderableType] = [Text(report.title, style="bold")]
    if report.scores:
        parts.append(Text("scores: " + ", ".join(f"{k} {v:.4f}" for k, v in report.scores.items())))
    parts += [Text(f"note: {n}", style="yellow") for n in report.notes]
    if report.predictions:
        parts.append(_histogram_table(report))
        if report.reference is not None:
            parts.append(_curve_table(report))
    parts.append(_stage_table(report.stages) if report.stages else Text("no stage times or LLM calls recorded"))
    if report.outputs:
        parts.append(_outputs_table(report.outputs))
    return Group(*parts)


def show(report: RunReport, console: Console) -> None:
    console.print(render(report))
