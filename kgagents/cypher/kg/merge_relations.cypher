// The KG's relation catalogue by (kg, id = full relation id); row.props holds name, type and extras.
UNWIND $rows AS row
MERGE (r:Relation {kg: $kg, id: row.id})
SET r += row.props
