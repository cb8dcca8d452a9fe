// All properties of one entity of a KG (no row when it does not exist).
MATCH (e:Entity {kg: $kg, id: $id})
RETURN properties(e) AS entity
