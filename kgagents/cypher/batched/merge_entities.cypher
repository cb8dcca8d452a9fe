// Batched load: entities by (kg, id) that may exist (met in an earlier batch, or stored before the load). One
// created here carries the load's id (so a failed load can find and delete it); one that exists keeps its own.
// Rows are [position, id]; returns the rows' positions and their nodes' ids (two lists, one record) for the
// statements that follow (their other properties are set by batched/set_entities: a map SET here would make the
// plan Eager).
UNWIND $rows AS row
MERGE (e:Entity {kg: $kg, id: row[1]})
  ON CREATE SET e.name = row[1], e.load = $load
RETURN collect(row[0]) AS i, collect(id(e)) AS node
