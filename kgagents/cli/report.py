"""``kgagents report``: a stored run drawn as plots and a stage table."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from kgagents.cli.common import App, connected, console, input_file, output_file
from kgagents.errors import InputFileError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

@commands.command("report")
def report_cmd(
    run_id: str = typer.Argument(..., help="id of a stored run (or the start of one), e.g. from `kgagents stats`; or "
                                 "a results file (.json) of `kgagents bench`"),
    out: Path = typer.Option(None, help="PNG to write (default: report-<run id>.png in the current directory)"),
    reference: Path = typer.Option(None, help="matching runs: score against this alignment file (default: the "
                                   "file the run was scored against, else a loaded alignment)"),
) -> None:
    """A stored run as a score histogram, precision/recall against threshold and a time/cost table per stage:
    printed here and drawn as a PNG. Given a results file, its table (no server needed)."""
    if run_id.endswith(".json") and Path(run_id).is_file():
        from rich.markdown import Markdown

        from kgagents.report.results_file import results_markdown

        console.print(Markdown(results_markdown(Path(run_id))))
        return
    if out is not None and out.suffix.lower() != ".png":
        raise InputFileError(f"--out {out}: the report is a PNG image; give a file name ending in .png.")
    output_file(out, "--out", create_folder=True)
    input_file(reference, "--reference")
    from kgagents.graph.runs import RunStore
    from kgagents.report import build_report
    from kgagents.report.plot import write_png
    from kgagents.report.terminal import show

    with connected() as graph:
        RunStore(graph).reap()
        report = build_report(graph, run_id, reference)
    show(report, console)
    path = write_png(report, out or Path(f"report-{report.run_id}.png"))
    console.print(f"plots written to {escape(str(path))}")
