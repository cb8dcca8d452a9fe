"""The EA-Agent paper's trajectory reward γ = γ_μ + c·γ_ref + e^(−β·l), and trajectory export.

Definitions used here (α = 0.5, β = 0.2 as in the paper):

* γ_μ — correctness of the final answer: 1 if it equals the gold target, 0 if not. Undefined in the paper
  when no gold is known (an unlabelled source): we use α (0.5), i.e. "no evidence either way".
* γ_ref = α — the weight of the reflector's effect.
* c — what the reflector did: +1 it changed a wrong answer to the right one, −1 it changed a right answer to a
  wrong one, 0 otherwise. The paper leaves open (a) a change from one wrong answer to another wrong one,
  (b) a reflector that was not on the path, (c) unknown gold: all three are c = 0 here (nothing was gained or
  lost that can be measured).
* l — the path length (number of tools; the no-LLM path ``retrieval_top1`` counts 1), so shorter paths earn
  more: e^(−0.2·2) ≈ 0.670, e^(−0.2·4) ≈ 0.449.

Trajectory rewriting: the paper has an LLM rewrite low-reward paths. Every run stores a reward-guided RULE
rewrite (:func:`rewrite_path`): drop the reflector when it did not change the answer and the top scores were not
close, and drop a selector that selected nothing. The LLM rewriting prompt is
:class:`kgagents.agent.alignment.rewriter.LLMPathRewriter`, applied when trajectories are exported
(``kgagents ea export --llm-rewrite``). The JSONL lines are
``{query (the statistics), path, reward, rewritten_path}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kgagents.agent.alignment.planner import CLOSE_MARGIN
from kgagents.agent.alignment.tools import REFLECTOR, SELECTORS

ALPHA = 0.5
BETA = 0.2


def reflector_effect(initial: str | None, final: str | None, gold: str | None, *, reflected: bool) -> int:
    """c: +1 wrong → right, −1 right → wrong, 0 otherwise (no reflector, no change, wrong → wrong, no gold)."""
    if not reflected or gold is None or initial == final:
        return 0
    if final == gold:
        return 1
    if initial == gold:
        return -1
    return 0


def reward(*, path: Sequence[str], initial: str | None, final: str | None, gold: str | None,
           alpha: float = ALPHA, beta: float = BETA) -> float:
    """γ = γ_μ + c·γ_ref + e^(−β·l) for one trajectory (see the module docstring for the definitions)."""
    gamma_mu = alpha if gold is None else float(final == gold)
    c = reflector_effect(initial, final, gold, reflected=REFLECTOR in path)
    return gamma_mu + c * alpha + math.exp(-beta * len(path))


def rewrite_path(path: Sequence[str], *, initial: str | None, final: str | None, margin: float,
                 empty_selectors: Iterable[str] = (), close_margin: float = CLOSE_MARGIN) -> list[str]:
    """The reward-guided rewrite (stands in for the paper's LLM rewriting prompt): without a useless reflector
    (answer unchanged, scores not close) and without selectors that selected nothing."""
    empty = set(empty_selectors)
    out = [t for t in path if not (t in SELECTORS and t in empty)]
    if REFLECTOR in out and initial == final and margin >= close_margin:
        out.remove(REFLECTOR)
    return out


def write_trajectories(path: Path | str, records: Iterable[dict[str, Any]]) -> int:
    """Write one JSON line per trajectory ({query, path, reward, rewritten_path}); returns the line count."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for rec in records:
            line = {"query": rec["query"], "path": rec["path"], "reward": rec["reward"],
                    "rewritten_path": rec["rewritten_path"],
                    **({"rewrite_source": rec["rewrite_source"]} if "rewrite_source" in rec else {})}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            n += 1
    return n
