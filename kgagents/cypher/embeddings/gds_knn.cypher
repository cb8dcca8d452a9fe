// Filtered KNN (cosine on the projected vectors) from Source to Target nodes, keeping the best $k of $search_k per source; exhaustive sampling, seeded, single-threaded so runs repeat exactly.
CALL gds.knn.filtered.stream($graph_name, {
  nodeProperties: {embedding: 'COSINE'},
  sourceNodeFilter: 'Source',
  targetNodeFilter: 'Target',
  topK: $search_k,
  similarityCutoff: $min_score,
  sampleRate: 1.0,
  deltaThreshold: 0.0,
  randomSeed: $seed,
  concurrency: 1
}) YIELD node1, node2, similarity
WITH node1, node2, similarity
ORDER BY node1, similarity DESC
WITH node1, collect({node2: node2, similarity: similarity})[..$k] AS best
UNWIND best AS hit
WITH gds.util.asNode(node1) AS n, gds.util.asNode(hit.node2) AS node, hit.similarity AS similarity
RETURN elementId(n) AS source_id, coalesce(n.uri, n.id) AS source_key, n.name AS source_name,
       elementId(node) AS target_id, coalesce(node.uri, node.id) AS target_key, node.name AS target_name,
       2 * similarity - 1 AS cosine
ORDER BY source_id, cosine DESC
