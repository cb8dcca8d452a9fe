// One stored fact per relationship type of one KG (the chain prompt shows each relation's subject and object side):
// for each type in $types, the names of the first subject and object found.
UNWIND $types AS t
CALL {
  WITH t
  MATCH (s:Entity {kg: $kg})-[r]->(o:Entity)
  WHERE type(r) = t
  RETURN coalesce(s.name, s.id) AS subject, coalesce(o.name, o.id) AS object
  LIMIT 1
}
RETURN t AS type, subject, object
