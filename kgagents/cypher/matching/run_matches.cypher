// The pairs a run accepted, for export and scoring.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, t.uri AS target, m.score AS score
ORDER BY source, target
