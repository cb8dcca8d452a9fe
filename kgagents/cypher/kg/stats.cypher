// Counts for one KG: entities, catalogue relations, triples, literal statements, gold links leaving it.
OPTIONAL MATCH (k:KG {name: $kg})
CALL (k) { MATCH (e:Entity {kg: $kg}) RETURN count(e) AS entities }
CALL (k) { MATCH (r:Relation {kg: $kg}) RETURN count(r) AS relations }
CALL (k) { MATCH (:Entity {kg: $kg})-[r]->(b:Entity {kg: $kg}) RETURN count(r) AS triples }
CALL (k) { MATCH (:Entity {kg: $kg})-[r]->(:Literal {kg: $kg}) RETURN count(r) AS literals }
CALL (k) { MATCH (:Entity {kg: $kg})-[g:GOLD_LINK]->(:Entity) RETURN count(g) AS gold_links }
RETURN k IS NOT NULL AS kg_exists, entities, relations, triples, literals, gold_links
