// How many relation triples of one KG there are, and how many carry both reading vectors.
MATCH (h:Entity {kg: $kg})-[r]->(t)
WHERE r.rel IS NOT NULL AND t.kg = $kg
RETURN count(r) AS triples,
       count(CASE WHEN r[$out_property] IS NOT NULL AND r[$in_property] IS NOT NULL THEN 1 END) AS embedded
