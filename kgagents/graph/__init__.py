"""Neo4j connection, schema and the local server the project runs itself."""

from kgagents.graph.connection import Graph

__all__ = ["Graph"]
