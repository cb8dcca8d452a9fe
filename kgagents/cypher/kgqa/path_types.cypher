// The relation path types of one KG of one and two relations, each with its support (how many entities it leaves
// from, for one relation; how many entities it passes through, for two), so `kgqa prepare` can embed their path
// texts once instead of each run meeting them one question at a time (kgqa/pathtexts.py). A step leaving an
// entity is (relationship type, direction); a walk arrives at the entity over the reverse of one of its leaving
// steps, so the two-relation types through an entity are its (reversed leaving step, leaving step) pairs — the
// pair over one relationship and back is counted too (it exists wherever the entity has a second such link; a
// type that does not exist only costs one text embedded). $types: the KG's relationship types (null: a triple is
// told by its `rel` property). Aggregated in Cypher: one row per path type, never one per walk.
MATCH (e:Entity {kg: $kg})
WITH e, COLLECT {
  MATCH (e)-[r]-()
  WHERE CASE WHEN $types IS NULL THEN r.rel IS NOT NULL ELSE type(r) IN $types END
  RETURN DISTINCT [type(r), startNode(r) = e] AS s
} AS leaving
WHERE size(leaving) > 0
UNWIND leaving AS second
CALL (leaving, second) {
  RETURN null AS first
  UNION ALL
  UNWIND leaving AS back
  WITH back WHERE $longest >= 2
  RETURN [back[0], NOT back[1]] AS first
}
WITH first, second, count(*) AS support
RETURN CASE WHEN first IS NULL THEN [second] ELSE [first, second] END AS steps, support
ORDER BY support DESC, size(steps)
