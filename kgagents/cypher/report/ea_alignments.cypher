// The SAME_AS links an EA-Agent run wrote, with their score and the tool path that chose them.
MATCH (s:Entity)-[a:SAME_AS {run_id: $run_id}]->(t:Entity)
RETURN s.id AS source, t.id AS target, a.score AS score, a.path AS path
ORDER BY source
