// Every (head id, rel, tail id) already stored between two entities of the KG, so a re-load creates none of them again.
MATCH (a:Entity {kg: $kg}) USING INDEX SEEK a:Entity(kg)
MATCH (a)-[x]->(b:Entity {kg: $kg})
WHERE x.rel IS NOT NULL
RETURN a.id AS h, x.rel AS rel, b.id AS t
