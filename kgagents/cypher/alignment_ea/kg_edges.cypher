// Every relationship between two entities of KG $kg as (head id, tail id), one row per relationship: the adjacency the structure signal propagates seeds over.
MATCH (a:Entity {kg: $kg})-[]->(b:Entity {kg: $kg})
RETURN a.id AS h, b.id AS t
