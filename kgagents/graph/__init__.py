"""Neo4j connection, schema and the local server the project runs itself."""

from kgagents.graph.connection import Graph, GraphLike, connect

__all__ = ["Graph", "GraphLike", "connect"]
