"""ODA's hyper-parameters, with the seed's defaults (env prefix ``KGAGENTS_KGQA_``).

Defaults are the issue's / ODA's: observation depth D = 3, top-N = 50 triples per depth, top P = 10 % of the
scored triples as the next frontier, reflection keeps K ≤ 15 triples, at most 8 iterations, temperature 0.4,
500 completion tokens. What the prompts show is cut to fit the offline models' 4,096-token context and their
~150 prompt tokens/s (``benchmarks/results/llm_local.json``): the best 20 observation triples and the best 30 of a
GetNeighbor result (~15 tokens a triple). ``mode`` selects the full agent or one of the ablations; ``no_llm`` is the fully
offline baseline (observation ranking only, answer = best-scoring tail), labelled as such in every output.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Mode = Literal["full", "no_observation", "reflect_similarity", "reflect_random", "reflect_generated", "no_llm"]
MODES: tuple[str, ...] = Mode.__args__  # type: ignore[attr-defined]


class KGQASettings(BaseSettings):
    """What one KGQA run depends on (stored on its (:Run) node)."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_KGQA_", extra="ignore")

    mode: Mode = Field("full", description="full ODA, an ablation, or 'no_llm' (offline baseline)")
    depth: int = Field(3, ge=1, description="observation depth D (hops expanded from each topic entity)")
    top_n: int = Field(50, ge=1, description="best-scoring triples per depth appended to the observation (N)")
    top_percent: float = Field(0.10, gt=0.0, le=1.0,
                               description="share of a depth's scored triples whose far ends form the next frontier (P)")
    max_frontier: int = Field(
        200, ge=1, description="cap on next-frontier entities per depth. P % of a hub's neighbours (a genre "
        "with thousands of films) would otherwise grow the next expansion without bound")
    reflect_k: int = Field(15, ge=1, description="triples the reflection keeps in memory per iteration (K)")
    max_iterations: int = Field(8, ge=1, description="observe → act → reflect rounds before answering from memory")
    temperature: float = Field(0.4, ge=0.0, description="sampling temperature of every LLM call")
    max_tokens: int = Field(500, ge=1, description="completion-token cap of every LLM call")
    path_max_length: int = Field(3, ge=1, le=6, description="GetPath: longest path (relationships) searched")
    path_cap: int = Field(20, ge=1, description="GetPath: at most this many paths returned")
    neighbor_cap: int = Field(
        30, ge=1, description="GetNeighbor: triples returned to the reflection, best cosine to the question first")
    observation_shown: int = Field(
        20, ge=1, description="observation triples shown in the action and answer prompts (best first)")
    seed: int = Field(7, description="random reflection ablation: seed of the triple sample")
