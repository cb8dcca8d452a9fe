// Removing a failed batched load, 2: the entities, literals and catalogue relations it created.
CALL () {
  MATCH (n:Entity {kg: $kg}) WHERE n.load = $load RETURN n
  UNION
  MATCH (n:Literal {kg: $kg}) WHERE n.load = $load RETURN n
  UNION
  MATCH (n:Relation {kg: $kg}) WHERE n.load = $load RETURN n
}
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
