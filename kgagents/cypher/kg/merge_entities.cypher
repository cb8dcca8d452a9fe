// Entities of one KG by (kg, id) (a re-load: some may exist); row.props holds name and the optional extras
// (eid, name_en, label, attributes, …); returns each row's position and the node's id for the triples that follow.
UNWIND $rows AS row
MERGE (e:Entity {kg: $kg, id: row.id})
SET e += row.props
RETURN row.i AS i, id(e) AS node
