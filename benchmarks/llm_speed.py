"""Speed of the embedded models: prompt and generation tokens/s by threads, slots and competing load.

For every model × threads × slots × competing busy processes: start ``llama-server`` through
:class:`kgagents.servers.llama.LlamaServer`, start that many CPU-bound busy loops (the stand-in for Neo4j or a
benchmark sharing the cores), and read the server's own timings (``timings`` of each reply):

* prompt tokens/s — a new ~400-token prompt (nothing cached), 1 token generated;
* generation tokens/s — 64 tokens of a list, after a 1-token call with the same prompt (so it is cached);
* with 2+ slots, as many generation requests at once: tokens/s per request and in total (wall clock);
* the cached-prefix saving — the same long prompt again with another last line: prompt tokens evaluated.

Each measure is the best of ``tries`` (default two). The 1-minute load average before each configuration (and the
number of busy loops) is recorded with it: speed numbers mean something only with the load they were taken under.

    kgagents bench llm-speed [--model qwen2.5-coder-1.5b --model qwen2.5-coder-0.5b] [--threads 1 --threads 2]
        [--slots 1 --slots 2] [--busy 0 --busy 1] [--port 8798]

Writes benchmarks/results/llm_speed.json (``--out`` DIR to change).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks.provenance import write_results
from kgagents.config import LLMSettings
from kgagents.servers.llama import LlamaServer

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


def _measure(base: str, slots: int, tag: str, tries: int) -> dict[str, Any]:
    prompt_tps, gen_tps, totals, cached = [], [], [], []
    for attempt in range(tries):
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
    best = max(range(tries), key=lambda i: totals[i])
    return {
        "prompt_tokens_per_s": round(max(prompt_tps), 1),
        "generation_tokens_per_s_per_request": [round(x, 1) for x in gen_tps[best]],
        "generation_tokens_per_s_total": round(totals[best], 1),
        "prompt_cache": cached[0],
    }


def _busy(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def run(models: list[str], threads: list[int], slots: list[int], busy: list[int], *, out: Path, port: int = 8798,
        tries: int = 2, on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """Every configuration; writes ``<out>/llm_speed.json`` and returns the results."""
    started = time.time()
    rows: list[dict[str, Any]] = []
    for model in models:
        for n_slots in slots:
            for n_threads in threads:
                server = LlamaServer(LLMSettings(base_url=None, local_port=port, local_ctx=2048))
                status = server.start(model=model, threads=n_threads, parallel=n_slots)
                try:
                    for n_busy in busy:
                        loops = _busy(n_busy)
                        try:
                            time.sleep(2)
                            load = os.getloadavg()[0]
                            tag = f"{model} t{n_threads} s{n_slots} b{n_busy}"
                            measured = _measure(status.base_url, n_slots, tag, tries)
                            row = {"model": model, "threads": n_threads, "slots": n_slots, "busy_loops": n_busy,
                                   "load_average_1min": round(load, 2), **measured}
                        finally:
                            for p in loops:
                                p.kill()
                                p.wait()
                        on_row(row)
                        rows.append(row)
                finally:
                    server.stop()
    report: dict[str, Any] = {"tries": tries, "wall_seconds": round(time.time() - started, 1), "rows": rows}
    write_results(out, "llm/local/speed", report)
    return report
