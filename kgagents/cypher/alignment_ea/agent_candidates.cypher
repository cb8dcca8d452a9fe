// The stored candidates of retrieval run $run_id for each source id in $sources of KG $kg1, best first: the EA-Agent's choice set.
UNWIND $sources AS sid
MATCH (s:Entity {kg: $kg1, id: sid})
RETURN s.id AS source,
       [x IN COLLECT { MATCH (s)-[c:CANDIDATE {run_id: $run_id}]->(t:Entity) RETURN {target: t.id, rank: c.rank, score: c.score} AS x ORDER BY c.rank } | x] AS candidates
