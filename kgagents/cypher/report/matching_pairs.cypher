// The pairs a matching run accepted: calibrated confidence and best channel cosine (runs before they were stored:
// null), fused score, channels.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, t.uri AS target, m.score AS score, m.similarity AS similarity, m.confidence AS confidence,
       m.channels AS channels
ORDER BY source, target
