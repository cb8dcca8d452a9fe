"""``kgagents config``: a job's settings as a run would resolve them, and a settings file to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, config_option, console, output_file

app = App(help="Job settings: where each value comes from (`show`), a settings file to edit (`template`).")


@app.command("show")
def show_cmd(
    job: str = typer.Argument(..., help="match | align | kgqa | extract"),
    model: str = typer.Option(None, "--model", help="the chat model the run would use (its own defaults apply; "
                              "default: none, the no-LLM ablation)"),
    set_: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help="a setting as a run's --set would give "
                                   "it; repeatable"),
    config: Path = config_option(),
) -> None:
    """The settings a run of JOB would use, stage by stage, and where each value comes from (argument > --set >
    --config > environment > learned gate > the model's defaults > default)."""
    from kgagents.settings import DEFAULT, chosen_by, resolve, stages
    from kgagents.settings import job as job_spec

    spec = job_spec(job)
    resolved = resolve(spec, sets=set_, config=config, model=model, offline=model is None)
    values = resolved.settings.model_dump(mode="json")
    chosen = chosen_by(spec)
    notes: dict[str, int] = {}  # results file → footnote number
    table = Table(title=f"{spec.name}: {spec.title}" + (f", model {model}" if model else ", no model"),
                  title_justify="left")
    for column in ("stage", "setting", "value", "from"):
        table.add_column(column, overflow="fold")
    for stage, names in stages(spec).items():
        for i, name in enumerate(names):
            where = resolved.sources[name]
            if where == DEFAULT and name in chosen:
                where += f" [{notes.setdefault(chosen[name], len(notes) + 1)}]"
            table.add_row(stage if i == 0 else "", name, escape(_text(values[name])), escape(where))
    console.print(table)
    for results, number in notes.items():
        console.print(escape(f"[{number}] default chosen by benchmarks/results/{results}"), highlight=False)
    console.print(escape(f"environment: {spec.env_prefix}<SETTING>"), highlight=False)


@app.command("template")
def template_cmd(
    job: str = typer.Argument(..., help="match | align | kgqa | extract"),
    out: Path = typer.Option(None, "--out", help="write it here (.toml, .yaml or .yml; default: print TOML)"),
) -> None:
    """A settings file for JOB with every setting at its default, grouped by stage, one comment each: edit it and
    pass it with --config."""
    from kgagents.settings import config_template

    output_file(out, "--out")
    text = config_template(job, yaml=out is not None and out.suffix.lower() in (".yaml", ".yml"))
    if out is None:
        console.print(escape(text), end="", highlight=False, soft_wrap=True)
        return
    out.write_text(text, encoding="utf-8")
    console.print(f"written to {out}")


def _text(value: Any) -> str:
    return "none" if value is None else ",".join(map(str, value)) if isinstance(value, list) else str(value)
