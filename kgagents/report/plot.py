"""A run report as one PNG: score histogram (stacked by origin), precision/recall/F1 against threshold, and the
time per stage with its LLM calls. Drawn with matplotlib's Agg backend: no display needed."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: a file backend, works on a server without a display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from kgagents.report.model import RunReport  # noqa: E402
from kgagents.report.terminal import BINS, histogram  # noqa: E402


def _scores(ax: Axes, report: RunReport) -> None:
    if not report.predictions:
        ax.text(0.5, 0.5, f"no scored {report.unit}", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    scores = [p.score for p in report.predictions]
    edges = [lo for lo, _, _ in histogram(scores, BINS)] + [max(scores)]
    if edges[0] == edges[-1]:
        edges = [edges[0] - 0.5, edges[0] + 0.5]
    groups = report.origins()
    ax.hist([[p.score for p in report.predictions if p.origin == o] for o in groups], bins=edges, stacked=True,
            label=groups)
    ax.set_xlabel(report.score_label)
    ax.set_ylabel(report.unit)
    ax.set_title(f"score histogram ({len(scores)} {report.unit})")
    ax.legend(fontsize="small")


def _curve(ax: Axes, report: RunReport) -> None:
    points = report.curve()
    if not points:
        ax.text(0.5, 0.5, "no reference loaded:\nno precision/recall", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    thresholds = [c.threshold for c in points]
    ax.step(thresholds, [c.precision for c in points], where="post", label="precision")
    ax.step(thresholds, [c.recall for c in points], where="post", label="recall")
    ax.step(thresholds, [c.f1 for c in points], where="post", label="F1")
    best = report.best()
    assert best is not None and report.reference is not None
    ax.axvline(best.threshold, color="grey", linestyle=":", label=f"best F1 {best.f1:.3f} at ≥ {best.threshold:.3f}")
    ax.set_xlabel(f"threshold on {report.score_label}")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"against {Path(report.reference.name).name}"[:70])
    ax.legend(fontsize="small")


def _stages(ax: Axes, report: RunReport) -> None:
    rows = [s for s in report.stages if s.seconds is not None or s.calls]
    if not rows:
        ax.text(0.5, 0.5, "no stage times recorded", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    names = [s.stage for s in rows]
    ax.barh(names, [s.seconds or 0.0 for s in rows], label="stage seconds")
    ax.barh(names, [s.llm_seconds for s in rows], height=0.4, label="of which LLM")
    for i, s in enumerate(rows):
        if s.calls:
            ax.annotate(f"{s.calls} calls, {s.tokens} tokens", (max(s.seconds or 0.0, s.llm_seconds), i),
                        xytext=(3, 0), textcoords="offset points", va="center", fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("seconds")
    ax.set_title("time per stage")
    ax.legend(fontsize="small")


def write_png(report: RunReport, path: Path) -> Path:
    """Draw the report into ``path`` (PNG) and return it."""
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))
    try:
        _scores(axes[0], report)
        _curve(axes[1], report)
        _stages(axes[2], report)
        fig.suptitle(report.title)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return path
