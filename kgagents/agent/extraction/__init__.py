"""Constrained extraction: a LangGraph ReAct agent that writes a document's facts only through compiled tools."""
