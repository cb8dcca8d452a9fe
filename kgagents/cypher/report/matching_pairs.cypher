// The pairs a matching run accepted, with their score and the channels that found them.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, t.uri AS target, m.score AS score, m.channels AS channels
ORDER BY source, target
