// Removing a failed batched load, 1: the relationships it created, found from the KG's entities.
MATCH (a:Entity {kg: $kg})
CALL (a) {
  MATCH (a)-[r]->()
  WHERE r.load = $load
  DELETE r
} IN TRANSACTIONS OF 2000 ROWS
