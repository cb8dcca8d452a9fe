// Every learned (phrasing, path) of one KG's path memory with its summed weight: what the wording table
// (kgqa/wording.py: which question words name which relation step) is learned from.
MATCH (x:PathExample {kg: $kg})-[:PHRASED_AS]->(q:PathQuestion)
WHERE x.staged IS NULL
RETURN q.masked AS masked, x.path AS path, sum(x.weight) AS weight
ORDER BY masked, path
