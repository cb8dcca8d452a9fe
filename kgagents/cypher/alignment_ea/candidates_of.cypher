// The stored candidates of one run for one source entity, best first.
MATCH (s:Entity {kg: $kg1, id: $source})-[c:CANDIDATE {run_id: $run_id}]->(t:Entity)
RETURN t.id AS target, c.rank AS rank, c.score AS score, c.assigned AS assigned, c.signals AS signals
ORDER BY c.rank
