"""Speed of the embedded models: prompt and generation tokens/s by threads, slots and competing load.

For every model × threads × slots × competing busy processes: start ``llama-server`` through
:class:`kgagents.servers.llama.LlamaServer`, start that many CPU-bound busy loops (the stand-in for Neo4j or a
benchmark sharing the cores), and read the server's own timings (``timings`` of each reply):

* prompt tokens/s — a new ~400-token prompt (nothing cached), 1 token generated;
* generation tokens/s — 64 tokens of a list, after a 1-token call with the same prompt (so it is cached);
* with 2+ slots, as many generation requests at once: tokens/s per request and in total (wall clock);
* the cached-prefix saving — the same long prompt again with another last line: prompt tokens evaluated.

Each measure is the better of two tries. The 1-minute load average before each configuration (and the number
of busy loops) is recorded with it: speed numbers mean something only with the load they were taken under.

    .venv/bin/python benchmarks/llm_speed.py [--models qwen2.5-coder-1.5b qwen2.5-coder-0.5b] \
        [--threads 1 2] [--slots 1 2] [--busy 0 1] [--port 8798]

Writes benchmarks/results/llm_speed.json (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from kgagents.config import LLMSettings
from kgagents.llm.models import LOCAL_MODELS
from kgagents.servers.llama import LlamaServer

RESULTS = Path(__file__).resolve().parent / "results" / "llm_speed.json"

CONTEXT = (
    "An ontology describes the concepts of a domain and the relations between them. In a conference ontology "
    "there are papers, authors, reviewers, program committee members, sessions, tracks, deadlines, "
    "registrations, fees and venues. Ontology matching finds which concepts of two ontologies mean the same "
    "thing, for example a class named Paper in one ontology and a class named Article in another. Matchers "
    "compare names, labels, comments, superclasses and properties. "
)


def _chat(base: str, content: str, max_tokens: int) -> dict[str, Any]:
    reply = httpx.post(f"{base}/chat/completions", timeout=1800, json={
        "messages": [{"role": "user", "content": content}], "max_tokens": max_tokens, "temperature": 0,
        "cache_prompt": True})
    reply.raise_for_status()
    body: dict[str, Any] = reply.json()
    return body


def _measure(base: str, slots: int, tag: str) -> dict[str, Any]:
    prompt_tps, gen_tps, totals, cached = [], [], [], []
    for attempt in range(2):
        fresh = f"[{tag} {attempt}]\n{CONTEXT * 5}\nName one concept of this text."
        t = _chat(base, fresh, 1)["timings"]
        prompt_tps.append(t["prompt_per_second"])
        again = _chat(base, fresh.replace("Name one concept", "Name two concepts"), 1)["timings"]
        cached.append({"prompt_tokens_evaluated": again["prompt_n"], "prompt_tokens_cached": again.get("cache_n")})
        listings = [f"[{tag} {attempt} {s}] A list of 40 things found at a scientific conference, one per line:\n1."
                    for s in range(slots)]
        for listing in listings:
            _chat(base, listing, 1)
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=slots) as pool:
            replies = list(pool.map(lambda text: _chat(base, text, 64), listings))
        wall = time.perf_counter() - start
        gen_tps.append([r["timings"]["predicted_per_second"] for r in replies])
        totals.append(sum(r["timings"]["predicted_n"] for r in replies) / wall)
    best = max(range(2), key=lambda i: totals[i])
    return {
        "prompt_tokens_per_s": round(max(prompt_tps), 1),
        "generation_tokens_per_s_per_request": [round(x, 1) for x in gen_tps[best]],
        "generation_tokens_per_s_total": round(totals[best], 1),
        "prompt_cache": cached[0],
    }


def _busy(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"],
                        choices=list(LOCAL_MODELS))
    parser.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--slots", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--busy", nargs="*", type=int, default=[0, 1],
                        help="CPU-bound busy loops running during the measure (competing load)")
    parser.add_argument("--port", type=int, default=8798)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = time.time()
    rows: list[dict[str, Any]] = []
    for model in args.models:
        for slots in args.slots:
            for threads in args.threads:
                server = LlamaServer(LLMSettings(base_url=None, local_port=args.port, local_ctx=2048))
                status = server.start(model=model, threads=threads, parallel=slots)
                try:
                    for busy in args.busy:
                        loops = _busy(busy)
                        try:
                            time.sleep(2)
                            load = os.getloadavg()[0]
                            tag = f"{model} t{threads} s{slots} b{busy}"
                            print(f"== {tag} (load {load:.2f})", flush=True)
                            row = {"model": model, "threads": threads, "slots": slots, "busy_loops": busy,
                                   "load_average_1min": round(load, 2), **_measure(status.base_url, slots, tag)}
                        finally:
                            for p in loops:
                                p.kill()
                                p.wait()
                        print(json.dumps(row), flush=True)
                        rows.append(row)
                finally:
                    server.stop()
    report = {
        "command": " ".join([".venv/bin/python", "benchmarks/llm_speed.py", *sys.argv[1:]]),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                 cwd=Path(__file__).parent).stdout.strip() or None,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_at_end": os.getloadavg()},
        "wall_seconds": round(time.time() - started, 1),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
