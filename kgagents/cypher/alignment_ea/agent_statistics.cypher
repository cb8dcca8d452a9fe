// EA-Agent planner input per source id in $sources of KG $kg1: name, attribute names, relation triples (out + in, within the KG) and the candidate scores of retrieval run $run_id, best first.
UNWIND $sources AS sid
MATCH (s:Entity {kg: $kg1, id: sid})
RETURN s.id AS source, coalesce(s.name_en, s.name) AS name, coalesce(s.attributes, []) AS attributes,
       [(s)-[r]-(n:Entity {kg: $kg1}) WHERE r.rel IS NOT NULL | coalesce(r.name, r.rel)] AS relations,
       [x IN COLLECT { MATCH (s)-[c:CANDIDATE {run_id: $run_id}]->(:Entity) RETURN c ORDER BY c.rank } | x.score] AS scores
