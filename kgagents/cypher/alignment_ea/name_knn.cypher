// For each source entity (ids $sources of KG $kg1): its top-$k name-vector neighbours in KG $kg2 that are not in the map $taken (cosine), from vector index $index asked for $fetch hits.
UNWIND $sources AS sid
MATCH (s:Entity {kg: $kg1, id: sid})
WHERE s[$vector_property] IS NOT NULL
CALL (s) {
  CALL db.index.vector.queryNodes($index, $fetch, s[$vector_property]) YIELD node, score
  WITH node, score
  WHERE node.kg = $kg2 AND $taken[node.id] IS NULL
  ORDER BY score DESC
  LIMIT $k
  RETURN collect({target: node.id, cosine: 2 * score - 1}) AS hits
}
RETURN s.id AS source, hits
