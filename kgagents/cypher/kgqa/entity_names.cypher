// Display names of entities of one KG (ids that are not entities of the KG are left out).
UNWIND $ids AS id
MATCH (e:Entity {kg: $kg, id: id})
RETURN e.id AS id, coalesce(e.name, e.id) AS name
