// The path examples of one KG nearest to a question vector (cosine in [-1, 1]), best first. The index holds every KG's
// examples, so it is asked for more than $k and filtered to this KG.
CALL db.index.vector.queryNodes($index, $search, $vector) YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.kg = $kg
RETURN node.path AS path, coalesce(node.reentry, false) AS reentry, node.weight AS weight, similarity, node.question AS question,
       node.question_key AS question_key, node.id AS id
ORDER BY similarity DESC, id
LIMIT $k
