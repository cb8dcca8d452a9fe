// Matches of one ontology-matching run, with the run's provenance (:param run => '<run id>').
MATCH (r:Run {id: $run})
MATCH (s:Resource)-[m:MATCHES {run_id: r.id}]->(t:Resource)
RETURN coalesce(s.label, s.name) AS source, coalesce(t.label, t.name) AS target, m.score AS score,
       m.channels AS channels, m.validated AS validated, r.model AS model, r.f1 AS run_f1, r.finished_at AS at
ORDER BY source
LIMIT 25
