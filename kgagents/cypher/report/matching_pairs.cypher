// The pairs a matching run accepted: fused score, best channel cosine (runs before it was stored: null), channels.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, t.uri AS target, m.score AS score, m.similarity AS similarity, m.channels AS channels
ORDER BY source, target
