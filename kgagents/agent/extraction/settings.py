"""Settings of the extraction agent (environment prefix ``KGAGENTS_EXTRACT_``)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ExtractionSettings(BaseSettings):
    """Budget, the feedback ablation switch, and grounding."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_EXTRACT_", env_file=".env", extra="ignore")

    max_steps: int = Field(24, ge=1, description="model turns per document (tool calls plus unusable replies)")
    max_repeats: int = Field(2, ge=1, description="the same call repeated this often ends the plan step")
    tools_per_step: int = Field(60, ge=1, description="tools shown per plan step (most document words first)")
    feedback: bool = Field(True, description="show the model the tools' structured feedback (off: ok/failed only)")
    ground_kg: str | None = Field(None, description="reference KG (loaded :Entity nodes) to ground instances in")
    ground_min_score: float = Field(0.9, ge=0, le=1, description="lowest label similarity that grounds")
