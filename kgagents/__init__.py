"""kgagents: LLM agents that run inside a Neo4j graph."""

__version__ = "0.1.0"
