// The phrasings (distinct masked questions) of one KG's path memory nearest to a question vector (cosine in [-1, 1]),
// best first, with what their examples voted: per (phrasing, path, re-entry) the summed weight, over how many learned
// questions the phrasing stands for. Why phrasings, not examples: a templated dataset repeats a masked question
// thousands of times, and an HNSW index of thousands of identical vectors misses them. The index holds every KG's
// phrasings, so it is asked for more than $k and filtered to this KG; $leave_out (a question text) does not vote.
// Examples a bootstrap is still writing (`staged`) are not part of the memory yet. `source`: 'bootstrap' when every
// example of the row was generated from the KG itself (`kgqa bootstrap`), else 'labelled'.
CALL db.index.vector.queryNodes($index, $search, $vector) YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.kg = $kg AND EXISTS { (node)<-[:PHRASED_AS]-(x:PathExample) WHERE x.staged IS NULL }
ORDER BY similarity DESC, node.key
LIMIT $k
MATCH (node)<-[:PHRASED_AS]-(x:PathExample)
WHERE x.staged IS NULL AND ($leave_out IS NULL OR x.question <> $leave_out)
WITH node, similarity, x
WITH node, similarity, count(DISTINCT x.question_key) AS questions, collect(x) AS examples
UNWIND examples AS x
WITH node, similarity, questions, x.path AS path, coalesce(x.reentry, false) AS reentry, sum(x.weight) AS weight,
     min(x.question) AS question, all(e IN collect(x.source) WHERE e = 'bootstrap') AS generated
RETURN node.key AS phrasing, node.masked AS masked, similarity, questions, path, reentry, weight, question,
       CASE WHEN generated THEN 'bootstrap' ELSE 'labelled' END AS source
ORDER BY similarity DESC, phrasing, weight DESC
