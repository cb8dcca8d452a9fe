"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, llama.cpp, Ollama, …).

Why a separate provider: users with a hosted or larger model point kgagents at it with
KGAGENTS_EMBED_PROVIDER=openai, KGAGENTS_EMBED_BASE_URL, KGAGENTS_EMBED_API_KEY, KGAGENTS_EMBED_MODEL;
the vectors then go through the same indexes and matching code as the local model's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import openai

from kgagents.config import EmbeddingSettings
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.errors import EmbeddingError

# Local servers need no key, but the client refuses to start without one.
_NO_KEY = "not-needed"


class OpenAICompatEmbedder(Embedder):
    """Batches texts into ``embeddings.create`` calls; the dimension is learnt from the first answer."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None, batch_size: int = 64) -> None:
        self.name = model
        self.base_url = base_url
        self.batch_size = max(1, batch_size)
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or _NO_KEY)
        self._dimensions: int | None = None

    @classmethod
    def from_settings(cls, settings: EmbeddingSettings) -> OpenAICompatEmbedder:
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return cls(model=settings.model, base_url=settings.base_url, api_key=key, batch_size=settings.batch_size)

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self.embed(["dimension probe"])
        assert self._dimensions is not None
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        chunks = [self._request(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        if not chunks:
            return np.zeros((0, self._dimensions or 0), dtype=np.float32)
        return l2_normalise(np.concatenate(chunks))

    def _request(self, texts: list[str]) -> np.ndarray:
        where = f"{self.base_url or 'the OpenAI API'} (model '{self.name}')"
        try:
            # "float" explicitly: the client's default asks for base64, which many compatible servers lack.
            response = self._client.embeddings.create(model=self.name, input=texts, encoding_format="float")
        except openai.APIConnectionError as exc:
            raise EmbeddingError(f"Cannot reach the embedding endpoint {where}: {exc}. "
                                 "Check KGAGENTS_EMBED_BASE_URL.") from exc
        except openai.APIStatusError as exc:
            raise EmbeddingError(
                f"The embedding endpoint {where} answered HTTP {exc.status_code}: {exc.message}. "
                "Check KGAGENTS_EMBED_MODEL and KGAGENTS_EMBED_API_KEY."
            ) from exc
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise EmbeddingError(f"The embedding endpoint {where} returned {len(data)} vectors for {len(texts)} texts")
        vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise EmbeddingError(f"The embedding endpoint {where} returned vectors of uneven or zero length")
        if self._dimensions is None:
            self._dimensions = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimensions:
            raise EmbeddingError(
                f"The embedding endpoint {where} returned {vectors.shape[1]}-dimensional vectors after "
                f"{self._dimensions}-dimensional ones"
            )
        return vectors
