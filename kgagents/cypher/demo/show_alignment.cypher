// Alignments of one EA-Agent run with each decision's trace (:param run => '<run id>').
MATCH (r:Run {id: $run})
MATCH (tr:AlignTrace {run_id: r.id})-[:TRACE_OF]->(s:Entity)
OPTIONAL MATCH (s)-[a:SAME_AS {run_id: r.id}]->(t:Entity)
OPTIONAL MATCH (s)-[g:GOLD_LINK]->(gold:Entity)
RETURN s.name AS source, t.name AS aligned_to, gold.name AS gold, a.score AS score, tr.path AS tool_path,
       r.model AS model, r.hits_at_1 AS run_hits_at_1
ORDER BY source
LIMIT 25
