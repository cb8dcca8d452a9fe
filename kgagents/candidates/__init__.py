"""One candidate engine for every agent: "for these sources, the k most similar nodes of that scope".

``CandidateEngine(graph).search(source, target, k=..., vector_property=...)`` with sources and targets given as a
:class:`~kgagents.embeddings.index.Scope`, :class:`Ids` or :class:`Vectors`; back-ends ``exact`` (Cypher cosine
over an explicit list), ``single`` / ``batched`` (a vector index per target scope) and ``bulk`` (GDS KNN), chosen
by ``auto`` with measured thresholds (:class:`EngineSettings`).
"""

from kgagents.candidates.engine import CandidateEngine
from kgagents.candidates.settings import EngineSettings
from kgagents.candidates.types import Hit, Ids, Vectors

__all__ = ["CandidateEngine", "EngineSettings", "Hit", "Ids", "Vectors"]
