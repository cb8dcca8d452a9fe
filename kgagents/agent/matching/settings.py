"""Agent-OM hyper-parameters, with the paper's defaults, and the switches for its ablations."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgagents.agent.base import NO_LLM, AgentSettings

Channel = Literal["syntactic", "lexical", "semantic"]
ALL_CHANNELS: tuple[Channel, ...] = ("syntactic", "lexical", "semantic")


class MatchSettings(BaseSettings, AgentSettings):
    """Everything a matching run depends on; stored on the (:Run) node so results are reproducible. Any field can
    also come from the environment (``KGAGENTS_MATCH_THRESHOLD=0.8``); an unknown field passed in code is an error.

    ``mode``: ``full`` runs Agent-OM's LLM steps; ``no_llm`` is the offline ablation (syntactic channel +
    label/synonym embeddings as the lexical channel, no semantic channel, no validator)."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_MATCH_", extra="forbid")

    mode: Literal["full", "no_llm"] = "full"
    threshold: float = Field(0.90, ge=-1.0, le=1.0, description="cosine similarity cut-off T per channel")
    top_k: int = Field(3, ge=1, description="candidates kept per channel")
    channels: tuple[Channel, ...] = ALL_CHANNELS
    validator: bool = True
    merger: bool = True
    lexical_prematch: bool = Field(True, description="accept exact label/synonym matches before any LLM call")
    structural: bool = Field(
        True,
        description="after merging, accept mutual-best pairs with cosine ≥ structural_threshold whose "
        "structural neighbours (SCO, part-of restrictions, SPO) are already matched (LogMap-style propagation); "
        "with an LLM they must also pass the validator",
    )
    structural_threshold: float = Field(0.80, ge=-1.0, le=1.0)
    context: str | None = Field(
        None, description="domain context given to the LLM steps; None: derived from the two ontologies' own "
        "metadata (title, description, main concepts; see kgagents.agent.matching.context)")
    batch_size: int = Field(64, ge=1, description="entities per checkpointed step")
    include_properties: bool = True

    @model_validator(mode="after")
    def _no_llm_ablation(self) -> MatchSettings:
        if self.mode == NO_LLM:
            self.validator = False
            self.channels = tuple(c for c in self.channels if c != "semantic") or ("syntactic", "lexical")
        if not self.channels:
            raise ValueError("at least one channel must be enabled")
        return self
