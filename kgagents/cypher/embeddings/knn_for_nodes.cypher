// Template ({{label}}): for each vector-bearing node of a scope (optionally only the ids in $only), its top-k index neighbours in a target scope with score ≥ $min_score; `complete` is false when a larger $fetch could still find more.
MATCH (n:{{label}})
WHERE n[$vector_property] IS NOT NULL
  AND ($only IS NULL OR elementId(n) IN $only)
  AND ($source.key IS NULL
       OR CASE WHEN $source.many THEN $source.value IN n[$source.key] ELSE n[$source.key] = $source.value END)
CALL (n) {
  CALL db.index.vector.queryNodes($index, $fetch, n[$vector_property]) YIELD node, score
  WITH node, score
  // Equal scores in a stable order (by URI / id), so which tied candidates make the top k never varies.
  ORDER BY score DESC, coalesce(node.uri, node.id, node.name)
  WITH collect({node: node, score: score}) AS hits
  WITH hits,
       [h IN hits WHERE h.node <> n AND h.score >= $min_score
                    AND $target.label IN labels(h.node)
                    AND ($target.key IS NULL
                         OR CASE WHEN $target.many THEN $target.value IN h.node[$target.key]
                                 ELSE h.node[$target.key] = $target.value END)][..$k] AS kept
  // Candidates come best first: once the index ran out, or the worst fetched fell below the cutoff, more cannot help.
  RETURN kept, size(kept) >= $k OR size(hits) < $fetch OR hits[-1].score < $min_score AS complete
}
RETURN elementId(n) AS source_id, coalesce(n.uri, n.id) AS source_key, n.name AS source_name, complete,
       [h IN kept | {target_id: elementId(h.node), target_key: coalesce(h.node.uri, h.node.id),
                     target_name: h.node.name, cosine: 2 * h.score - 1}] AS matches
