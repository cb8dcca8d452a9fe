// The rank-1 candidate of every source of an EA retrieval run, with its fused score.
MATCH (s:Entity)-[c:CANDIDATE {run_id: $run_id, rank: 1}]->(t:Entity)
RETURN s.id AS source, t.id AS target, c.score AS score
ORDER BY source
