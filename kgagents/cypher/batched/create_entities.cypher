// Batched load into a KG that had no entities: the entities this load meets for the first time, CREATEd (no
// lookup, no lock; the (kg, id) constraint still holds) and tagged with the load. Rows are [position, id, name];
// returns the rows' positions and their nodes' ids (two lists, one record) for the statements that follow.
UNWIND $rows AS row
CREATE (e:Entity {kg: $kg, id: row[1], name: row[2], load: $load})
RETURN collect(row[0]) AS i, collect(id(e)) AS node
