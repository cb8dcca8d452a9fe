// The relation triples from one entity to another of the same KG: relationship type, full relation id and name.
MATCH (a:Entity {kg: $kg, id: $head})-[r]->(b:Entity {kg: $kg, id: $tail})
RETURN type(r) AS type, r.rel AS rel, r.name AS name
ORDER BY rel
