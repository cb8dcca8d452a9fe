"""``kgagents llm``: the embedded offline chat model's server."""

from __future__ import annotations

from kgagents.cli.common import App, console

app = App(help="The embedded offline chat model (llama.cpp server).")


@app.command("start")
def llm_start() -> None:
    """Start the embedded model's OpenAI-compatible server on 127.0.0.1 (harmless if running)."""
    from kgagents.llm.local_server import LocalLLMServer

    with console.status("starting the embedded chat model…"):
        status = LocalLLMServer().start()
    console.print(f"{status.model} at {status.base_url} (pid {status.pid})")


@app.command("stop")
def llm_stop() -> None:
    """Stop the embedded model's server."""
    from kgagents.llm.local_server import LocalLLMServer

    console.print("stopped" if LocalLLMServer().stop() else "not running")


@app.command("status")
def llm_status() -> None:
    """Whether the embedded model's server runs, and which model it serves."""
    from kgagents.llm.local_server import LocalLLMServer

    status = LocalLLMServer().status()
    console.print(f"{status.model} at {status.base_url} (pid {status.pid})" if status.running else "not running")
