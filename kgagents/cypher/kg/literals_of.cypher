// The literal-valued statements of one entity: relationship type, relation id and name, value, datatype, language.
MATCH (e:Entity {kg: $kg, id: $id})-[r]->(l:Literal)
RETURN type(r) AS type, r.rel AS rel, r.name AS name, l.value AS value, l.datatype AS datatype, l.lang AS lang
ORDER BY rel, value
