"""Ontology-to-tools (The World Avatar seed): T-Box → typed tools → validated writes to Neo4j, over MCP.

``compile_ontology(path)`` gives the tool catalogue; ``ToolRuntime(graph, catalogue).call(name, args)``
executes a call in one transaction; ``export_turtle`` writes an A-Box back out as RDF.
"""
