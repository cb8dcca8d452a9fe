// The mediators the background files $files tie each entity of the two ontologies to (one edge away), for the
// background's judgement of the other stages' pairs (kgagents.agent.matching.agreement).
MATCH (r:Resource)-[b:BACKGROUND]-(m:Mediator)
WHERE b.file IN $files AND ($source IN r.ontologies OR $target IN r.ontologies)
RETURN r.uri AS uri, collect(DISTINCT m.uri) AS mediators
