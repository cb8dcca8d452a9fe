// Which of the given ids, and which of the given names, are entities of one KG (for coverage reports).
CALL {
  UNWIND $ids AS id
  MATCH (e:Entity {kg: $kg, id: id})
  RETURN collect(DISTINCT e.id) AS ids
}
CALL {
  UNWIND $names AS name
  MATCH (e:Entity {name: name}) WHERE e.kg = $kg
  RETURN collect(DISTINCT name) AS names
}
RETURN ids, names
