// Entities of a KG that has none yet (CREATE skips MERGE's lookup-and-lock; the (kg, id) constraint still holds);
// returns each row's position and the node's id for the triples that follow.
UNWIND $rows AS row
CREATE (e:Entity {kg: $kg, id: row.id})
SET e += row.props
RETURN row.i AS i, id(e) AS node
