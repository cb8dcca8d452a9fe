// The source entities (ids in KG $kg1) that retrieval run $run_id stored candidates for.
MATCH (s:Entity {kg: $kg1})-[:CANDIDATE {run_id: $run_id}]->(:Entity)
RETURN DISTINCT s.id AS source
ORDER BY source
