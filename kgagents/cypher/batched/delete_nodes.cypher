// Removing a failed batched load, 2 (after its statements): up to $limit of the entities and catalogue relations
// it created. Run until it deletes none.
CALL () {
  MATCH (n:Entity {kg: $kg}) WHERE n.load = $load RETURN n
  UNION ALL
  MATCH (n:Relation {kg: $kg}) WHERE n.load = $load RETURN n
}
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
