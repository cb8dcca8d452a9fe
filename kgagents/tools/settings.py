"""Settings of the ontology tools (environment prefix ``KGAGENTS_TOOLS_``)."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class ToolSettings(BaseSettings):
    """Where minted instance IRIs live. Instances of A-Box ``x`` get ``<base_iri>/x/<Class>/<label>``."""

    model_config = SettingsConfigDict(env_prefix="KGAGENTS_TOOLS_", env_file=".env", extra="ignore")

    base_iri: str = "http://kgagents.local/abox"
