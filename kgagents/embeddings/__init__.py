"""Text embeddings: a provider registry, the offline MiniLM default, and Neo4j vector search.

Providers register by name, like rdflib plugins: built-ins are registered as ``"module:attribute"``
strings so that importing this package loads neither the model nor the OpenAI client until one is
asked for; other code can :func:`register` a callable. ``get_embedder()`` picks the provider named by
``EmbeddingSettings.provider`` (KGAGENTS_EMBED_PROVIDER).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from kgagents.config import EmbeddingSettings
from kgagents.embeddings.base import Embedder
from kgagents.errors import EmbeddingError

EmbedderFactory = Callable[[EmbeddingSettings], Embedder]

_registry: dict[str, EmbedderFactory | str] = {
    "local": "kgagents.embeddings.local_minilm:LocalMiniLM.from_settings",
    "openai": "kgagents.embeddings.openai_compat:OpenAICompatEmbedder.from_settings",
    "e5": "kgagents.embeddings.e5_multilingual:MultilingualE5.from_settings",
}


def register(name: str, factory: EmbedderFactory | str) -> None:
    """Make ``factory`` (a callable, or ``"module:attribute"`` imported on first use) the provider ``name``."""
    _registry[name] = factory


def providers() -> list[str]:
    """Names of the registered providers."""
    return sorted(_registry)


def _resolve(factory: EmbedderFactory | str) -> EmbedderFactory:
    if callable(factory):
        return factory
    module, _, attribute = factory.partition(":")
    target: object = import_module(module)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target  # type: ignore[return-value]


def get_embedder(settings: EmbeddingSettings | None = None) -> Embedder:
    """The embedder the settings (default: environment / .env) ask for."""
    settings = settings or EmbeddingSettings()
    if settings.provider not in _registry:
        raise EmbeddingError(
            f"Unknown embedding provider '{settings.provider}'. Set KGAGENTS_EMBED_PROVIDER to one of: "
            + ", ".join(providers())
        )
    return _resolve(_registry[settings.provider])(settings)


def multilingual_e5() -> Embedder:
    """multilingual-e5-small (the ``e5`` provider), whatever the configured provider: EA's multilingual name channel
    and KGQA's second path encoder use it next to the configured embedder."""
    return get_embedder(EmbeddingSettings(provider="e5", model="multilingual-e5-small"))


__all__ = ["Embedder", "EmbedderFactory", "get_embedder", "multilingual_e5", "providers", "register"]
