// Delete one KG: entities (with their relationships), literals, relation catalogue and KG node, in batches.
MATCH (n)
WHERE ((n:Entity OR n:Relation OR n:Literal) AND n.kg = $kg) OR (n:KG AND n.name = $kg)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
