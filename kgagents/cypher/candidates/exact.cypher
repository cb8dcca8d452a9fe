// Exact top-$k by cosine (vector.similarity.cosine, reported as cosine in [-1, 1]) from each source row
// ({key, id} of a node / relationship, or {key, vector}) to an explicit list of target element ids
// ($target_kind 'node' or 'relationship'); targets whose key is in the map $exclude, below $floor, or the source
// itself are skipped; ties by key.
CALL () {
  MATCH (t) WHERE $target_kind = 'node' AND elementId(t) IN $targets
  RETURN elementId(t) AS id, coalesce(t.uri, t.id, elementId(t)) AS key, t.name AS name, t[$vector_property] AS v
  UNION ALL
  MATCH ()-[t]->() WHERE $target_kind = 'relationship' AND elementId(t) IN $targets
  RETURN elementId(t) AS id, elementId(t) AS key, coalesce(t.name, type(t)) AS name, t[$vector_property] AS v
}
WITH id, key, name, v WHERE v IS NOT NULL AND $exclude[key] IS NULL
WITH collect({id: id, key: key, name: name, v: v}) AS targets
UNWIND $sources AS src
CALL (src) {
  WITH src WHERE $source_kind = 'vector'
  RETURN src.vector AS v
  UNION ALL
  MATCH (s) WHERE $source_kind = 'node' AND elementId(s) = src.id
  RETURN s[$source_vector_property] AS v
  UNION ALL
  MATCH ()-[s]->() WHERE $source_kind = 'relationship' AND elementId(s) = src.id
  RETURN s[$source_vector_property] AS v
}
WITH src, v, targets WHERE v IS NOT NULL
CALL (src, v, targets) {
  UNWIND targets AS t
  WITH t, 2 * vector.similarity.cosine(v, t.v) - 1 AS cosine
  WHERE cosine >= $floor AND NOT ($source_kind = $target_kind AND t.id = src.id)
  WITH t, cosine ORDER BY cosine DESC, t.key LIMIT $k
  RETURN collect({id: t.id, key: t.key, name: t.name, cosine: cosine}) AS hits
}
RETURN src.key AS source, hits
