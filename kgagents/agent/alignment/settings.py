"""Candidate-retrieval hyper-parameters of the EA agent, with documented defaults.

The defaults of the fusion weights and the bootstrap share/rounds are what the benchmark tuned on DBP15K
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
    name_top_n: int = Field(100, ge=1, description="name-vector neighbours fetched per source (signal a); 100 with "
                            "structure_top_n 60 was chosen on DBP15K ZH-EN's held-out train links (gate.held_out): "
                            "validation Hits@10 after the assignment (taken_penalty 0.5) 0.9933 at 60 / 40, 0.9940 at "
                            "100 / 60, 0.9940 at 200 / 100 (retrieval 47 s and 73 s)")
    structure_top_n: int = Field(60, ge=0, description="structural candidates fetched per source (signal c)")
    structure_max_degree: int = Field(
        1000, ge=1, description="seed counterparts with more neighbours than this are skipped (hubs say little)")
    vector_property: str = Field("name_vec", description="Entity property holding the English-name vector")
    multilingual_vector_property: str = Field(
        "name_ml", description="Entity property holding the multilingual name-variant vector (mean of every name)")
    candidate_space: CandidateSpace = Field(
        "test",
        description="targets ranked: 'test' = only targets of test gold links (the usual DBP15K protocol), "
        "'all' = every entity of the target KG",
    )
    w_name: float = Field(1.0, ge=0.0, description="weight of the English-name cosine (in [-1, 1])")
    w_multilingual: float = Field(
        1.0, ge=0.0, description="weight of the multilingual name-variant cosine (in [-1, 1]; 0 when not embedded)")
    w_exact: float = Field(0.5, ge=0.0, description="weight of exact normalised-name equality (0/1)")
    w_structure: float = Field(1.0, ge=0.0, description="weight of the saturated seed-neighbour score w/(1+w)")
    w_attributes: float = Field(0.4, ge=0.0, description="weight of the attribute-name Jaccard")
    assignment: bool = Field(
        True, description="global one-to-one assignment over the candidate lists (stable matching): the assigned "
        "target becomes rank 1; the rest follows the fused order, with taken_penalty")
    csls_k: int = Field(
        5, ge=0, description="with the assignment: rescale scores by CSLS over each source's and target's k best "
        "before assigning (0: off). On DBP15K ZH-EN train links (a third held out) it moved validation Hits@1 after "
        "2 bootstrap rounds from 0.956 to 0.963")
    taken_penalty: float = Field(
        0.5, ge=0.0, description="with the assignment: below the assigned target, a target assigned to another source "
        "is ranked by its score minus this times how much more that source scored it (free targets keep theirs; 0: "
        "fused order). 0.5 had the best validation Hits@10 on DBP15K ZH-EN's held-out train links; `bench "
        "ea-retrieval` tunes it per dataset the same way and records the trials (tuned_on_train)")
    bootstrap_rounds: int = Field(
        2, ge=0, description="rounds in which confident assigned pairs become extra structural seeds")
    bootstrap_share: float = Field(
        0.7, gt=0.0, le=1.0,
        description="share of the one-to-one assigned pairs (highest fused scores first) that become pseudo-seeds")
