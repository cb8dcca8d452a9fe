// Filtered GDS KNN (cosine on `embedding`) from Source to Target nodes of projection $graph_name, searching $search_k
// neighbours per node and keeping the best $k with cosine ≥ $floor per source (ties by key).
CALL gds.knn.filtered.stream($graph_name, {
  nodeProperties: {embedding: 'COSINE'},
  sourceNodeFilter: 'Source',
  targetNodeFilter: 'Target',
  topK: $search_k,
  similarityCutoff: (1.0 + $floor) / 2.0,
  sampleRate: $sample_rate,
  deltaThreshold: 0.0,
  maxIterations: $max_iterations,
  randomSeed: CASE WHEN $concurrency = 1 THEN $seed END,
  concurrency: $concurrency
}) YIELD node1, node2, similarity
WITH node1, gds.util.asNode(node2) AS t, 2 * similarity - 1 AS cosine
WITH node1, t, cosine, coalesce(t.uri, t.id, elementId(t)) AS key
ORDER BY node1, cosine DESC, key
WITH node1, collect({id: elementId(t), key: key, name: t.name, cosine: cosine})[..$k] AS hits
RETURN elementId(gds.util.asNode(node1)) AS source_id, hits
