// The pairs a run accepted, for export and scoring: the calibrated confidence (null for runs stored before it),
// the fused score, the best channel cosine, the channels and the reason, with both entities' labels.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, t.uri AS target, m.score AS score, m.confidence AS confidence, m.similarity AS similarity,
       m.channels AS channels, m.validated AS validated, m.reason AS reason, m.model AS model,
       coalesce(s.label, s.name) AS source_label, coalesce(t.label, t.name) AS target_label
ORDER BY source, target
