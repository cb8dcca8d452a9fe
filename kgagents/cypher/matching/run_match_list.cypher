// The pairs a run accepted as a person reads them: both ends' label (else local name) and URI, the calibrated
// confidence (kgagents.agent.matching.confidence; the number the graph, RDF, SSSOM and the report carry), the best
// channel cosine (similarity), the fused score and the channels that proposed the pair; most confident first.
MATCH (s:Resource)-[m:MATCHES {run_id: $run_id}]->(t:Resource)
RETURN s.uri AS source, coalesce(s.label, s.name) AS source_label, t.uri AS target,
       coalesce(t.label, t.name) AS target_label, m.confidence AS confidence, m.similarity AS similarity,
       m.score AS score, m.channels AS channels, m.validated AS validated
ORDER BY coalesce(m.confidence, m.similarity, m.score) DESC, source, target
