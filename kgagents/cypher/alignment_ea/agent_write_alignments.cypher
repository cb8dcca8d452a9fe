// Store EA-Agent decisions: (s)-[:SAME_AS {score, run_id, path, model}]->(t) and (:AlignTrace {run_id, source, path, initial, final, tokens, query (statistics JSON), rewritten_path, ...})-[:TRACE_OF]->(s).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.source})
MERGE (tr:AlignTrace {run_id: $run_id, source: row.source})
SET tr.path = row.path, tr.initial = row.initial, tr.final = row.final, tr.tokens = row.tokens,
    tr.prompt_tokens = row.prompt_tokens, tr.completion_tokens = row.completion_tokens,
    tr.seconds = row.seconds, tr.reward = row.reward, tr.plan_source = row.plan_source, tr.notes = row.notes,
    tr.fallback = row.fallback, tr.query = row.query, tr.rewritten_path = row.rewritten_path,
    tr.model = $model, tr.mode = $mode
MERGE (tr)-[:TRACE_OF]->(s)
WITH s, row
OPTIONAL MATCH (t:Entity {kg: $kg2, id: row.final})
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END |
  MERGE (s)-[a:SAME_AS {run_id: $run_id}]->(t)
  SET a.score = row.score, a.path = row.path, a.model = $model)
