// The decisions of one EA-Agent run, one row per traced source: the two entities' KGs, SAME_AS target, score, path, model, and the AlignTrace (initial/final choice, reward, tokens, seconds, fallbacks, statistics JSON, rewritten path).
MATCH (tr:AlignTrace {run_id: $run_id})-[:TRACE_OF]->(s:Entity)
OPTIONAL MATCH (s)-[a:SAME_AS {run_id: $run_id}]->(t:Entity)
RETURN s.id AS source, t.id AS target, s.kg AS source_kg, t.kg AS target_kg, a.score AS score, a.path AS path, a.model AS model,
       tr.path AS trace_path, tr.initial AS initial, tr.final AS final, tr.reward AS reward,
       tr.tokens AS tokens, coalesce(tr.prompt_tokens, 0) AS prompt_tokens,
       coalesce(tr.completion_tokens, 0) AS completion_tokens, tr.seconds AS seconds,
       tr.plan_source AS plan_source, tr.notes AS notes, coalesce(tr.fallback, false) AS fallback,
       tr.query AS query, tr.rewritten_path AS rewritten_path, tr.mode AS mode, tr.model AS trace_model
ORDER BY source
