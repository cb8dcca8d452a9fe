// Removing a failed batched load, 1: up to $limit of the statements it created — relationships carrying its id,
// and those leaving a node it created (a fresh KG's statements carry no id of their own) — each with its Literal
// node when it points at one the load created. Run until it deletes none: a bounded number per transaction,
// however many statements a hub has.
MATCH (a:Entity {kg: $kg})-[r]->(b)
WHERE r.load = $load OR a.load = $load
WITH r, b LIMIT $limit
CALL (r, b) {
  DELETE r
  WITH b WHERE b:Literal AND b.load = $load
  DELETE b
}
RETURN count(*) AS deleted
