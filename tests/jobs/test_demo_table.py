"""The demo's summary fits an 80-column terminal: one line per job, details below the table."""

from __future__ import annotations

from rich.console import Console

from kgagents.cli.demo import summary_table
from kgagents.jobs.demo import JobSummary


def _summary(short: str, metric: str, model: str) -> JobSummary:
    return JobSummary(job=f"the {short} job", data="a long description of the data " * 3, metric=metric, score=0.5833,
                      seconds=31.24, run_id=f"{short.replace(' ', '-')}-20261129T053012-0123456789abcdef",
                      model=model, show_query="demo/show_matching", short=short)


def test_every_row_is_one_line_at_80_columns() -> None:
    rows = [_summary("matching", "F1", "none (no-LLM ablation)"), _summary("alignment", "Hits@1", "qwen2.5-coder-1.5b"),
            _summary("kgqa", "Hits@1", "qwen2.5-coder-1.5b (llama.cpp, Q4_K_M)"),
            _summary("tools check", "gold F1", "none (no-LLM ablation)")]
    console = Console(width=80, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(summary_table(rows))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    for number, row in enumerate(rows, start=1):
        [line] = [line for line in lines if f"{number} {row.short}" in line]
        assert f"{row.metric} 0.583" in line and "31 s" in line
    assert not any("a long description" in line or "0123456789abcdef" in line for line in lines)
