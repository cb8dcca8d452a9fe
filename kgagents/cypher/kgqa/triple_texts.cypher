// Every relation triple of one KG with the names of its ends, and the hashes of the readings already embedded.
MATCH (h:Entity {kg: $kg})-[r]->(t)
WHERE r.rel IS NOT NULL AND t.kg = $kg
RETURN elementId(r) AS rid, coalesce(h.name, h.id) AS head, coalesce(r.name, type(r)) AS relation,
       coalesce(t.name, t.value, t.id) AS tail,
       r[$out_property] IS NOT NULL AS has_out, r[$out_sha] AS out_sha,
       r[$in_property] IS NOT NULL AS has_in, r[$in_sha] AS in_sha
