"""Local servers the project installs and runs itself: Neo4j (:mod:`neo4j`) and the llama.cpp chat model.

Why apart from :mod:`kgagents.graph`: installing jars with Maven, supervising a process and swapping a store are
not part of talking to a database; the connection layer works the same against any server.
"""
