"""Agent-OM ontology matching as a LangGraph state machine over Neo4j."""
