// Per knowledge graph: entities (relationship counts are per load, on the (:Load) records).
MATCH (k:KG)
RETURN k.name AS kg, COUNT { (e:Entity {kg: k.name}) } AS entities
ORDER BY kg
