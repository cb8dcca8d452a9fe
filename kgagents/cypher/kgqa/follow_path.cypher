// One step of a known relation path, for a set of start entities: the entities reached over relationships of type
// $relation in direction $forward, ranked by support; topic entities ($exclude) never re-enter a path. $limit: only
// the best that many (null: all — a step that is walked on needs every entity it reaches). Template ({{types}}):
// $relation written into the pattern (`cypher.with_types`), so a hub's other relationships are not walked.
UNWIND $ids AS id
MATCH (e:Entity {kg: $kg, id: id})-[r{{types}}]-(o)
WHERE type(r) = $relation AND (startNode(r) = e) = $forward AND r.rel IS NOT NULL AND o.kg = $kg
  AND NOT o.id IN $exclude
WITH o, count(*) AS support
ORDER BY support DESC, o.id
LIMIT coalesce($limit, 9223372036854775807)
RETURN o.id AS id, coalesce(o.name, o.value, o.id) AS name, support
