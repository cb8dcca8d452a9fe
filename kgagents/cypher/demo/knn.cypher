// For each class of $source: its $k nearest classes of $target by vector search over label embeddings.
MATCH (c:Class)
WHERE $source IN c.ontologies AND c.embedding IS NOT NULL
CALL (c) {
  CALL db.index.vector.queryNodes('resource_embedding', 50, c.embedding) YIELD node, score
  WITH node, score
  WHERE $target IN node.ontologies AND node:Class
  RETURN collect([coalesce(node.label, node.name), round(2 * score - 1, 3)])[..$k] AS neighbours
}
RETURN coalesce(c.label, c.name) AS source, neighbours
ORDER BY source
LIMIT 15
