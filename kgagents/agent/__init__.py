"""One LangGraph state machine per job, built from typed settings, plus nodes they share."""
