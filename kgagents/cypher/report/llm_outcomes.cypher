// A run's answered LLM calls per purpose (repairs under their purpose): schema asked, decoded under it,
// fallbacks (asked, not decoded under it), replies the caller could / could not use, repairs.
MATCH (:Run {id: $run_id})-[:MADE_CALL]->(c:LLMCall)
WHERE c.ok
WITH CASE WHEN c.purpose ENDS WITH ':repair' THEN left(c.purpose, size(c.purpose) - 7) ELSE c.purpose END AS purpose,
     c
RETURN purpose, count(c) AS calls,
       sum(CASE WHEN c.schema_asked THEN 1 ELSE 0 END) AS schema_asked,
       sum(CASE WHEN c.output_format = 'json_schema' THEN 1 ELSE 0 END) AS constrained,
       sum(CASE WHEN c.schema_asked AND coalesce(c.output_format, 'text') <> 'json_schema' THEN 1 ELSE 0 END)
         AS fallbacks,
       sum(CASE WHEN c.parsed = true THEN 1 ELSE 0 END) AS parsed,
       sum(CASE WHEN c.parsed = false THEN 1 ELSE 0 END) AS parse_failures,
       sum(CASE WHEN c.purpose ENDS WITH ':repair' THEN 1 ELSE 0 END) AS repairs
ORDER BY purpose
