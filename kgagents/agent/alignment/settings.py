"""Candidate-retrieval hyper-parameters of the EA agent, with documented defaults.

The defaults of the fusion weights and the bootstrap threshold/rounds are what the benchmark tuned on DBP15K
ZH-EN using TRAIN links only (``benchmarks.ea_retrieval.tune``: a third of the train links held out, the other
two thirds as seeds; grid with name weight 1; best validation Hits@1), never test links. The benchmark re-tunes
per dataset and stores the values used on the (:Run) node with every run, so a result can be reproduced.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

CandidateSpace = Literal["test", "all"]


class RetrievalSettings(BaseSettings):
    """What one retrieval run depends on."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_EA_", extra="ignore")

    top_k: int = Field(10, ge=1, description="candidates stored per source entity")
    name_top_n: int = Field(30, ge=1, description="name-vector neighbours fetched per source (signal a)")
    structure_top_n: int = Field(20, ge=0, description="structural candidates fetched per source (signal c)")
    structure_max_degree: int = Field(
        1000, ge=1, description="seed counterparts with more neighbours than this are skipped (hubs say little)")
    vector_property: str = Field("name_vec", description="Entity property holding the English-name vector")
    candidate_space: CandidateSpace = Field(
        "test",
        description="targets ranked: 'test' = only targets of test gold links (the usual DBP15K protocol), "
        "'all' = every entity of the target KG",
    )
    w_name: float = Field(1.0, ge=0.0, description="weight of the name cosine (in [-1, 1])")
    w_exact: float = Field(0.5, ge=0.0, description="weight of exact normalised-name equality (0/1)")
    w_structure: float = Field(1.0, ge=0.0, description="weight of the saturated seed-neighbour score w/(1+w)")
    w_attributes: float = Field(0.4, ge=0.0, description="weight of the attribute-name Jaccard")
    bootstrap_rounds: int = Field(
        2, ge=0, description="rounds in which confident mutual-best pairs become extra structural seeds")
    bootstrap_threshold: float = Field(0.5, description="fused score a mutual-best pair needs to become a pseudo-seed")
    score_batch: int = Field(20000, ge=1, description="candidate pairs scored per query")
    source_batch: int = Field(1000, ge=1, description="source entities per structure query")
    parallel_queries: int = Field(2, ge=1, description="structure / scoring queries run at once (one per server core)")
    name_backend: str = Field(
        "auto", description="candidate-engine back-end of the name search (auto | batched | bulk | exact | single)")
