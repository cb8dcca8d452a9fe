"""Engine settings (environment prefix ``KGAGENTS_ENGINE_``).

The HNSW build parameters, the over-fetch and the rates of ``auto``'s cost model are measured by
``kgagents bench engine`` (``benchmarks/results/candidates/engine/backends.json``, section ``auto``); the defaults
below are the rates it measured on the project's 2-core reference machine (GDS KNN never beat the batched index
there, so ``bulk_min_sources`` stays 0).
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class EngineSettings(BaseSettings):
    """How the candidate engine builds its per-scope indexes and picks and runs a back-end."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_ENGINE_", env_file=".env", extra="ignore")

    # -- per-scope HNSW index --------------------------------------------------------------------
    hnsw_m: int = Field(16, ge=2, le=512, description="HNSW links per node (vector.hnsw.m) of per-scope indexes")
    hnsw_ef_construction: int = Field(
        100, ge=1, le=3200, description="HNSW build beam (vector.hnsw.ef_construction) of per-scope indexes")
    scope_label_prefix: str = Field("Scope", description="first part of the label given to the nodes of one scope")
    index_timeout_s: float = Field(3600.0, gt=0, description="how long prepare() waits for a new index to come online")
    # -- single / batched ------------------------------------------------------------------------
    fetch_factor: float = Field(
        3.0, ge=1.0, description="index neighbours asked per wanted hit: HNSW searches with a beam of this many")
    min_fetch: int = Field(30, ge=1, description="index neighbours asked at least, whatever k")
    exhaustive_below: int = Field(
        1000, ge=0, description="scope indexes with at most this many vectors are asked for all of them (HNSW then "
        "visits every vector: exact); Lucene's HNSW misses neighbours even in small graphs")
    batch_size: int = Field(500, ge=1, description="sources per round trip (batched back-end)")
    parallel_sessions: int = Field(2, ge=1, description="batched round trips in flight at once (one per server core)")
    exact_target_batch: int = Field(
        2_000, ge=1, description="exact back-end: targets per query (their vectors must fit the transaction memory)")
    # -- bulk (GDS KNN) --------------------------------------------------------------------------
    gds_top_k: int = Field(16, ge=1, description="neighbours GDS KNN keeps per node while searching (≥ k)")
    gds_sample_rate: float = Field(1.0, gt=0.0, le=1.0, description="GDS KNN sampleRate")
    gds_max_iterations: int = Field(100, ge=1, description="GDS KNN maxIterations")
    gds_delta_threshold: float = Field(
        0.001, ge=0.0, le=1.0, description="GDS KNN stops when fewer than this share of neighbour lists changed")
    gds_concurrency: int = Field(1, ge=1, description="GDS KNN threads; only 1 makes a seeded run repeat exactly")
    gds_random_seed: int = Field(42, description="GDS KNN randomSeed (needs concurrency 1 to be deterministic)")
    # -- auto: a cost model whose rates the engine benchmark measured ------------------------------
    exact_pairs_per_s: float = Field(
        120_000.0, gt=0, description="auto: (source, target) cosines per second of the exact back-end")
    index_queries_per_s: float = Field(
        1_375.0, gt=0, description="auto: sources per second of the batched back-end on a built index")
    index_build_vectors_per_s: float = Field(
        414.0, gt=0, description="auto: vectors per second an index build takes (paid once per scope)")
    bulk_min_sources: int = Field(
        0, ge=0, description="auto: GDS KNN when at least this many node sources (0: never)")
