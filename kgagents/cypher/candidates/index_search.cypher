// Top-$k per source row ({key, id} of a node / relationship, or {key, vector}) from the vector index $index,
// which covers only the target scope: the index is asked for $fetch neighbours; those below $floor, whose key
// is in the map $exclude, or the source node itself are dropped; ties by key. `complete` is false when a larger
// $fetch could still find more (all $fetch came back, the k-th was not reached, the last was above the floor).
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
WITH src, v WHERE v IS NOT NULL
CALL (src, v) {
  CALL db.index.vector.queryNodes($index, $fetch, v) YIELD node, score
  WITH collect({node: node, cosine: 2 * score - 1}) AS raw
  CALL (raw, src) {
    UNWIND raw AS h
    WITH h.node AS node, h.cosine AS cosine
    WHERE cosine >= $floor AND NOT ($source_kind = 'node' AND elementId(node) = src.id)
    WITH node, cosine, coalesce(node.uri, node.id, elementId(node)) AS key
    WHERE $exclude[key] IS NULL
    WITH node, cosine, key ORDER BY cosine DESC, key LIMIT $k
    RETURN collect({id: elementId(node), key: key, name: node.name, cosine: cosine}) AS hits
  }
  RETURN hits, size(hits) >= $k OR size(raw) < $fetch OR raw[-1].cosine < $floor AS complete
}
RETURN src.key AS source, hits, complete
