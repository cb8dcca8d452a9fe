// Entities of one KG by (kg, id); row.props holds name and the optional extras (eid, name_en, label, attributes, …).
UNWIND $rows AS row
MERGE (e:Entity {kg: $kg, id: row.id})
SET e += row.props
