// Store EA-Agent decisions: (s)-[:SAME_AS {score, run_id, path, model}]->(t) and (:AlignTrace {run_id, source, ...})-[:TRACE_OF]->(s).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.source})
MERGE (tr:AlignTrace {run_id: $run_id, source: row.source})
SET tr.path = row.path, tr.initial = row.initial, tr.final = row.final, tr.tokens = row.tokens,
    tr.seconds = row.seconds, tr.reward = row.reward, tr.plan_source = row.plan_source, tr.notes = row.notes,
    tr.model = $model, tr.mode = $mode
MERGE (tr)-[:TRACE_OF]->(s)
WITH s, row
OPTIONAL MATCH (t:Entity {kg: $kg2, id: row.final})
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END |
  MERGE (s)-[a:SAME_AS {run_id: $run_id}]->(t)
  SET a.score = row.score, a.path = row.path, a.model = $model)
