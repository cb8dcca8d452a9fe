// The SAME_AS decisions of one EA-Agent run with their trace: source, target, score, path, initial and final choice, reward.
MATCH (tr:AlignTrace {run_id: $run_id})-[:TRACE_OF]->(s:Entity)
OPTIONAL MATCH (s)-[a:SAME_AS {run_id: $run_id}]->(t:Entity)
RETURN s.id AS source, t.id AS target, a.score AS score, a.path AS path, a.model AS model,
       tr.path AS trace_path, tr.initial AS initial, tr.final AS final, tr.reward AS reward,
       tr.tokens AS tokens, tr.seconds AS seconds, tr.plan_source AS plan_source, tr.notes AS notes
ORDER BY source
