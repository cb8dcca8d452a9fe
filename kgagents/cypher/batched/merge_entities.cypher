// Batched load: the batch's entities by (kg, id). One created here carries the load's id (so a failed load can
// find and delete it); one that exists keeps its own. Returns each row's node id for the triples that follow.
UNWIND $rows AS row
MERGE (e:Entity {kg: $kg, id: row[0]})
  ON CREATE SET e.name = row[0], e.load = $load
SET e += row[1]
RETURN row[0] AS id, id(e) AS node
